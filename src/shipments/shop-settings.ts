import type { DatabaseClient } from '../db/client.js';
import type { Shop } from '../generated/sqlite/client.js';
import { inTransaction } from '../db/transaction.js';
import { lockShop, updateShopSettings } from '../shops/shop-repository.js';
import type { ShopSettings } from '../shops/shop-repository.js';
import { queueLinksForSetting } from './tracking-links.js';

/**
 * Changes a shop's settings. Turning the tracking-page links on or off queues the fulfilments whose links
 * change, in the same transaction and under the shop's lock, so a fulfilment arriving meanwhile is either
 * seen here or sees the new setting itself.
 */
export async function changeShopSettings(
  prisma: DatabaseClient,
  shopId: string,
  settings: Partial<ShopSettings>,
): Promise<Shop> {
  if (settings.linkToTrackingPage === undefined) return updateShopSettings(prisma, shopId, settings);
  const on = settings.linkToTrackingPage;
  return inTransaction(prisma, async (tx) => {
    const before = await lockShop(tx, shopId);
    const updated = await updateShopSettings(tx, shopId, settings);
    if (before.linkToTrackingPage !== on) await queueLinksForSetting(tx, shopId, on);
    return updated;
  });
}
