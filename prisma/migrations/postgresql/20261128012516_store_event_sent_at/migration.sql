-- AlterTable
ALTER TABLE "StoreFulfillmentEvent" ADD COLUMN     "sentAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "StoreFulfillmentEvent_shopId_fulfillmentId_sentAt_idx" ON "StoreFulfillmentEvent"("shopId", "fulfillmentId", "sentAt");
