-- AlterTable
ALTER TABLE "Tracker" ADD COLUMN     "deliveryNumber" TEXT,
ADD COLUMN     "deliveryProvider" TEXT;

-- CreateTable
CREATE TABLE "TrackingPageSettings" (
    "shopId" TEXT NOT NULL,
    "settings" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "TrackingPageSettings_pkey" PRIMARY KEY ("shopId")
);

-- AddForeignKey
ALTER TABLE "TrackingPageSettings" ADD CONSTRAINT "TrackingPageSettings_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;
