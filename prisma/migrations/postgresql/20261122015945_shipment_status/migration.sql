-- AlterTable
ALTER TABLE "Shop" ADD COLUMN     "postFulfillmentEvents" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "showOrderDelivered" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "staleAfterDays" INTEGER NOT NULL DEFAULT 5;

-- AlterTable
ALTER TABLE "Tracker" ADD COLUMN     "estimatedDelivery" TEXT,
ADD COLUMN     "events" TEXT,
ADD COLUMN     "lastEventAt" TIMESTAMP(3),
ADD COLUMN     "lastEventLocation" TEXT,
ADD COLUMN     "lastEventMessage" TEXT,
ADD COLUMN     "nextPollAt" TIMESTAMP(3),
ADD COLUMN     "pollFailures" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "pollLeaseExpiresAt" TIMESTAMP(3),
ADD COLUMN     "pollLeaseOwner" TEXT,
ADD COLUMN     "status" TEXT,
ADD COLUMN     "statusCheckedAt" TIMESTAMP(3),
ADD COLUMN     "statusDetail" TEXT;

-- CreateTable
CREATE TABLE "StoreFulfillmentEvent" (
    "id" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "trackerId" TEXT NOT NULL,
    "fulfillmentId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "happenedAt" TIMESTAMP(3) NOT NULL,
    "message" TEXT,
    "city" TEXT,
    "province" TEXT,
    "country" TEXT,
    "zip" TEXT,
    "estimatedDeliveryAt" TIMESTAMP(3),
    "state" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "storeEventId" TEXT,
    "error" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "StoreFulfillmentEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "StoreFulfillmentEvent_state_nextAttemptAt_idx" ON "StoreFulfillmentEvent"("state", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "StoreFulfillmentEvent_shopId_state_idx" ON "StoreFulfillmentEvent"("shopId", "state");

-- CreateIndex
CREATE UNIQUE INDEX "StoreFulfillmentEvent_trackerId_fulfillmentId_status_happen_key" ON "StoreFulfillmentEvent"("trackerId", "fulfillmentId", "status", "happenedAt");

-- CreateIndex
CREATE INDEX "Tracker_nextPollAt_idx" ON "Tracker"("nextPollAt");

-- CreateIndex
CREATE INDEX "Tracker_shopId_status_idx" ON "Tracker"("shopId", "status");

-- AddForeignKey
ALTER TABLE "StoreFulfillmentEvent" ADD CONSTRAINT "StoreFulfillmentEvent_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Trackers already at the service start being polled at once.
UPDATE "Tracker" SET "nextPollAt" = CURRENT_TIMESTAMP WHERE "desired" = 'active' AND "remote" = 'present';
