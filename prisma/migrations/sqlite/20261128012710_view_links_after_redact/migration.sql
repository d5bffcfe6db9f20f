-- AlterTable
ALTER TABLE "Shop" ADD COLUMN "viewLinksValidFrom" DATETIME;

-- AlterTable
ALTER TABLE "TrackingLine" ADD COLUMN "redactedAt" DATETIME;
