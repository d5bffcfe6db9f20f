import { carrierOverrides } from '../../carriers/carrier-repository.js';
import { ensureShop } from '../../shops/shop-repository.js';
import { applyFulfillment } from '../../trackers/desired-state.js';
import { describeRefusedNumbers } from '../../trackers/fulfillment-payload.js';
import type { TopicHandler } from './types.js';

/** fulfillments/create and fulfillments/update: the fulfilment's tracking numbers become wanted trackers. */
export const handleFulfillment: TopicHandler<'fulfillments/create' | 'fulfillments/update'> = async (
  ctx,
  fulfillment,
) => {
  const shop = await ensureShop(ctx.tx, ctx.shopDomain);
  const match = { matcher: ctx.matcher, overrides: await carrierOverrides(ctx.tx, shop.id) };
  const outcome = await applyFulfillment(ctx.tx, shop, fulfillment, match);
  if (outcome.kind === 'stale') return { kind: 'ignored', detail: outcome.why };
  // The numbers within the bounds are applied; the delivery is marked failed with what was left out.
  const refused = describeRefusedNumbers(fulfillment.refusedNumbers);
  if (refused)
    return {
      kind: 'rejected',
      detail: `applied ${fulfillment.trackingNumbers.length} tracking number(s); ${refused}`,
    };
  return {
    kind: 'applied',
    detail: `${outcome.trackersTouched} tracker(s) changed, ${outcome.linesWaitingForCarrier} waiting for a carrier mapping`,
  };
};
