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
    "trackingPageLookups" INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "new_Shop" ("apiKeyCiphertext", "apiKeyKeyId", "appName", "createOnFulfillment", "createdAt", "deleteOnCancel", "domain", "id", "installedAt", "orderIdSource", "pausedAt", "pausedMessage", "pausedReason", "postFulfillmentEvents", "probeAt", "showOrderDelivered", "staleAfterDays", "trackersBalance", "uninstalledAt", "updatedAt", "userPlan") SELECT "apiKeyCiphertext", "apiKeyKeyId", "appName", "createOnFulfillment", "createdAt", "deleteOnCancel", "domain", "id", "installedAt", "orderIdSource", "pausedAt", "pausedMessage", "pausedReason", "postFulfillmentEvents", "probeAt", "showOrderDelivered", "staleAfterDays", "trackersBalance", "uninstalledAt", "updatedAt", "userPlan" FROM "Shop";
DROP TABLE "Shop";
ALTER TABLE "new_Shop" RENAME TO "Shop";
CREATE UNIQUE INDEX "Shop_domain_key" ON "Shop"("domain");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
