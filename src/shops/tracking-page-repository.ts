import type { DatabaseClient } from '../db/client.js';

/** The shoppers' tracking page's settings rows (src/shops/tracking-page-settings.ts validates them). */

/** The shop's stored settings document, or null when none is saved. */
export async function storedTrackingPageSettings(
  prisma: DatabaseClient,
  shopId: string,
): Promise<string | null> {
  const row = await prisma.trackingPageSettings.findUnique({ where: { shopId }, select: { settings: true } });
  return row?.settings ?? null;
}

/** Saves the shop's settings document (made or replaced). */
export async function storeTrackingPageSettings(
  prisma: DatabaseClient,
  shopId: string,
  document: string,
): Promise<void> {
  await prisma.trackingPageSettings.upsert({
    where: { shopId },
    create: { shopId, settings: document },
    update: { settings: document },
    select: { shopId: true },
  });
}
