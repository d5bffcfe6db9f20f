-- CreateTable
CREATE TABLE "ShipmentCount" (
    "shopId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "parcelGroup" TEXT NOT NULL,
    "syncState" TEXT NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("shopId", "day", "parcelGroup", "syncState")
);

-- CreateTable
CREATE TABLE "DeliveryCount" (
    "shopId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "parcelGroup" TEXT NOT NULL,
    "transitTenths" INTEGER NOT NULL,
    "shipments" INTEGER NOT NULL DEFAULT 0,
    "transitSeconds" BIGINT NOT NULL DEFAULT 0,
    "onTimeMeasured" INTEGER NOT NULL DEFAULT 0,
    "onTime" INTEGER NOT NULL DEFAULT 0,
    "exceptions" INTEGER NOT NULL DEFAULT 0,
    "failedAttempts" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("shopId", "day", "provider", "parcelGroup", "transitTenths")
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
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
    "deliveredAt" DATETIME,
    "transitSeconds" INTEGER,
    "deliveredOnTime" BOOLEAN,
    "hadException" BOOLEAN NOT NULL DEFAULT false,
    "hadFailedAttempt" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Tracker_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Tracker" ("attempts", "createCalls", "createdAt", "desired", "destinationCountry", "estimatedDelivery", "events", "id", "lastError", "lastErrorAt", "lastErrorReason", "lastEventAt", "lastEventLocation", "lastEventMessage", "leaseExpiresAt", "leaseOwner", "nextAttemptAt", "nextPollAt", "orderKey", "pollFailures", "pollLeaseExpiresAt", "pollLeaseOwner", "postalCode", "provider", "remote", "shopId", "status", "statusCheckedAt", "statusDetail", "syncState", "syncedAt", "trackingNumber", "updatedAt", "version") SELECT "attempts", "createCalls", "createdAt", "desired", "destinationCountry", "estimatedDelivery", "events", "id", "lastError", "lastErrorAt", "lastErrorReason", "lastEventAt", "lastEventLocation", "lastEventMessage", "leaseExpiresAt", "leaseOwner", "nextAttemptAt", "nextPollAt", "orderKey", "pollFailures", "pollLeaseExpiresAt", "pollLeaseOwner", "postalCode", "provider", "remote", "shopId", "status", "statusCheckedAt", "statusDetail", "syncState", "syncedAt", "trackingNumber", "updatedAt", "version" FROM "Tracker";
DROP TABLE "Tracker";
ALTER TABLE "new_Tracker" RENAME TO "Tracker";
CREATE INDEX "Tracker_syncState_nextAttemptAt_idx" ON "Tracker"("syncState", "nextAttemptAt");
CREATE INDEX "Tracker_shopId_syncState_idx" ON "Tracker"("shopId", "syncState");
CREATE INDEX "Tracker_nextPollAt_idx" ON "Tracker"("nextPollAt");
CREATE INDEX "Tracker_shopId_status_idx" ON "Tracker"("shopId", "status");
CREATE INDEX "Tracker_shopId_createdAt_idx" ON "Tracker"("shopId", "createdAt");
CREATE INDEX "Tracker_shopId_orderKey_idx" ON "Tracker"("shopId", "orderKey");
CREATE UNIQUE INDEX "Tracker_shopId_trackingNumber_provider_key" ON "Tracker"("shopId", "trackingNumber", "provider");
CREATE TABLE "new_TrackingLine" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopId" TEXT NOT NULL,
    "fulfillmentId" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "orderName" TEXT,
    "fulfillmentName" TEXT,
    "trackingNumber" TEXT NOT NULL,
    "trackingUrl" TEXT,
    "carrierName" TEXT,
    "carrierKey" TEXT,
    "postalCode" TEXT,
    "destinationCountry" TEXT,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "endedReason" TEXT,
    "trackerId" TEXT,
    "parcelGroup" TEXT NOT NULL DEFAULT 'not_scanned',
    "syncState" TEXT NOT NULL DEFAULT 'waiting_carrier',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "TrackingLine_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "TrackingLine_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_TrackingLine" ("active", "carrierKey", "carrierName", "createdAt", "destinationCountry", "endedReason", "fulfillmentId", "fulfillmentName", "id", "orderId", "orderName", "postalCode", "shopId", "trackerId", "trackingNumber", "trackingUrl", "updatedAt") SELECT "active", "carrierKey", "carrierName", "createdAt", "destinationCountry", "endedReason", "fulfillmentId", "fulfillmentName", "id", "orderId", "orderName", "postalCode", "shopId", "trackerId", "trackingNumber", "trackingUrl", "updatedAt" FROM "TrackingLine";
DROP TABLE "TrackingLine";
ALTER TABLE "new_TrackingLine" RENAME TO "TrackingLine";
CREATE INDEX "TrackingLine_shopId_orderId_idx" ON "TrackingLine"("shopId", "orderId");
CREATE INDEX "TrackingLine_shopId_carrierKey_idx" ON "TrackingLine"("shopId", "carrierKey");
CREATE INDEX "TrackingLine_trackerId_idx" ON "TrackingLine"("trackerId");
CREATE INDEX "TrackingLine_shopId_createdAt_id_idx" ON "TrackingLine"("shopId", "createdAt", "id");
CREATE INDEX "TrackingLine_shopId_parcelGroup_createdAt_id_idx" ON "TrackingLine"("shopId", "parcelGroup", "createdAt", "id");
CREATE INDEX "TrackingLine_shopId_syncState_createdAt_id_idx" ON "TrackingLine"("shopId", "syncState", "createdAt", "id");
CREATE INDEX "TrackingLine_shopId_trackingNumber_idx" ON "TrackingLine"("shopId", "trackingNumber");
CREATE INDEX "TrackingLine_shopId_orderName_idx" ON "TrackingLine"("shopId", "orderName");
CREATE UNIQUE INDEX "TrackingLine_shopId_fulfillmentId_trackingNumber_key" ON "TrackingLine"("shopId", "fulfillmentId", "trackingNumber");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- Rollups (generated by src/shipments/rollups.ts: do not edit by hand)
UPDATE "TrackingLine" SET ("parcelGroup", "syncState") = (SELECT CASE WHEN NOT (TRUE) OR t."status" IS NULL OR t."status" = '' THEN 'not_scanned' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'out_for_delivery' THEN 'out_for_delivery' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'available_for_pickup' THEN 'ready_for_pickup' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'ready_for_pickup' THEN 'ready_for_pickup' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'attempt_fail' THEN 'failed_attempt' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'failed_attempt' THEN 'failed_attempt' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'delivery_attempted' THEN 'failed_attempt' WHEN t."status" IN ('pending', 'pending_trackship', 'unknown') THEN 'not_scanned' WHEN t."status" IN ('info_received', 'label_created', 'label_printed', 'pre_transit') THEN 'info_received' WHEN t."status" IN ('out_for_delivery') THEN 'out_for_delivery' WHEN t."status" IN ('available_for_pickup', 'ready_for_pickup') THEN 'ready_for_pickup' WHEN t."status" IN ('attempt_fail', 'failed_attempt', 'failure', 'delivery_attempted') THEN 'failed_attempt' WHEN t."status" IN ('exception', 'error', 'failed', 'delayed', 'on_hold', 'undeliverable', 'return_to_sender', 'returned') THEN 'exception' WHEN t."status" IN ('connection_issue', 'invalid_tracking', 'invalid_carrier', 'carrier_unsupported', 'expired', 'deleted') THEN 'not_followed' WHEN t."status" IN ('delivered') THEN 'delivered' WHEN t."status" IN ('cancelled', 'canceled', 'label_cancelled') THEN 'ended' ELSE 'in_transit' END, CASE WHEN NOT (TRUE) THEN 'waiting_carrier' WHEN t."syncState" IN ('failed', 'dead') THEN 'failed' WHEN t."desired" = 'removed' AND t."remote" <> 'absent' THEN 'removing' WHEN t."desired" = 'removed' AND "TrackingLine"."endedReason" IN ('order_cancelled', 'fulfillment_cancelled', 'number_removed') THEN "TrackingLine"."endedReason" WHEN t."desired" = 'removed' THEN 'removed' WHEN t."syncState" = 'synced' AND t."remote" = 'present' THEN 'tracked' ELSE 'syncing' END FROM "Tracker" AS t WHERE t."id" = "TrackingLine"."trackerId") WHERE "trackerId" IS NOT NULL;
DELETE FROM "ShipmentCount";
INSERT INTO "ShipmentCount" ("shopId", "day", "parcelGroup", "syncState", "count") SELECT l."shopId", substr(l."createdAt", 1, 10), l."parcelGroup", l."syncState", COUNT(*) FROM "TrackingLine" AS l WHERE (l."active" OR l."trackerId" IS NOT NULL) GROUP BY 1, 2, 3, 4;
DELETE FROM "DeliveryCount";
INSERT INTO "DeliveryCount" ("shopId", "day", "provider", "parcelGroup", "transitTenths", "shipments", "transitSeconds", "onTimeMeasured", "onTime", "exceptions", "failedAttempts") SELECT t."shopId", substr(t."createdAt", 1, 10), t."provider", CASE WHEN NOT (TRUE) OR t."status" IS NULL OR t."status" = '' THEN 'not_scanned' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'out_for_delivery' THEN 'out_for_delivery' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'available_for_pickup' THEN 'ready_for_pickup' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'ready_for_pickup' THEN 'ready_for_pickup' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'attempt_fail' THEN 'failed_attempt' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'failed_attempt' THEN 'failed_attempt' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'delivery_attempted' THEN 'failed_attempt' WHEN t."status" IN ('pending', 'pending_trackship', 'unknown') THEN 'not_scanned' WHEN t."status" IN ('info_received', 'label_created', 'label_printed', 'pre_transit') THEN 'info_received' WHEN t."status" IN ('out_for_delivery') THEN 'out_for_delivery' WHEN t."status" IN ('available_for_pickup', 'ready_for_pickup') THEN 'ready_for_pickup' WHEN t."status" IN ('attempt_fail', 'failed_attempt', 'failure', 'delivery_attempted') THEN 'failed_attempt' WHEN t."status" IN ('exception', 'error', 'failed', 'delayed', 'on_hold', 'undeliverable', 'return_to_sender', 'returned') THEN 'exception' WHEN t."status" IN ('connection_issue', 'invalid_tracking', 'invalid_carrier', 'carrier_unsupported', 'expired', 'deleted') THEN 'not_followed' WHEN t."status" IN ('delivered') THEN 'delivered' WHEN t."status" IN ('cancelled', 'canceled', 'label_cancelled') THEN 'ended' ELSE 'in_transit' END, CASE WHEN t."transitSeconds" IS NULL THEN -1 ELSE CAST(ROUND(t."transitSeconds" / 8640.0) AS INTEGER) END, COUNT(*), SUM(COALESCE(t."transitSeconds", 0)), SUM(CASE WHEN t."deliveredOnTime" IS NOT NULL THEN 1 ELSE 0 END), SUM(CASE WHEN t."deliveredOnTime" THEN 1 ELSE 0 END), SUM(CASE WHEN t."hadException" THEN 1 ELSE 0 END), SUM(CASE WHEN t."hadFailedAttempt" THEN 1 ELSE 0 END) FROM "Tracker" AS t WHERE t."desired" = 'active' GROUP BY 1, 2, 3, 4, 5;
