-- AlterTable
ALTER TABLE "Shop" ADD COLUMN     "customersRedactedAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "Fulfillment_shopId_customerEmailHash_idx" ON "Fulfillment"("shopId", "customerEmailHash");
