-- AlterTable
ALTER TABLE "Shop" ADD COLUMN     "linkToTrackingPage" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "StoreTrackingLink" (
    "id" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "fulfillmentId" TEXT NOT NULL,
    "wanted" TEXT NOT NULL,
    "applied" TEXT,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "error" TEXT,
    "sentAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "StoreTrackingLink_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "StoreTrackingLink_state_nextAttemptAt_idx" ON "StoreTrackingLink"("state", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "StoreTrackingLink_shopId_state_idx" ON "StoreTrackingLink"("shopId", "state");

-- CreateIndex
CREATE UNIQUE INDEX "StoreTrackingLink_shopId_fulfillmentId_key" ON "StoreTrackingLink"("shopId", "fulfillmentId");

-- AddForeignKey
ALTER TABLE "StoreTrackingLink" ADD CONSTRAINT "StoreTrackingLink_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;
