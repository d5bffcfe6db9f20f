import type { TopicHandler } from './types.js';
import { deleteShopSessions } from '../../shops/session-repository.js';
import { markShopUninstalled } from '../../shops/shop-repository.js';

/**
 * app/uninstalled: the shop's work is held (its trackers stay at the service, which is the merchant's own
 * account) and its sessions go (the access tokens no longer work, and a reinstall must not find one and
 * skip the install); the rest of its data goes when the platform sends shop/redact, 48 hours later.
 */
export const handleAppUninstalled: TopicHandler<'app/uninstalled'> = async (ctx) => {
  const sessions = await deleteShopSessions(ctx.tx, ctx.shopDomain);
  const count = await markShopUninstalled(ctx.tx, ctx.shopDomain);
  if (count === 0)
    return { kind: 'ignored', detail: sessions > 0 ? 'unknown shop; its sessions deleted' : 'unknown shop' };
  return { kind: 'applied', detail: 'shop marked uninstalled, sessions deleted' };
};
