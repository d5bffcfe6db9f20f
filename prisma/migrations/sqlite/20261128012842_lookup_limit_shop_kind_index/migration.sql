-- DropIndex
DROP INDEX "LookupLimit_shopId_idx";

-- CreateIndex
CREATE INDEX "LookupLimit_shopId_kind_idx" ON "LookupLimit"("shopId", "kind");
