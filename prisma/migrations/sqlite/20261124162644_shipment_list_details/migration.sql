-- AlterTable
ALTER TABLE "TrackingLine" ADD COLUMN "endedReason" TEXT;
ALTER TABLE "TrackingLine" ADD COLUMN "fulfillmentName" TEXT;
ALTER TABLE "TrackingLine" ADD COLUMN "trackingUrl" TEXT;
