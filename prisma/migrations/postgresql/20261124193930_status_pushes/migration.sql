-- AlterTable
ALTER TABLE "Shop" ADD COLUMN     "lastStatusPushAt" TIMESTAMP(3),
ADD COLUMN     "pushSafetyPollHours" INTEGER NOT NULL DEFAULT 24,
ADD COLUMN     "statusPushToken" TEXT;

-- CreateTable
CREATE TABLE "StatusPush" (
    "id" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "dedupeKey" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "processedAt" TIMESTAMP(3),
    "error" TEXT,

    CONSTRAINT "StatusPush_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "StatusPush_state_nextAttemptAt_idx" ON "StatusPush"("state", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "StatusPush_shopId_dedupeKey_key" ON "StatusPush"("shopId", "dedupeKey");

-- CreateIndex
CREATE UNIQUE INDEX "Shop_statusPushToken_key" ON "Shop"("statusPushToken");

-- AddForeignKey
ALTER TABLE "StatusPush" ADD CONSTRAINT "StatusPush_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;
