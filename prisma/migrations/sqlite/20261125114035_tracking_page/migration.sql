-- AlterTable
ALTER TABLE "Tracker" ADD COLUMN "deliveryNumber" TEXT;
ALTER TABLE "Tracker" ADD COLUMN "deliveryProvider" TEXT;

-- CreateTable
CREATE TABLE "TrackingPageSettings" (
    "shopId" TEXT NOT NULL PRIMARY KEY,
    "settings" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "TrackingPageSettings_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
