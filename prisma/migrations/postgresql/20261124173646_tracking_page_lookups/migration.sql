-- AlterTable
ALTER TABLE "Shop" ADD COLUMN     "trackingPageLookups" INTEGER NOT NULL DEFAULT 0;
