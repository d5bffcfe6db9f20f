-- CreateTable
CREATE TABLE "Shop" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "domain" TEXT NOT NULL,
    "appName" TEXT,
    "apiKeyCiphertext" TEXT,
    "apiKeyKeyId" TEXT,
    "createOnFulfillment" BOOLEAN NOT NULL DEFAULT true,
    "deleteOnCancel" BOOLEAN NOT NULL DEFAULT true,
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

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopDomain" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "webhookId" TEXT NOT NULL,
    "apiVersion" TEXT,
    "triggeredAt" DATETIME,
    "payload" TEXT NOT NULL,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "processedAt" DATETIME,
    "error" TEXT
);

-- CreateTable
CREATE TABLE "Fulfillment" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopId" TEXT NOT NULL,
    "fulfillmentId" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "orderName" TEXT,
    "status" TEXT NOT NULL,
    "carrierName" TEXT,
    "sourceUpdatedAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Fulfillment_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "CancelledOrder" (
    "shopId" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "cancelledAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("shopId", "orderId"),
    CONSTRAINT "CancelledOrder_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "TrackingLine" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopId" TEXT NOT NULL,
    "fulfillmentId" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "orderName" TEXT,
    "trackingNumber" TEXT NOT NULL,
    "carrierName" TEXT,
    "carrierKey" TEXT,
    "postalCode" TEXT,
    "destinationCountry" TEXT,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "trackerId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "TrackingLine_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "TrackingLine_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Tracker" (
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
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Tracker_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Carrier" (
    "slug" TEXT NOT NULL PRIMARY KEY,
    "label" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "CarrierMapping" (
    "shopId" TEXT NOT NULL,
    "nameKey" TEXT NOT NULL,
    "carrierName" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("shopId", "nameKey"),
    CONSTRAINT "CarrierMapping_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AppState" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ComplianceRequest" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopDomain" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "Shop_domain_key" ON "Shop"("domain");

-- CreateIndex
CREATE INDEX "WebhookDelivery_state_nextAttemptAt_idx" ON "WebhookDelivery"("state", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_shopDomain_topic_eventId_key" ON "WebhookDelivery"("shopDomain", "topic", "eventId");

-- CreateIndex
CREATE INDEX "Fulfillment_shopId_orderId_idx" ON "Fulfillment"("shopId", "orderId");

-- CreateIndex
CREATE UNIQUE INDEX "Fulfillment_shopId_fulfillmentId_key" ON "Fulfillment"("shopId", "fulfillmentId");

-- CreateIndex
CREATE INDEX "TrackingLine_shopId_orderId_idx" ON "TrackingLine"("shopId", "orderId");

-- CreateIndex
CREATE INDEX "TrackingLine_shopId_carrierKey_idx" ON "TrackingLine"("shopId", "carrierKey");

-- CreateIndex
CREATE INDEX "TrackingLine_trackerId_idx" ON "TrackingLine"("trackerId");

-- CreateIndex
CREATE UNIQUE INDEX "TrackingLine_shopId_fulfillmentId_trackingNumber_key" ON "TrackingLine"("shopId", "fulfillmentId", "trackingNumber");

-- CreateIndex
CREATE INDEX "Tracker_syncState_nextAttemptAt_idx" ON "Tracker"("syncState", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "Tracker_shopId_syncState_idx" ON "Tracker"("shopId", "syncState");

-- CreateIndex
CREATE UNIQUE INDEX "Tracker_shopId_trackingNumber_provider_key" ON "Tracker"("shopId", "trackingNumber", "provider");
