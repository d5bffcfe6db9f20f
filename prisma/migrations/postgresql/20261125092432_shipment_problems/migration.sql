-- AlterTable
ALTER TABLE "Shop" ADD COLUMN     "problemRules" TEXT,
ADD COLUMN     "timezone" TEXT NOT NULL DEFAULT 'UTC';

-- AlterTable
ALTER TABLE "Tracker" ADD COLUMN     "problemCheckAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "ShipmentProblem" (
    "id" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "trackerId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "since" TIMESTAMP(3) NOT NULL,
    "detail" TEXT,
    "openedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "closedAt" TIMESTAMP(3),
    "closedReason" TEXT,
    "note" TEXT,
    "snoozedUntil" TIMESTAMP(3),

    CONSTRAINT "ShipmentProblem_pkey" PRIMARY KEY ("id")
);

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

-- AddForeignKey
ALTER TABLE "ShipmentProblem" ADD CONSTRAINT "ShipmentProblem_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ShipmentProblem" ADD CONSTRAINT "ShipmentProblem_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every wanted shipment still moving is evaluated once by the problem sweep.
UPDATE "Tracker" SET "problemCheckAt" = CURRENT_TIMESTAMP
WHERE "desired" = 'active' AND "remote" <> 'absent'
  AND ("status" IS NULL OR "status" NOT IN ('delivered', 'returned', 'return_to_sender', 'expired', 'cancelled', 'canceled', 'label_cancelled', 'deleted', 'invalid_tracking', 'invalid_carrier', 'carrier_unsupported'));
