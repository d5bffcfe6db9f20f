-- AlterTable
ALTER TABLE "Tracker" ADD COLUMN     "storeEventsThrough" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "Fulfillment_updatedAt_idx" ON "Fulfillment"("updatedAt");

-- CreateIndex
CREATE INDEX "Tracker_updatedAt_idx" ON "Tracker"("updatedAt");
