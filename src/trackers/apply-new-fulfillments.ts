/**
 * The busy-day path: a batch's first-seen, independent fulfilments of one shop applied set-wise (multi-row
 * inserts), with the same meaning as applyFulfillment one at a time (the reference; an equivalence property
 * test holds the two together). Used by src/webhooks/apply-in-bulk.ts.
 */
import type { Tx } from '../db/client.js';
import { queueLinksForNewFulfillments } from '../shipments/tracking-links.js';
import { insertRows } from '../db/insert-rows.js';
import type { Shop } from '../generated/sqlite/client.js';
import type { FulfillmentPayload } from './fulfillment-payload.js';
import {
  type ApplyOutcome,
  fulfillmentColumns,
  isCancelledStatus,
  type MatchContext,
  newLineRow,
  newTrackerRow,
} from './desired-state.js';
import { lockShop } from '../shops/shop-repository.js';
import { cancelledOrderIds, knownFulfillmentIds, trackerKeysOfNumbers } from './queries/fulfillments.js';
import { newRowId } from '../lib/row-id.js';

/**
 * The busy-day path: many first-seen fulfilments of one shop applied with a handful of set-based
 * statements instead of a dozen statements each. Only fulfilments whose outcome cannot depend on anything
 * else are taken: never recorded before, not cancelled, their order not cancelled, each fulfilment and each
 * tracker key once in the batch, and no tracker row for any of their numbers yet. For those,
 * {@link applyFulfillment} would create the fulfilment, one line per number and a fresh tracker per
 * number, exactly as here. Everything else is left for applyFulfillment, one at a time.
 *
 * Runs in the caller's transaction; returns the indexes (into `fulfillments`) it applied, with their
 * outcomes.
 */
export async function applyNewFulfillments(
  tx: Tx,
  shop: Shop,
  fulfillments: readonly FulfillmentPayload[],
  match: MatchContext,
): Promise<Map<number, ApplyOutcome>> {
  const applied = new Map<number, ApplyOutcome>();
  if (fulfillments.length === 0) return applied;
  const locked = await lockShop(tx, shop.id);

  const seenFulfillments = new Map<string, number>();
  for (const f of fulfillments)
    seenFulfillments.set(f.fulfillmentId, (seenFulfillments.get(f.fulfillmentId) ?? 0) + 1);
  const known = await knownFulfillmentIds(tx, shop.id, [...seenFulfillments.keys()]);
  const cancelledOrders = await cancelledOrderIds(tx, shop.id, [
    ...new Set(fulfillments.map((f) => f.orderId)),
  ]);
  const knownIds = new Set(known.map((k) => k.fulfillmentId));
  const cancelledIds = new Set(cancelledOrders.map((c) => c.orderId));

  type Planned = { index: number; numbers: { trackingNumber: string; slug: string | null }[] };
  const candidates: Planned[] = [];
  fulfillments.forEach((f, index) => {
    if (seenFulfillments.get(f.fulfillmentId) !== 1 || knownIds.has(f.fulfillmentId)) return;
    if (isCancelledStatus(f.status) || cancelledIds.has(f.orderId)) return;
    if (new Set(f.trackingNumbers).size !== f.trackingNumbers.length) return;
    const { slug } = match.matcher.match(f.carrierName, match.overrides);
    candidates.push({
      index,
      numbers: f.trackingNumbers.map((trackingNumber) => ({ trackingNumber, slug })),
    });
  });

  // A tracker key wanted twice in the batch, or already held by a row, goes the careful way.
  const keyOf = (n: { trackingNumber: string; slug: string | null }) => `${n.slug}\u0000${n.trackingNumber}`;
  const keyCount = new Map<string, number>();
  for (const c of candidates)
    for (const n of c.numbers) if (n.slug) keyCount.set(keyOf(n), (keyCount.get(keyOf(n)) ?? 0) + 1);
  const numbers = [...new Set(candidates.flatMap((c) => c.numbers.map((n) => n.trackingNumber)))];
  const existingTrackers = numbers.length === 0 ? [] : await trackerKeysOfNumbers(tx, shop.id, numbers);
  const taken = new Set(
    existingTrackers.map((t) => keyOf({ trackingNumber: t.trackingNumber, slug: t.provider })),
  );
  const planned = candidates.filter((c) =>
    c.numbers.every((n) => !n.slug || (keyCount.get(keyOf(n)) === 1 && !taken.has(keyOf(n)))),
  );
  if (planned.length === 0) return applied;

  const active = shop.createOnFulfillment;
  const now = new Date();
  const stamps = { createdAt: now, updatedAt: now };
  const fulfillmentRows = [];
  const trackerRows = [];
  const lineRows = [];
  for (const p of planned) {
    const f = fulfillments[p.index]!;
    // What the fulfilment's row and each of its lines say alike.
    fulfillmentRows.push({
      id: newRowId(),
      ...stamps,
      shopId: shop.id,
      fulfillmentId: f.fulfillmentId,
      orderId: f.orderId,
      customerEmailHash: null,
      ...fulfillmentColumns(shop.id, f, f.updatedAt ?? new Date(0)),
    });
    let made = 0;
    let waiting = 0;
    for (const n of p.numbers) {
      let trackerId: string | null = null;
      if (n.slug) {
        const row = newTrackerRow(shop, { ...f, trackingNumber: n.trackingNumber }, n.slug, active, now);
        trackerId = row.id;
        made++;
        trackerRows.push(row);
      } else if (active) {
        waiting++;
      }
      lineRows.push(newLineRow(shop, f, n.trackingNumber, { active, trackerId, now }));
    }
    applied.set(p.index, { kind: 'applied', trackersTouched: made, linesWaitingForCarrier: waiting });
  }
  await insertRows(tx, 'Fulfillment', fulfillmentRows);
  await insertRows(tx, 'Tracker', trackerRows);
  await insertRows(tx, 'TrackingLine', lineRows);
  await queueLinksForNewFulfillments(
    tx,
    { ...shop, ...locked },
    candidates.filter((p) => applied.has(p.index)).map((p) => fulfillments[p.index]!),
  );
  return applied;
}
