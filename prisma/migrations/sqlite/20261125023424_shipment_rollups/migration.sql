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

CREATE TRIGGER "TrackingLine_class_insert" AFTER INSERT ON "TrackingLine" BEGIN
    INSERT INTO "ShipmentCount" ("shopId", "day", "parcelGroup", "syncState", "count")
    SELECT NEW."shopId", substr(NEW."createdAt", 1, 10), NEW."parcelGroup", NEW."syncState", 1
    WHERE (NEW."active" OR NEW."trackerId" IS NOT NULL)
    ON CONFLICT ("shopId", "day", "parcelGroup", "syncState") DO UPDATE SET "count" = "ShipmentCount"."count" + excluded."count";
    UPDATE "TrackingLine" SET ("parcelGroup", "syncState") = (SELECT CASE WHEN NOT (t."id" IS NOT NULL) OR t."status" IS NULL OR t."status" = '' THEN 'not_scanned' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'out_for_delivery' THEN 'out_for_delivery' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'available_for_pickup' THEN 'ready_for_pickup' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'ready_for_pickup' THEN 'ready_for_pickup' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'attempt_fail' THEN 'failed_attempt' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'failed_attempt' THEN 'failed_attempt' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'delivery_attempted' THEN 'failed_attempt' WHEN t."status" IN ('pending', 'pending_trackship', 'unknown') THEN 'not_scanned' WHEN t."status" IN ('info_received', 'label_created', 'label_printed', 'pre_transit') THEN 'info_received' WHEN t."status" IN ('out_for_delivery') THEN 'out_for_delivery' WHEN t."status" IN ('available_for_pickup', 'ready_for_pickup') THEN 'ready_for_pickup' WHEN t."status" IN ('attempt_fail', 'failed_attempt', 'failure', 'delivery_attempted') THEN 'failed_attempt' WHEN t."status" IN ('exception', 'error', 'failed', 'delayed', 'on_hold', 'undeliverable', 'return_to_sender', 'returned') THEN 'exception' WHEN t."status" IN ('connection_issue', 'invalid_tracking', 'invalid_carrier', 'carrier_unsupported', 'expired', 'deleted') THEN 'not_followed' WHEN t."status" IN ('delivered') THEN 'delivered' WHEN t."status" IN ('cancelled', 'canceled', 'label_cancelled') THEN 'ended' ELSE 'in_transit' END, CASE WHEN NOT (t."id" IS NOT NULL) THEN 'waiting_carrier' WHEN t."syncState" IN ('failed', 'dead') THEN 'failed' WHEN t."desired" = 'removed' AND t."remote" <> 'absent' THEN 'removing' WHEN t."desired" = 'removed' AND NEW."endedReason" IN ('order_cancelled', 'fulfillment_cancelled', 'number_removed') THEN NEW."endedReason" WHEN t."desired" = 'removed' THEN 'removed' WHEN t."syncState" = 'synced' AND t."remote" = 'present' THEN 'tracked' ELSE 'syncing' END FROM (SELECT 1) AS one LEFT JOIN "Tracker" AS t ON t."id" = NEW."trackerId") WHERE "id" = NEW."id";
END;

CREATE TRIGGER "TrackingLine_class_update" AFTER UPDATE OF "trackerId", "endedReason" ON "TrackingLine" BEGIN
    UPDATE "TrackingLine" SET ("parcelGroup", "syncState") = (SELECT CASE WHEN NOT (t."id" IS NOT NULL) OR t."status" IS NULL OR t."status" = '' THEN 'not_scanned' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'out_for_delivery' THEN 'out_for_delivery' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'available_for_pickup' THEN 'ready_for_pickup' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'ready_for_pickup' THEN 'ready_for_pickup' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'attempt_fail' THEN 'failed_attempt' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'failed_attempt' THEN 'failed_attempt' WHEN t."status" IN ('in_transit', 'transit') AND t."statusDetail" = 'delivery_attempted' THEN 'failed_attempt' WHEN t."status" IN ('pending', 'pending_trackship', 'unknown') THEN 'not_scanned' WHEN t."status" IN ('info_received', 'label_created', 'label_printed', 'pre_transit') THEN 'info_received' WHEN t."status" IN ('out_for_delivery') THEN 'out_for_delivery' WHEN t."status" IN ('available_for_pickup', 'ready_for_pickup') THEN 'ready_for_pickup' WHEN t."status" IN ('attempt_fail', 'failed_attempt', 'failure', 'delivery_attempted') THEN 'failed_attempt' WHEN t."status" IN ('exception', 'error', 'failed', 'delayed', 'on_hold', 'undeliverable', 'return_to_sender', 'returned') THEN 'exception' WHEN t."status" IN ('connection_issue', 'invalid_tracking', 'invalid_carrier', 'carrier_unsupported', 'expired', 'deleted') THEN 'not_followed' WHEN t."status" IN ('delivered') THEN 'delivered' WHEN t."status" IN ('cancelled', 'canceled', 'label_cancelled') THEN 'ended' ELSE 'in_transit' END, CASE WHEN NOT (t."id" IS NOT NULL) THEN 'waiting_carrier' WHEN t."syncState" IN ('failed', 'dead') THEN 'failed' WHEN t."desired" = 'removed' AND t."remote" <> 'absent' THEN 'removing' WHEN t."desired" = 'removed' AND NEW."endedReason" IN ('order_cancelled', 'fulfillment_cancelled', 'number_removed') THEN NEW."endedReason" WHEN t."desired" = 'removed' THEN 'removed' WHEN t."syncState" = 'synced' AND t."remote" = 'present' THEN 'tracked' ELSE 'syncing' END FROM (SELECT 1) AS one LEFT JOIN "Tracker" AS t ON t."id" = NEW."trackerId") WHERE "id" = NEW."id";
END;

CREATE TRIGGER "TrackingLine_counts_update" AFTER UPDATE OF "parcelGroup", "syncState", "active", "trackerId", "createdAt", "shopId" ON "TrackingLine" WHEN OLD."parcelGroup" IS NOT NEW."parcelGroup" OR OLD."syncState" IS NOT NEW."syncState" OR OLD."active" IS NOT NEW."active" OR OLD."trackerId" IS NOT NEW."trackerId" OR OLD."createdAt" IS NOT NEW."createdAt" OR OLD."shopId" IS NOT NEW."shopId" BEGIN
    INSERT INTO "ShipmentCount" ("shopId", "day", "parcelGroup", "syncState", "count")
    SELECT OLD."shopId", substr(OLD."createdAt", 1, 10), OLD."parcelGroup", OLD."syncState", -1
    WHERE (OLD."active" OR OLD."trackerId" IS NOT NULL)
    ON CONFLICT ("shopId", "day", "parcelGroup", "syncState") DO UPDATE SET "count" = "ShipmentCount"."count" + excluded."count";
    INSERT INTO "ShipmentCount" ("shopId", "day", "parcelGroup", "syncState", "count")
    SELECT NEW."shopId", substr(NEW."createdAt", 1, 10), NEW."parcelGroup", NEW."syncState", 1
    WHERE (NEW."active" OR NEW."trackerId" IS NOT NULL)
    ON CONFLICT ("shopId", "day", "parcelGroup", "syncState") DO UPDATE SET "count" = "ShipmentCount"."count" + excluded."count";
END;

CREATE TRIGGER "TrackingLine_counts_delete" AFTER DELETE ON "TrackingLine" BEGIN
    INSERT INTO "ShipmentCount" ("shopId", "day", "parcelGroup", "syncState", "count")
    SELECT OLD."shopId", substr(OLD."createdAt", 1, 10), OLD."parcelGroup", OLD."syncState", -1
    WHERE (OLD."active" OR OLD."trackerId" IS NOT NULL)
    ON CONFLICT ("shopId", "day", "parcelGroup", "syncState") DO UPDATE SET "count" = "ShipmentCount"."count" + excluded."count";
END;

CREATE TRIGGER "Tracker_lines" AFTER UPDATE OF "status", "statusDetail", "syncState", "desired", "remote" ON "Tracker" WHEN OLD."status" IS NOT NEW."status" OR OLD."statusDetail" IS NOT NEW."statusDetail" OR OLD."syncState" IS NOT NEW."syncState" OR OLD."desired" IS NOT NEW."desired" OR OLD."remote" IS NOT NEW."remote" BEGIN
    UPDATE "TrackingLine" SET "parcelGroup" = CASE WHEN NOT (TRUE) OR NEW."status" IS NULL OR NEW."status" = '' THEN 'not_scanned' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'out_for_delivery' THEN 'out_for_delivery' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'available_for_pickup' THEN 'ready_for_pickup' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'ready_for_pickup' THEN 'ready_for_pickup' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'attempt_fail' THEN 'failed_attempt' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'failed_attempt' THEN 'failed_attempt' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'delivery_attempted' THEN 'failed_attempt' WHEN NEW."status" IN ('pending', 'pending_trackship', 'unknown') THEN 'not_scanned' WHEN NEW."status" IN ('info_received', 'label_created', 'label_printed', 'pre_transit') THEN 'info_received' WHEN NEW."status" IN ('out_for_delivery') THEN 'out_for_delivery' WHEN NEW."status" IN ('available_for_pickup', 'ready_for_pickup') THEN 'ready_for_pickup' WHEN NEW."status" IN ('attempt_fail', 'failed_attempt', 'failure', 'delivery_attempted') THEN 'failed_attempt' WHEN NEW."status" IN ('exception', 'error', 'failed', 'delayed', 'on_hold', 'undeliverable', 'return_to_sender', 'returned') THEN 'exception' WHEN NEW."status" IN ('connection_issue', 'invalid_tracking', 'invalid_carrier', 'carrier_unsupported', 'expired', 'deleted') THEN 'not_followed' WHEN NEW."status" IN ('delivered') THEN 'delivered' WHEN NEW."status" IN ('cancelled', 'canceled', 'label_cancelled') THEN 'ended' ELSE 'in_transit' END, "syncState" = CASE WHEN NOT (TRUE) THEN 'waiting_carrier' WHEN NEW."syncState" IN ('failed', 'dead') THEN 'failed' WHEN NEW."desired" = 'removed' AND NEW."remote" <> 'absent' THEN 'removing' WHEN NEW."desired" = 'removed' AND "TrackingLine"."endedReason" IN ('order_cancelled', 'fulfillment_cancelled', 'number_removed') THEN "TrackingLine"."endedReason" WHEN NEW."desired" = 'removed' THEN 'removed' WHEN NEW."syncState" = 'synced' AND NEW."remote" = 'present' THEN 'tracked' ELSE 'syncing' END
    WHERE "trackerId" = NEW."id" AND ("parcelGroup" <> CASE WHEN NOT (TRUE) OR NEW."status" IS NULL OR NEW."status" = '' THEN 'not_scanned' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'out_for_delivery' THEN 'out_for_delivery' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'available_for_pickup' THEN 'ready_for_pickup' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'ready_for_pickup' THEN 'ready_for_pickup' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'attempt_fail' THEN 'failed_attempt' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'failed_attempt' THEN 'failed_attempt' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'delivery_attempted' THEN 'failed_attempt' WHEN NEW."status" IN ('pending', 'pending_trackship', 'unknown') THEN 'not_scanned' WHEN NEW."status" IN ('info_received', 'label_created', 'label_printed', 'pre_transit') THEN 'info_received' WHEN NEW."status" IN ('out_for_delivery') THEN 'out_for_delivery' WHEN NEW."status" IN ('available_for_pickup', 'ready_for_pickup') THEN 'ready_for_pickup' WHEN NEW."status" IN ('attempt_fail', 'failed_attempt', 'failure', 'delivery_attempted') THEN 'failed_attempt' WHEN NEW."status" IN ('exception', 'error', 'failed', 'delayed', 'on_hold', 'undeliverable', 'return_to_sender', 'returned') THEN 'exception' WHEN NEW."status" IN ('connection_issue', 'invalid_tracking', 'invalid_carrier', 'carrier_unsupported', 'expired', 'deleted') THEN 'not_followed' WHEN NEW."status" IN ('delivered') THEN 'delivered' WHEN NEW."status" IN ('cancelled', 'canceled', 'label_cancelled') THEN 'ended' ELSE 'in_transit' END OR "syncState" <> CASE WHEN NOT (TRUE) THEN 'waiting_carrier' WHEN NEW."syncState" IN ('failed', 'dead') THEN 'failed' WHEN NEW."desired" = 'removed' AND NEW."remote" <> 'absent' THEN 'removing' WHEN NEW."desired" = 'removed' AND "TrackingLine"."endedReason" IN ('order_cancelled', 'fulfillment_cancelled', 'number_removed') THEN "TrackingLine"."endedReason" WHEN NEW."desired" = 'removed' THEN 'removed' WHEN NEW."syncState" = 'synced' AND NEW."remote" = 'present' THEN 'tracked' ELSE 'syncing' END);
END;

CREATE TRIGGER "Tracker_gone" BEFORE DELETE ON "Tracker" BEGIN
    UPDATE "TrackingLine" SET "parcelGroup" = 'not_scanned', "syncState" = 'waiting_carrier'
    WHERE "trackerId" = OLD."id" AND ("parcelGroup" <> 'not_scanned' OR "syncState" <> 'waiting_carrier');
END;

CREATE TRIGGER "Tracker_deliveries_insert" AFTER INSERT ON "Tracker" BEGIN
    INSERT INTO "DeliveryCount" ("shopId", "day", "provider", "parcelGroup", "transitTenths", "shipments", "transitSeconds", "onTimeMeasured", "onTime", "exceptions", "failedAttempts")
    SELECT NEW."shopId", substr(NEW."createdAt", 1, 10), NEW."provider", CASE WHEN NOT (TRUE) OR NEW."status" IS NULL OR NEW."status" = '' THEN 'not_scanned' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'out_for_delivery' THEN 'out_for_delivery' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'available_for_pickup' THEN 'ready_for_pickup' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'ready_for_pickup' THEN 'ready_for_pickup' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'attempt_fail' THEN 'failed_attempt' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'failed_attempt' THEN 'failed_attempt' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'delivery_attempted' THEN 'failed_attempt' WHEN NEW."status" IN ('pending', 'pending_trackship', 'unknown') THEN 'not_scanned' WHEN NEW."status" IN ('info_received', 'label_created', 'label_printed', 'pre_transit') THEN 'info_received' WHEN NEW."status" IN ('out_for_delivery') THEN 'out_for_delivery' WHEN NEW."status" IN ('available_for_pickup', 'ready_for_pickup') THEN 'ready_for_pickup' WHEN NEW."status" IN ('attempt_fail', 'failed_attempt', 'failure', 'delivery_attempted') THEN 'failed_attempt' WHEN NEW."status" IN ('exception', 'error', 'failed', 'delayed', 'on_hold', 'undeliverable', 'return_to_sender', 'returned') THEN 'exception' WHEN NEW."status" IN ('connection_issue', 'invalid_tracking', 'invalid_carrier', 'carrier_unsupported', 'expired', 'deleted') THEN 'not_followed' WHEN NEW."status" IN ('delivered') THEN 'delivered' WHEN NEW."status" IN ('cancelled', 'canceled', 'label_cancelled') THEN 'ended' ELSE 'in_transit' END, CASE WHEN NEW."transitSeconds" IS NULL THEN -1 ELSE CAST(ROUND(NEW."transitSeconds" / 8640.0) AS INTEGER) END, 1, COALESCE(NEW."transitSeconds", 0), CASE WHEN NEW."deliveredOnTime" IS NOT NULL THEN 1 ELSE 0 END, CASE WHEN NEW."deliveredOnTime" THEN 1 ELSE 0 END, CASE WHEN NEW."hadException" THEN 1 ELSE 0 END, CASE WHEN NEW."hadFailedAttempt" THEN 1 ELSE 0 END
    WHERE NEW."desired" = 'active'
    ON CONFLICT ("shopId", "day", "provider", "parcelGroup", "transitTenths") DO UPDATE SET "shipments" = "DeliveryCount"."shipments" + excluded."shipments", "transitSeconds" = "DeliveryCount"."transitSeconds" + excluded."transitSeconds", "onTimeMeasured" = "DeliveryCount"."onTimeMeasured" + excluded."onTimeMeasured", "onTime" = "DeliveryCount"."onTime" + excluded."onTime", "exceptions" = "DeliveryCount"."exceptions" + excluded."exceptions", "failedAttempts" = "DeliveryCount"."failedAttempts" + excluded."failedAttempts";
END;

CREATE TRIGGER "Tracker_deliveries_update" AFTER UPDATE OF "shopId", "createdAt", "provider", "desired", "status", "statusDetail", "transitSeconds", "deliveredOnTime", "hadException", "hadFailedAttempt" ON "Tracker" WHEN OLD."shopId" IS NOT NEW."shopId" OR OLD."createdAt" IS NOT NEW."createdAt" OR OLD."provider" IS NOT NEW."provider" OR OLD."desired" IS NOT NEW."desired" OR OLD."status" IS NOT NEW."status" OR OLD."statusDetail" IS NOT NEW."statusDetail" OR OLD."transitSeconds" IS NOT NEW."transitSeconds" OR OLD."deliveredOnTime" IS NOT NEW."deliveredOnTime" OR OLD."hadException" IS NOT NEW."hadException" OR OLD."hadFailedAttempt" IS NOT NEW."hadFailedAttempt" BEGIN
    INSERT INTO "DeliveryCount" ("shopId", "day", "provider", "parcelGroup", "transitTenths", "shipments", "transitSeconds", "onTimeMeasured", "onTime", "exceptions", "failedAttempts")
    SELECT OLD."shopId", substr(OLD."createdAt", 1, 10), OLD."provider", CASE WHEN NOT (TRUE) OR OLD."status" IS NULL OR OLD."status" = '' THEN 'not_scanned' WHEN OLD."status" IN ('in_transit', 'transit') AND OLD."statusDetail" = 'out_for_delivery' THEN 'out_for_delivery' WHEN OLD."status" IN ('in_transit', 'transit') AND OLD."statusDetail" = 'available_for_pickup' THEN 'ready_for_pickup' WHEN OLD."status" IN ('in_transit', 'transit') AND OLD."statusDetail" = 'ready_for_pickup' THEN 'ready_for_pickup' WHEN OLD."status" IN ('in_transit', 'transit') AND OLD."statusDetail" = 'attempt_fail' THEN 'failed_attempt' WHEN OLD."status" IN ('in_transit', 'transit') AND OLD."statusDetail" = 'failed_attempt' THEN 'failed_attempt' WHEN OLD."status" IN ('in_transit', 'transit') AND OLD."statusDetail" = 'delivery_attempted' THEN 'failed_attempt' WHEN OLD."status" IN ('pending', 'pending_trackship', 'unknown') THEN 'not_scanned' WHEN OLD."status" IN ('info_received', 'label_created', 'label_printed', 'pre_transit') THEN 'info_received' WHEN OLD."status" IN ('out_for_delivery') THEN 'out_for_delivery' WHEN OLD."status" IN ('available_for_pickup', 'ready_for_pickup') THEN 'ready_for_pickup' WHEN OLD."status" IN ('attempt_fail', 'failed_attempt', 'failure', 'delivery_attempted') THEN 'failed_attempt' WHEN OLD."status" IN ('exception', 'error', 'failed', 'delayed', 'on_hold', 'undeliverable', 'return_to_sender', 'returned') THEN 'exception' WHEN OLD."status" IN ('connection_issue', 'invalid_tracking', 'invalid_carrier', 'carrier_unsupported', 'expired', 'deleted') THEN 'not_followed' WHEN OLD."status" IN ('delivered') THEN 'delivered' WHEN OLD."status" IN ('cancelled', 'canceled', 'label_cancelled') THEN 'ended' ELSE 'in_transit' END, CASE WHEN OLD."transitSeconds" IS NULL THEN -1 ELSE CAST(ROUND(OLD."transitSeconds" / 8640.0) AS INTEGER) END, -1, -COALESCE(OLD."transitSeconds", 0), -CASE WHEN OLD."deliveredOnTime" IS NOT NULL THEN 1 ELSE 0 END, -CASE WHEN OLD."deliveredOnTime" THEN 1 ELSE 0 END, -CASE WHEN OLD."hadException" THEN 1 ELSE 0 END, -CASE WHEN OLD."hadFailedAttempt" THEN 1 ELSE 0 END
    WHERE OLD."desired" = 'active'
    ON CONFLICT ("shopId", "day", "provider", "parcelGroup", "transitTenths") DO UPDATE SET "shipments" = "DeliveryCount"."shipments" + excluded."shipments", "transitSeconds" = "DeliveryCount"."transitSeconds" + excluded."transitSeconds", "onTimeMeasured" = "DeliveryCount"."onTimeMeasured" + excluded."onTimeMeasured", "onTime" = "DeliveryCount"."onTime" + excluded."onTime", "exceptions" = "DeliveryCount"."exceptions" + excluded."exceptions", "failedAttempts" = "DeliveryCount"."failedAttempts" + excluded."failedAttempts";
    INSERT INTO "DeliveryCount" ("shopId", "day", "provider", "parcelGroup", "transitTenths", "shipments", "transitSeconds", "onTimeMeasured", "onTime", "exceptions", "failedAttempts")
    SELECT NEW."shopId", substr(NEW."createdAt", 1, 10), NEW."provider", CASE WHEN NOT (TRUE) OR NEW."status" IS NULL OR NEW."status" = '' THEN 'not_scanned' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'out_for_delivery' THEN 'out_for_delivery' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'available_for_pickup' THEN 'ready_for_pickup' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'ready_for_pickup' THEN 'ready_for_pickup' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'attempt_fail' THEN 'failed_attempt' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'failed_attempt' THEN 'failed_attempt' WHEN NEW."status" IN ('in_transit', 'transit') AND NEW."statusDetail" = 'delivery_attempted' THEN 'failed_attempt' WHEN NEW."status" IN ('pending', 'pending_trackship', 'unknown') THEN 'not_scanned' WHEN NEW."status" IN ('info_received', 'label_created', 'label_printed', 'pre_transit') THEN 'info_received' WHEN NEW."status" IN ('out_for_delivery') THEN 'out_for_delivery' WHEN NEW."status" IN ('available_for_pickup', 'ready_for_pickup') THEN 'ready_for_pickup' WHEN NEW."status" IN ('attempt_fail', 'failed_attempt', 'failure', 'delivery_attempted') THEN 'failed_attempt' WHEN NEW."status" IN ('exception', 'error', 'failed', 'delayed', 'on_hold', 'undeliverable', 'return_to_sender', 'returned') THEN 'exception' WHEN NEW."status" IN ('connection_issue', 'invalid_tracking', 'invalid_carrier', 'carrier_unsupported', 'expired', 'deleted') THEN 'not_followed' WHEN NEW."status" IN ('delivered') THEN 'delivered' WHEN NEW."status" IN ('cancelled', 'canceled', 'label_cancelled') THEN 'ended' ELSE 'in_transit' END, CASE WHEN NEW."transitSeconds" IS NULL THEN -1 ELSE CAST(ROUND(NEW."transitSeconds" / 8640.0) AS INTEGER) END, 1, COALESCE(NEW."transitSeconds", 0), CASE WHEN NEW."deliveredOnTime" IS NOT NULL THEN 1 ELSE 0 END, CASE WHEN NEW."deliveredOnTime" THEN 1 ELSE 0 END, CASE WHEN NEW."hadException" THEN 1 ELSE 0 END, CASE WHEN NEW."hadFailedAttempt" THEN 1 ELSE 0 END
    WHERE NEW."desired" = 'active'
    ON CONFLICT ("shopId", "day", "provider", "parcelGroup", "transitTenths") DO UPDATE SET "shipments" = "DeliveryCount"."shipments" + excluded."shipments", "transitSeconds" = "DeliveryCount"."transitSeconds" + excluded."transitSeconds", "onTimeMeasured" = "DeliveryCount"."onTimeMeasured" + excluded."onTimeMeasured", "onTime" = "DeliveryCount"."onTime" + excluded."onTime", "exceptions" = "DeliveryCount"."exceptions" + excluded."exceptions", "failedAttempts" = "DeliveryCount"."failedAttempts" + excluded."failedAttempts";
END;
