-- CreateTable
CREATE TABLE "StatusPush" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopId" TEXT NOT NULL,
    "dedupeKey" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "processedAt" DATETIME,
    "error" TEXT,
    CONSTRAINT "StatusPush_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
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
    "updatedAt" DATETIME NOT NULL,
    "trackingPageLookups" INTEGER NOT NULL DEFAULT 0,
    "linkToTrackingPage" BOOLEAN NOT NULL DEFAULT false,
    "statusPushToken" TEXT,
    "lastStatusPushAt" DATETIME,
    "pushSafetyPollHours" INTEGER NOT NULL DEFAULT 24
);
INSERT INTO "new_Shop" ("apiKeyCiphertext", "apiKeyKeyId", "appName", "createOnFulfillment", "createdAt", "deleteOnCancel", "domain", "id", "installedAt", "linkToTrackingPage", "orderIdSource", "pausedAt", "pausedMessage", "pausedReason", "postFulfillmentEvents", "probeAt", "showOrderDelivered", "staleAfterDays", "trackersBalance", "trackingPageLookups", "uninstalledAt", "updatedAt", "userPlan") SELECT "apiKeyCiphertext", "apiKeyKeyId", "appName", "createOnFulfillment", "createdAt", "deleteOnCancel", "domain", "id", "installedAt", "linkToTrackingPage", "orderIdSource", "pausedAt", "pausedMessage", "pausedReason", "postFulfillmentEvents", "probeAt", "showOrderDelivered", "staleAfterDays", "trackersBalance", "trackingPageLookups", "uninstalledAt", "updatedAt", "userPlan" FROM "Shop";
DROP TABLE "Shop";
ALTER TABLE "new_Shop" RENAME TO "Shop";
CREATE UNIQUE INDEX "Shop_domain_key" ON "Shop"("domain");
CREATE UNIQUE INDEX "Shop_statusPushToken_key" ON "Shop"("statusPushToken");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "StatusPush_state_nextAttemptAt_idx" ON "StatusPush"("state", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "StatusPush_shopId_dedupeKey_key" ON "StatusPush"("shopId", "dedupeKey");
