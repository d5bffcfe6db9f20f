-- AlterTable
ALTER TABLE "Tracker" ADD COLUMN "problemCheckAt" DATETIME;

-- CreateTable
CREATE TABLE "ShipmentProblem" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopId" TEXT NOT NULL,
    "trackerId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "since" DATETIME NOT NULL,
    "detail" TEXT,
    "openedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "closedAt" DATETIME,
    "closedReason" TEXT,
    "note" TEXT,
    "snoozedUntil" DATETIME,
    CONSTRAINT "ShipmentProblem_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ShipmentProblem_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- AlterTable (added in place: redefining "Shop" would drop its triggers)
ALTER TABLE "Shop" ADD COLUMN "timezone" TEXT NOT NULL DEFAULT 'UTC';
ALTER TABLE "Shop" ADD COLUMN "problemRules" TEXT;

-- CreateIndex
CREATE INDEX "ShipmentProblem_shopId_closedAt_since_id_idx" ON "ShipmentProblem"("shopId", "closedAt", "since", "id");

-- CreateIndex
CREATE INDEX "ShipmentProblem_shopId_closedAt_kind_since_id_idx" ON "ShipmentProblem"("shopId", "closedAt", "kind", "since", "id");

-- CreateIndex
CREATE INDEX "ShipmentProblem_shopId_openedAt_idx" ON "ShipmentProblem"("shopId", "openedAt");

-- CreateIndex
CREATE UNIQUE INDEX "ShipmentProblem_trackerId_kind_since_key" ON "ShipmentProblem"("trackerId", "kind", "since");

-- CreateIndex
CREATE INDEX "Tracker_problemCheckAt_idx" ON "Tracker"("problemCheckAt");

-- Every wanted shipment still moving is evaluated once by the problem sweep.
UPDATE "Tracker" SET "problemCheckAt" = strftime('%Y-%m-%dT%H:%M:%f', 'now') || '+00:00'
WHERE "desired" = 'active' AND "remote" <> 'absent'
  AND ("status" IS NULL OR "status" NOT IN ('delivered', 'returned', 'return_to_sender', 'expired', 'cancelled', 'canceled', 'label_cancelled', 'deleted', 'invalid_tracking', 'invalid_carrier', 'carrier_unsupported'));
