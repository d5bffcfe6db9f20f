-- CreateTable
CREATE TABLE "Shop" (
    "id" TEXT NOT NULL,
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
    "pausedAt" TIMESTAMP(3),
    "probeAt" TIMESTAMP(3),
    "installedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "uninstalledAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Shop_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "webhookId" TEXT NOT NULL,
    "apiVersion" TEXT,
    "triggeredAt" TIMESTAMP(3),
    "payload" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "processedAt" TIMESTAMP(3),
    "error" TEXT,

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Fulfillment" (
    "id" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "fulfillmentId" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "orderName" TEXT,
    "status" TEXT NOT NULL,
    "carrierName" TEXT,
    "sourceUpdatedAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Fulfillment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CancelledOrder" (
    "shopId" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "cancelledAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CancelledOrder_pkey" PRIMARY KEY ("shopId","orderId")
);

-- CreateTable
CREATE TABLE "TrackingLine" (
    "id" TEXT NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "TrackingLine_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Tracker" (
    "id" TEXT NOT NULL,
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
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "lastErrorReason" TEXT,
    "lastError" TEXT,
    "lastErrorAt" TIMESTAMP(3),
    "version" INTEGER NOT NULL DEFAULT 0,
    "createCalls" INTEGER NOT NULL DEFAULT 0,
    "syncedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Tracker_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Carrier" (
    "slug" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Carrier_pkey" PRIMARY KEY ("slug")
);

-- CreateTable
CREATE TABLE "CarrierMapping" (
    "shopId" TEXT NOT NULL,
    "nameKey" TEXT NOT NULL,
    "carrierName" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CarrierMapping_pkey" PRIMARY KEY ("shopId","nameKey")
);

-- CreateTable
CREATE TABLE "AppState" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AppState_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "ComplianceRequest" (
    "id" TEXT NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ComplianceRequest_pkey" PRIMARY KEY ("id")
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

-- AddForeignKey
ALTER TABLE "Fulfillment" ADD CONSTRAINT "Fulfillment_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CancelledOrder" ADD CONSTRAINT "CancelledOrder_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TrackingLine" ADD CONSTRAINT "TrackingLine_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TrackingLine" ADD CONSTRAINT "TrackingLine_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Tracker" ADD CONSTRAINT "Tracker_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CarrierMapping" ADD CONSTRAINT "CarrierMapping_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;
