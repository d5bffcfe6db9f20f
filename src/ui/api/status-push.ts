import type { AppContext } from '../../context/app-context.js';
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

export async function getStatusPush(
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
  appUrl: string,
): Promise<StatusPushView> {
  const shop = await currentShop(ctx.shops, domain);
  const token = await ensurePushToken(ctx.prisma, shop.id);
  return viewOf(appUrl, shop, token);
}

/** A new URL; the old one is refused from now on (register the new one at the service). */
export async function rotateStatusPush(
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
  appUrl: string,
): Promise<StatusPushView> {
  const shop = await currentShop(ctx.shops, domain);
  const token = await rotatePushToken(ctx.prisma, shop.id);
  return viewOf(appUrl, shop, token);
}

function viewOf(
  appUrl: string,
  shop: { lastStatusPushAt: Date | null; pushSafetyPollHours: number },
  token: string,
): StatusPushView {
  return {
    statusPushUrl: statusPushUrl(appUrl, token),
    lastPushAt: shop.lastStatusPushAt,
    arriving: pushesArriving(shop, new Date()),
    safetyPollHours: shop.pushSafetyPollHours,
  };
}
