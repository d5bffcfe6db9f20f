import { ensureShop } from '../../shops/shop-repository.js';
import { applyOrderCancelled } from '../../trackers/desired-state.js';
import { orderCancelledPayload } from '../payloads.js';
import { describeIssues, type TopicHandler } from './types.js';

/** orders/cancelled: every tracker of the order goes, and fulfilments of it that arrive later make none. */
export const handleOrderCancelled: TopicHandler = async (ctx, payload) => {
  const parsed = orderCancelledPayload.safeParse(payload);
  if (!parsed.success) return { kind: 'rejected', detail: `order payload: ${describeIssues(parsed.error)}` };
  const shop = await ensureShop(ctx.tx, ctx.shopDomain);
  const outcome = await applyOrderCancelled(ctx.tx, shop, parsed.data);
  return {
    kind: 'applied',
    detail: `order cancelled; ${outcome.kind === 'applied' ? outcome.trackersTouched : 0} tracker(s) changed`,
  };
};
