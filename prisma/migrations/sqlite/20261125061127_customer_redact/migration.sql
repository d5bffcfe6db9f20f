-- AlterTable
ALTER TABLE "Shop" ADD COLUMN "customersRedactedAt" DATETIME;

-- CreateIndex
CREATE INDEX "Fulfillment_shopId_customerEmailHash_idx" ON "Fulfillment"("shopId", "customerEmailHash");
