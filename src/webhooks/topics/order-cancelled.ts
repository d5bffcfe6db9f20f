import { ensureShop } from '../../shops/shop-repository.js';
import { applyOrderCancelled } from '../../trackers/desired-state.js';
import type { TopicHandler } from './types.js';

/** orders/cancelled: every tracker of the order goes, and fulfilments of it that arrive later make none. */
export const handleOrderCancelled: TopicHandler<'orders/cancelled'> = async (ctx, order) => {
  const shop = await ensureShop(ctx.tx, ctx.shopDomain);
  const outcome = await applyOrderCancelled(ctx.tx, shop, order);
  return {
    kind: 'applied',
    detail: `order cancelled; ${outcome.kind === 'applied' ? outcome.trackersTouched : 0} tracker(s) changed`,
  };
};
