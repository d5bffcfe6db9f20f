import type { TopicHandler } from './types.js';

/**
 * app/uninstalled: the shop's work is held (its trackers stay at the service, which is the merchant's own
 * account); the data goes when the platform sends shop/redact, 48 hours later.
 */
export const handleAppUninstalled: TopicHandler = async (ctx) => {
  const { count } = await ctx.tx.shop.updateMany({
    where: { domain: ctx.shopDomain },
    data: {
      uninstalledAt: new Date(),
      pausedReason: 'uninstalled',
      pausedAt: new Date(),
      pausedMessage: 'The app was uninstalled from this store.',
      probeAt: null,
    },
  });
  return count === 0
    ? { kind: 'ignored', detail: 'unknown shop' }
    : { kind: 'applied', detail: 'shop marked uninstalled' };
};
