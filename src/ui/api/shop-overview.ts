import type { AppContext } from '../../context/app-context.js';
import { type Shop, type ShopSettings, viewOf } from '../../shops/shop-repository.js';
import { currentShop } from './current-shop.js';

/** Below this many trackers left, the page warns that the balance is running out. */
export const lowBalanceThreshold = 20;

export interface ShopOverview {
  domain: string;
  connection: {
    appName: string | null;
    hasApiKey: boolean;
    trackersBalance: number | null;
    userPlan: string | null;
    lowBalance: boolean;
    paused: { reason: string; message: string | null; since: Date } | null;
  };
  settings: ShopSettings;
}

/** What the page shows about the shop: never the API key, only whether one is stored. */
export function overviewOf(shop: Shop): ShopOverview {
  const view = viewOf(shop);
  return {
    domain: view.domain,
    connection: {
      appName: view.appName,
      hasApiKey: view.hasApiKey,
      trackersBalance: view.trackersBalance,
      userPlan: view.userPlan,
      lowBalance: view.trackersBalance !== null && view.trackersBalance < lowBalanceThreshold,
      paused: view.paused,
    },
    settings: view.settings,
  };
}

export async function getShopOverview(ctx: Pick<AppContext, 'shops'>, domain: string): Promise<ShopOverview> {
  return overviewOf(await currentShop(ctx.shops, domain));
}
