-- CreateTable
CREATE TABLE "LookupLimit" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "windowStartMs" BIGINT NOT NULL,
    "lastAtMs" BIGINT NOT NULL,
    "blockedUntilMs" BIGINT NOT NULL DEFAULT 0,
    "expiresAt" DATETIME NOT NULL,
    CONSTRAINT "LookupLimit_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "LookupLimit_shopId_idx" ON "LookupLimit"("shopId");

-- CreateIndex
CREATE INDEX "LookupLimit_expiresAt_idx" ON "LookupLimit"("expiresAt");
