-- CreateTable
CREATE TABLE "BackfillJob" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopId" TEXT NOT NULL,
    "days" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'running',
    "cursor" TEXT,
    "pagesDone" INTEGER NOT NULL DEFAULT 0,
    "fulfillmentsSeen" INTEGER NOT NULL DEFAULT 0,
    "trackersWanted" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "finishedAt" DATETIME,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    CONSTRAINT "BackfillJob_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "BackfillJob_state_leaseExpiresAt_idx" ON "BackfillJob"("state", "leaseExpiresAt");

-- CreateIndex
CREATE INDEX "BackfillJob_shopId_startedAt_idx" ON "BackfillJob"("shopId", "startedAt");
