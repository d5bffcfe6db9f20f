-- AlterTable
ALTER TABLE "Tracker" ADD COLUMN "storeEventsThrough" DATETIME;

-- CreateIndex
CREATE INDEX "Fulfillment_updatedAt_idx" ON "Fulfillment"("updatedAt");

-- CreateIndex
CREATE INDEX "Tracker_updatedAt_idx" ON "Tracker"("updatedAt");
