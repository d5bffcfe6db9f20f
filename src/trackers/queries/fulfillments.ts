import type { Tx } from '../../db/client.js';

/** The desired state's reads of a shop's fulfilments, cancelled orders and trackers, in its transaction. */

/** Of these store fulfilment ids, those the shop already holds. */
export function knownFulfillmentIds(
  tx: Tx,
  shopId: string,
  fulfillmentIds: string[],
): Promise<Array<{ fulfillmentId: string }>> {
  return tx.fulfillment.findMany({
    where: { shopId, fulfillmentId: { in: fulfillmentIds } },
    select: { fulfillmentId: true },
  });
}

/** Of these orders, those cancelled in the store. */
export function cancelledOrderIds(
  tx: Tx,
  shopId: string,
  orderIds: string[],
): Promise<Array<{ orderId: string }>> {
  return tx.cancelledOrder.findMany({
    where: { shopId, orderId: { in: orderIds } },
    select: { orderId: true },
  });
}

/** The shop's trackers of these numbers: their number and provider. */
export function trackerKeysOfNumbers(
  tx: Tx,
  shopId: string,
  numbers: string[],
): Promise<Array<{ trackingNumber: string; provider: string }>> {
  return tx.tracker.findMany({
    where: { shopId, trackingNumber: { in: numbers } },
    select: { trackingNumber: true, provider: true },
  });
}
