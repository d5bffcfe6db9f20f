import { z } from 'zod';
import type { ShopRepository, ShopSettings } from '../../shops/shop-repository.js';
import { currentShop } from './current-shop.js';

export const settingsBody = z
  .object({
    createOnFulfillment: z.boolean(),
    deleteOnCancel: z.boolean(),
    orderIdSource: z.enum(['id', 'name']),
  })
  .partial()
  .strict();
export type SettingsBody = z.output<typeof settingsBody>;

/** Changes any of the shop's settings; the others stay as they are. */
export async function updateShopSettings(
  deps: { shops: ShopRepository },
  domain: string,
  body: SettingsBody,
): Promise<{ settings: ShopSettings }> {
  const shop = await currentShop(deps.shops, domain);
  const changes: Partial<ShopSettings> = {};
  if (body.createOnFulfillment !== undefined) changes.createOnFulfillment = body.createOnFulfillment;
  if (body.deleteOnCancel !== undefined) changes.deleteOnCancel = body.deleteOnCancel;
  if (body.orderIdSource !== undefined) changes.orderIdSource = body.orderIdSource;
  const updated = Object.keys(changes).length > 0 ? await deps.shops.updateSettings(shop.id, changes) : shop;
  return {
    settings: {
      createOnFulfillment: updated.createOnFulfillment,
      deleteOnCancel: updated.deleteOnCancel,
      orderIdSource: updated.orderIdSource === 'name' ? 'name' : 'id',
    },
  };
}
