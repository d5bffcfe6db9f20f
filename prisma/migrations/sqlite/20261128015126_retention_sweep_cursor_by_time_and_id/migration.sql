-- DropIndex
DROP INDEX "Fulfillment_updatedAt_idx";

-- DropIndex
DROP INDEX "Tracker_updatedAt_idx";

-- CreateIndex
CREATE INDEX "Fulfillment_updatedAt_id_idx" ON "Fulfillment"("updatedAt", "id");

-- CreateIndex
CREATE INDEX "Tracker_updatedAt_id_idx" ON "Tracker"("updatedAt", "id");
