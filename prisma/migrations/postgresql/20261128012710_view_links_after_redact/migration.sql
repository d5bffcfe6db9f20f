-- AlterTable
ALTER TABLE "Shop" ADD COLUMN     "viewLinksValidFrom" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "TrackingLine" ADD COLUMN     "redactedAt" TIMESTAMP(3);
