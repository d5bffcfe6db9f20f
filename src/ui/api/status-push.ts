import type { DatabaseClient } from '../../db/client.js';
import type { ShopRepository } from '../../shops/shop-repository.js';
import { pushesArriving } from '../../shipments/status.js';
import { ensurePushToken, rotatePushToken, statusPushUrl } from '../../status-pushes/token.js';
import { currentShop } from './current-shop.js';

/** The shop's status push URL, to register at the tracking service, and whether pushes arrive. */
export interface StatusPushView {
  /** The full URL to register at the service (shop:list --json names it the same). */
  statusPushUrl: string;
  lastPushAt: Date | null;
  /** Pushes arrive: polling is only the safety net. */
  arriving: boolean;
  safetyPollHours: number;
}

type Deps = { prisma: DatabaseClient; shops: ShopRepository; appUrl: string };

export async function getStatusPush(deps: Deps, domain: string): Promise<StatusPushView> {
  const shop = await currentShop(deps.shops, domain);
  const token = await ensurePushToken(deps.prisma, shop.id);
  return viewOf(deps, shop, token);
}

/** A new URL; the old one is refused from now on (register the new one at the service). */
export async function rotateStatusPush(deps: Deps, domain: string): Promise<StatusPushView> {
  const shop = await currentShop(deps.shops, domain);
  const token = await rotatePushToken(deps.prisma, shop.id);
  return viewOf(deps, shop, token);
}

function viewOf(
  deps: Deps,
  shop: { lastStatusPushAt: Date | null; pushSafetyPollHours: number },
  token: string,
): StatusPushView {
  return {
    statusPushUrl: statusPushUrl(deps.appUrl, token),
    lastPushAt: shop.lastStatusPushAt,
    arriving: pushesArriving(shop, new Date()),
    safetyPollHours: shop.pushSafetyPollHours,
  };
}
