import type { AppContext } from '../../context/app-context.js';
import { type ShopSettings, viewOf } from '../../shops/shop-repository.js';
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
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
  body: BehaviourInput,
): Promise<{ settings: ShopSettings }> {
  const shop = await currentShop(ctx.shops, domain);
  const changes: Partial<ShopSettings> = {};
  for (const key of settingKeys) {
    if (body[key] !== undefined) Object.assign(changes, { [key]: body[key] });
  }
  const updated =
    Object.keys(changes).length > 0 ? await changeShopSettings(ctx.prisma, shop.id, changes) : shop;
  return { settings: viewOf(updated).settings };
}
