-- CreateTable
CREATE TABLE "BackfillJob" (
    "id" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "days" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'running',
    "cursor" TEXT,
    "pagesDone" INTEGER NOT NULL DEFAULT 0,
    "fulfillmentsSeen" INTEGER NOT NULL DEFAULT 0,
    "trackersWanted" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),

    CONSTRAINT "BackfillJob_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "BackfillJob_state_leaseExpiresAt_idx" ON "BackfillJob"("state", "leaseExpiresAt");

-- CreateIndex
CREATE INDEX "BackfillJob_shopId_startedAt_idx" ON "BackfillJob"("shopId", "startedAt");

-- AddForeignKey
ALTER TABLE "BackfillJob" ADD CONSTRAINT "BackfillJob_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;
