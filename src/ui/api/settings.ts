import { z } from 'zod';
import { type ShopRepository, type ShopSettings, viewOf } from '../../shops/shop-repository.js';
import type { DatabaseClient } from '../../db/client.js';
import { changeShopSettings } from '../../shipments/shop-settings.js';
import { currentShop } from './current-shop.js';

const pushSafetyMessage = 'pushSafetyPollHours must be a whole number of hours from 1 to 168';
const onOff = (name: string) => z.boolean({ error: `${name} must be true or false` });

export const settingsBody = z
  .object({
    createOnFulfillment: onOff('createOnFulfillment'),
    deleteOnCancel: onOff('deleteOnCancel'),
    orderIdSource: z.enum(['id', 'name'], { error: 'orderIdSource must be "id" or "name"' }),
    postFulfillmentEvents: onOff('postFulfillmentEvents'),
    showOrderDelivered: onOff('showOrderDelivered'),
    linkToTrackingPage: onOff('linkToTrackingPage'),
    pushSafetyPollHours: z
      .number({ error: pushSafetyMessage })
      .int({ error: pushSafetyMessage, abort: true })
      .min(1, { error: pushSafetyMessage, abort: true })
      .max(168, { error: pushSafetyMessage }),
  })
  .partial()
  .strict();
export type SettingsBody = z.output<typeof settingsBody>;

const settingKeys = [
  'createOnFulfillment',
  'deleteOnCancel',
  'orderIdSource',
  'postFulfillmentEvents',
  'showOrderDelivered',
  'linkToTrackingPage',
  'pushSafetyPollHours',
] as const satisfies ReadonlyArray<keyof ShopSettings & keyof SettingsBody>;

/** Changes any of the shop's settings; the others stay as they are. */
export async function updateShopSettings(
  deps: { prisma: DatabaseClient; shops: ShopRepository },
  domain: string,
  body: SettingsBody,
): Promise<{ settings: ShopSettings }> {
  const shop = await currentShop(deps.shops, domain);
  const changes: Partial<ShopSettings> = {};
  for (const key of settingKeys) {
    if (body[key] !== undefined) Object.assign(changes, { [key]: body[key] });
  }
  const updated =
    Object.keys(changes).length > 0 ? await changeShopSettings(deps.prisma, shop.id, changes) : shop;
  return { settings: viewOf(updated).settings };
}
