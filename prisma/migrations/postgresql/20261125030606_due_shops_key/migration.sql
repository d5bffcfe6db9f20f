-- DropIndex
DROP INDEX "DueShop_queue_shopId_dueAt_idx";

-- AlterTable
ALTER TABLE "DueShop" DROP CONSTRAINT "DueShop_pkey",
ADD CONSTRAINT "DueShop_pkey" PRIMARY KEY ("queue", "shopId", "id");
