-- CreateTable
CREATE TABLE "StoreFulfillmentEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopId" TEXT NOT NULL,
    "trackerId" TEXT NOT NULL,
    "fulfillmentId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "happenedAt" DATETIME NOT NULL,
    "message" TEXT,
    "city" TEXT,
    "province" TEXT,
    "country" TEXT,
    "zip" TEXT,
    "estimatedDeliveryAt" DATETIME,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "storeEventId" TEXT,
    "error" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "StoreFulfillmentEvent_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Shop" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "domain" TEXT NOT NULL,
    "appName" TEXT,
    "apiKeyCiphertext" TEXT,
    "apiKeyKeyId" TEXT,
    "createOnFulfillment" BOOLEAN NOT NULL DEFAULT true,
    "deleteOnCancel" BOOLEAN NOT NULL DEFAULT true,
    "postFulfillmentEvents" BOOLEAN NOT NULL DEFAULT true,
    "showOrderDelivered" BOOLEAN NOT NULL DEFAULT true,
    "staleAfterDays" INTEGER NOT NULL DEFAULT 5,
    "orderIdSource" TEXT NOT NULL DEFAULT 'id',
    "trackersBalance" INTEGER,
    "userPlan" TEXT,
    "pausedReason" TEXT,
    "pausedMessage" TEXT,
    "pausedAt" DATETIME,
    "probeAt" DATETIME,
    "installedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "uninstalledAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_Shop" ("apiKeyCiphertext", "apiKeyKeyId", "appName", "createOnFulfillment", "createdAt", "deleteOnCancel", "domain", "id", "installedAt", "orderIdSource", "pausedAt", "pausedMessage", "pausedReason", "probeAt", "trackersBalance", "uninstalledAt", "updatedAt", "userPlan") SELECT "apiKeyCiphertext", "apiKeyKeyId", "appName", "createOnFulfillment", "createdAt", "deleteOnCancel", "domain", "id", "installedAt", "orderIdSource", "pausedAt", "pausedMessage", "pausedReason", "probeAt", "trackersBalance", "uninstalledAt", "updatedAt", "userPlan" FROM "Shop";
DROP TABLE "Shop";
ALTER TABLE "new_Shop" RENAME TO "Shop";
CREATE UNIQUE INDEX "Shop_domain_key" ON "Shop"("domain");
CREATE TABLE "new_Tracker" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopId" TEXT NOT NULL,
    "trackingNumber" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "orderKey" TEXT NOT NULL,
    "postalCode" TEXT,
    "destinationCountry" TEXT,
    "desired" TEXT NOT NULL DEFAULT 'active',
    "remote" TEXT NOT NULL DEFAULT 'absent',
    "syncState" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "lastErrorReason" TEXT,
    "lastError" TEXT,
    "lastErrorAt" DATETIME,
    "version" INTEGER NOT NULL DEFAULT 0,
    "createCalls" INTEGER NOT NULL DEFAULT 0,
    "syncedAt" DATETIME,
    "status" TEXT,
    "statusDetail" TEXT,
    "estimatedDelivery" TEXT,
    "lastEventAt" DATETIME,
    "lastEventMessage" TEXT,
    "lastEventLocation" TEXT,
    "events" TEXT,
    "statusCheckedAt" DATETIME,
    "nextPollAt" DATETIME,
    "pollFailures" INTEGER NOT NULL DEFAULT 0,
    "pollLeaseOwner" TEXT,
    "pollLeaseExpiresAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Tracker_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Tracker" ("attempts", "createCalls", "createdAt", "desired", "destinationCountry", "id", "lastError", "lastErrorAt", "lastErrorReason", "leaseExpiresAt", "leaseOwner", "nextAttemptAt", "orderKey", "postalCode", "provider", "remote", "shopId", "syncState", "syncedAt", "trackingNumber", "updatedAt", "version") SELECT "attempts", "createCalls", "createdAt", "desired", "destinationCountry", "id", "lastError", "lastErrorAt", "lastErrorReason", "leaseExpiresAt", "leaseOwner", "nextAttemptAt", "orderKey", "postalCode", "provider", "remote", "shopId", "syncState", "syncedAt", "trackingNumber", "updatedAt", "version" FROM "Tracker";
DROP TABLE "Tracker";
ALTER TABLE "new_Tracker" RENAME TO "Tracker";
CREATE INDEX "Tracker_syncState_nextAttemptAt_idx" ON "Tracker"("syncState", "nextAttemptAt");
CREATE INDEX "Tracker_shopId_syncState_idx" ON "Tracker"("shopId", "syncState");
CREATE INDEX "Tracker_nextPollAt_idx" ON "Tracker"("nextPollAt");
CREATE INDEX "Tracker_shopId_status_idx" ON "Tracker"("shopId", "status");
CREATE UNIQUE INDEX "Tracker_shopId_trackingNumber_provider_key" ON "Tracker"("shopId", "trackingNumber", "provider");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "StoreFulfillmentEvent_state_nextAttemptAt_idx" ON "StoreFulfillmentEvent"("state", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "StoreFulfillmentEvent_shopId_state_idx" ON "StoreFulfillmentEvent"("shopId", "state");

-- CreateIndex
CREATE UNIQUE INDEX "StoreFulfillmentEvent_trackerId_fulfillmentId_status_happenedAt_key" ON "StoreFulfillmentEvent"("trackerId", "fulfillmentId", "status", "happenedAt");

-- Trackers already at the service start being polled at once (the time spelled as Prisma writes it).
UPDATE "Tracker" SET "nextPollAt" = strftime('%Y-%m-%dT%H:%M:%f', 'now') || '+00:00' WHERE "desired" = 'active' AND "remote" = 'present';
