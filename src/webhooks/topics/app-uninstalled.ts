import type { TopicHandler } from './types.js';
import { pausedColumns } from '../../shops/pause-reasons.js';

/**
 * app/uninstalled: the shop's work is held (its trackers stay at the service, which is the merchant's own
 * account) and its sessions go (the access tokens no longer work, and a reinstall must not find one and
 * skip the install); the rest of its data goes when the platform sends shop/redact, 48 hours later.
 */
export const handleAppUninstalled: TopicHandler<'app/uninstalled'> = async (ctx) => {
  const { count: sessions } = await ctx.tx.session.deleteMany({ where: { shop: ctx.shopDomain } });
  const { count } = await ctx.tx.shop.updateMany({
    where: { domain: ctx.shopDomain },
    data: {
      uninstalledAt: new Date(),
      ...pausedColumns('uninstalled'),
    },
  });
  if (count === 0)
    return { kind: 'ignored', detail: sessions > 0 ? 'unknown shop; its sessions deleted' : 'unknown shop' };
  return { kind: 'applied', detail: 'shop marked uninstalled, sessions deleted' };
};
