-- AlterTable
ALTER TABLE "TrackingLine" ADD COLUMN     "endedReason" TEXT,
ADD COLUMN     "fulfillmentName" TEXT,
ADD COLUMN     "trackingUrl" TEXT;
