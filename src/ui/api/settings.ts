import { type ShopRepository, type ShopSettings, viewOf } from '../../shops/shop-repository.js';
import type { DatabaseClient } from '../../db/client.js';
import type { BehaviourInput } from '../../settings/behaviour.js';
import { changeShopSettings } from '../../shipments/shop-settings.js';
import { currentShop } from './current-shop.js';

/** The body of `PUT /api/settings` is parsed with `behaviourSchema` (src/settings/behaviour.ts). */
const settingKeys = [
  'createOnFulfillment',
  'deleteOnCancel',
  'orderIdSource',
  'postFulfillmentEvents',
  'showOrderDelivered',
  'linkToTrackingPage',
  'pushSafetyPollHours',
] as const satisfies ReadonlyArray<keyof ShopSettings & keyof BehaviourInput>;

/** Changes any of the shop's settings; the others stay as they are. */
export async function updateShopSettings(
  deps: { prisma: DatabaseClient; shops: ShopRepository },
  domain: string,
  body: BehaviourInput,
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
