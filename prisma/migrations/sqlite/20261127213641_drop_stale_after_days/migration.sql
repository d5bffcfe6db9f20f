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
    "pushSafetyPollHours" INTEGER NOT NULL DEFAULT 24,
    "customersRedactedAt" DATETIME,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "problemRules" TEXT,
    "contactEmail" TEXT,
    "profileCheckedAt" DATETIME,
    "digestEnabled" BOOLEAN NOT NULL DEFAULT true,
    "digestHour" INTEGER NOT NULL DEFAULT 8,
    "digestRecipients" TEXT,
    "nextDigestAt" DATETIME,
    "slackWebhookCiphertext" TEXT,
    "slackWebhookKeyId" TEXT,
    "slackInstantProblems" BOOLEAN NOT NULL DEFAULT false,
    "slackPostedThrough" DATETIME,
    "balanceWarnDays" INTEGER NOT NULL DEFAULT 7
);
INSERT INTO "new_Shop" ("apiKeyCiphertext", "apiKeyKeyId", "appName", "balanceWarnDays", "contactEmail", "createOnFulfillment", "createdAt", "customersRedactedAt", "deleteOnCancel", "digestEnabled", "digestHour", "digestRecipients", "domain", "id", "installedAt", "lastStatusPushAt", "linkToTrackingPage", "nextDigestAt", "orderIdSource", "pausedAt", "pausedMessage", "pausedReason", "postFulfillmentEvents", "probeAt", "problemRules", "profileCheckedAt", "pushSafetyPollHours", "showOrderDelivered", "slackInstantProblems", "slackPostedThrough", "slackWebhookCiphertext", "slackWebhookKeyId", "statusPushToken", "timezone", "trackersBalance", "trackingPageLookups", "uninstalledAt", "updatedAt", "userPlan") SELECT "apiKeyCiphertext", "apiKeyKeyId", "appName", "balanceWarnDays", "contactEmail", "createOnFulfillment", "createdAt", "customersRedactedAt", "deleteOnCancel", "digestEnabled", "digestHour", "digestRecipients", "domain", "id", "installedAt", "lastStatusPushAt", "linkToTrackingPage", "nextDigestAt", "orderIdSource", "pausedAt", "pausedMessage", "pausedReason", "postFulfillmentEvents", "probeAt", "problemRules", "profileCheckedAt", "pushSafetyPollHours", "showOrderDelivered", "slackInstantProblems", "slackPostedThrough", "slackWebhookCiphertext", "slackWebhookKeyId", "statusPushToken", "timezone", "trackersBalance", "trackingPageLookups", "uninstalledAt", "updatedAt", "userPlan" FROM "Shop";
DROP TABLE "Shop";
ALTER TABLE "new_Shop" RENAME TO "Shop";
CREATE UNIQUE INDEX "Shop_domain_key" ON "Shop"("domain");
CREATE UNIQUE INDEX "Shop_statusPushToken_key" ON "Shop"("statusPushToken");
CREATE INDEX "Shop_pausedAt_idx" ON "Shop"("pausedAt");
CREATE INDEX "Shop_nextDigestAt_idx" ON "Shop"("nextDigestAt");
CREATE INDEX "Shop_profileCheckedAt_idx" ON "Shop"("profileCheckedAt");
CREATE INDEX "Shop_slackInstantProblems_slackPostedThrough_idx" ON "Shop"("slackInstantProblems", "slackPostedThrough");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- Redefining "Shop" dropped its trigger: put back the due-shops list's shop trigger (src/db/due-shops.ts).
CREATE TRIGGER "DueShop_shop" AFTER UPDATE OF "pausedAt", "probeAt", "uninstalledAt" ON "Shop" WHEN OLD."pausedAt" IS NOT NEW."pausedAt" OR OLD."probeAt" IS NOT NEW."probeAt" OR OLD."uninstalledAt" IS NOT NEW."uninstalledAt" BEGIN
    INSERT INTO "DueShop" ("id", "queue", "shopId", "dueAt") SELECT lower(hex(randomblob(16))), 'trackers', q."shopId", q."nextAttemptAt" FROM "Tracker" AS q WHERE q."shopId" = NEW."id" AND (q."syncState" = 'pending') ORDER BY q."nextAttemptAt" LIMIT 1;
    INSERT INTO "DueShop" ("id", "queue", "shopId", "dueAt") SELECT lower(hex(randomblob(16))), 'status-polls', q."shopId", q."nextPollAt" FROM "Tracker" AS q WHERE q."shopId" = NEW."id" AND (q."desired" = 'active' AND q."remote" = 'present' AND q."nextPollAt" IS NOT NULL) ORDER BY q."nextPollAt" LIMIT 1;
END;
