-- AlterTable
ALTER TABLE "Shop" DROP COLUMN "staleAfterDays";
