-- AlterTable
ALTER TABLE "Fulfillment" ADD COLUMN "customerEmailHash" TEXT;

-- CreateIndex
CREATE INDEX "Fulfillment_shopId_orderName_idx" ON "Fulfillment"("shopId", "orderName");
