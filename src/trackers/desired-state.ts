import { type CarrierMatcher, normaliseCarrierName } from '../carriers/match.js';
import type { Tx } from '../db/client.js';
import type { Shop, TrackingLine } from '../generated/sqlite/client.js';
import type { FulfillmentPayload, OrderCancelledPayload } from '../webhooks/payloads.js';

/**
 * Desired state. Store events change tracking lines (one per shop, fulfilment and tracking number); each
 * line points at the tracker it wants (one per shop, number and provider); a tracker is wanted while at
 * least one active line points at it. Nothing here calls the tracking service: the reconciler does, for
 * every tracker whose desired and known remote states differ.
 *
 * Every function runs inside the caller's transaction and is idempotent: applying the same event twice,
 * or an older event after a newer one, changes nothing.
 */

export interface MatchContext {
  matcher: CarrierMatcher;
  /** The shop's overrides, keyed by normalised carrier name. */
  overrides: ReadonlyMap<string, string>;
}

export type ApplyOutcome =
  | { kind: 'applied'; trackersTouched: number; linesWaitingForCarrier: number }
  | { kind: 'stale'; why: string };

const cancelledStatuses = new Set(['cancelled', 'canceled', 'error', 'failure']);

export function isCancelledStatus(status: string): boolean {
  return cancelledStatuses.has(status.toLowerCase());
}

/** The order id the service gets: the store's id, or the order name without '#' when the shop says so. */
export function orderKeyFor(
  shop: Pick<Shop, 'orderIdSource'>,
  orderId: string,
  orderName: string | null,
): string {
  if (shop.orderIdSource === 'name' && orderName) {
    const name = orderName.replace(/^#/, '').trim();
    if (name !== '') return name;
  }
  return orderId;
}

export async function applyFulfillment(
  tx: Tx,
  shop: Shop,
  fulfillment: FulfillmentPayload,
  match: MatchContext,
): Promise<ApplyOutcome> {
  await lockShop(tx, shop.id);
  const key = { shopId_fulfillmentId: { shopId: shop.id, fulfillmentId: fulfillment.fulfillmentId } };
  const existing = await tx.fulfillment.findUnique({ where: key });
  const cancelled = isCancelledStatus(fulfillment.status);
  const updatedAt = fulfillment.updatedAt ?? existing?.sourceUpdatedAt ?? new Date(0);

  if (existing) {
    // A cancellation is final; otherwise the newest `updated_at` wins.
    if (isCancelledStatus(existing.status) && !cancelled) {
      return { kind: 'stale', why: 'the fulfilment is already cancelled' };
    }
    if (!cancelled && updatedAt < existing.sourceUpdatedAt) {
      return { kind: 'stale', why: 'an update newer than this one was already applied' };
    }
  }

  const newest = existing && existing.sourceUpdatedAt > updatedAt ? existing.sourceUpdatedAt : updatedAt;
  await tx.fulfillment.upsert({
    where: key,
    update: {
      status: fulfillment.status,
      carrierName: fulfillment.carrierName,
      orderName: fulfillment.orderName,
      sourceUpdatedAt: newest,
    },
    create: {
      shopId: shop.id,
      fulfillmentId: fulfillment.fulfillmentId,
      orderId: fulfillment.orderId,
      orderName: fulfillment.orderName,
      status: fulfillment.status,
      carrierName: fulfillment.carrierName,
      sourceUpdatedAt: newest,
    },
  });

  const lines = await tx.trackingLine.findMany({
    where: { shopId: shop.id, fulfillmentId: fulfillment.fulfillmentId },
  });
  const orderCancelled =
    (await tx.cancelledOrder.findUnique({
      where: { shopId_orderId: { shopId: shop.id, orderId: fulfillment.orderId } },
    })) !== null;

  const touched = new Set<string>();
  // An order cancelled while the shop keeps trackers on cancel holds nothing back: its fulfilments apply as
  // usual, so the outcome does not depend on whether the cancel arrived first.
  if (cancelled || (orderCancelled && shop.deleteOnCancel)) {
    if (shop.deleteOnCancel) await deactivate(tx, lines, touched);
    await recompute(tx, touched);
    return { kind: 'applied', trackersTouched: touched.size, linesWaitingForCarrier: 0 };
  }

  const wanted = new Set(fulfillment.trackingNumbers);
  await deactivate(
    tx,
    lines.filter((l) => !wanted.has(l.trackingNumber)),
    touched,
  );
  let waiting = 0;
  const carrierKey = fulfillment.carrierName ? normaliseCarrierName(fulfillment.carrierName) || null : null;
  for (const trackingNumber of fulfillment.trackingNumbers) {
    const previous = lines.find((l) => l.trackingNumber === trackingNumber);
    const details = {
      orderId: fulfillment.orderId,
      orderName: fulfillment.orderName,
      carrierName: fulfillment.carrierName,
      carrierKey,
      postalCode: fulfillment.postalCode,
      destinationCountry: fulfillment.destinationCountry,
    };
    // A number listed again after it was dropped is wanted again (unless the shop creates no trackers).
    const line = previous
      ? await tx.trackingLine.update({
          where: { id: previous.id },
          data: { ...details, active: previous.active || shop.createOnFulfillment },
        })
      : await tx.trackingLine.create({
          data: {
            shopId: shop.id,
            fulfillmentId: fulfillment.fulfillmentId,
            trackingNumber,
            active: shop.createOnFulfillment,
            ...details,
          },
        });
    if (previous?.trackerId) touched.add(previous.trackerId);
    const trackerId = await resolveLine(tx, shop, line, match);
    if (trackerId) touched.add(trackerId);
    else if (line.active) waiting++;
  }
  await recompute(tx, touched);
  return { kind: 'applied', trackersTouched: touched.size, linesWaitingForCarrier: waiting };
}

export async function applyOrderCancelled(
  tx: Tx,
  shop: Shop,
  order: OrderCancelledPayload,
): Promise<ApplyOutcome> {
  await lockShop(tx, shop.id);
  await tx.cancelledOrder.upsert({
    where: { shopId_orderId: { shopId: shop.id, orderId: order.orderId } },
    update: {},
    create: { shopId: shop.id, orderId: order.orderId, cancelledAt: order.cancelledAt ?? new Date() },
  });
  if (!shop.deleteOnCancel) return { kind: 'applied', trackersTouched: 0, linesWaitingForCarrier: 0 };
  const lines = await tx.trackingLine.findMany({
    where: { shopId: shop.id, orderId: order.orderId, active: true },
  });
  const touched = new Set<string>();
  await deactivate(tx, lines, touched);
  await recompute(tx, touched);
  return { kind: 'applied', trackersTouched: touched.size, linesWaitingForCarrier: 0 };
}

/**
 * Points every active line of the shop with this carrier name (or, without a name, every line still
 * waiting for a carrier) at the tracker its current mapping gives. Used after a mapping is saved and after
 * the carrier list is refreshed. Returns how many trackers changed.
 */
export async function remapLines(
  tx: Tx,
  shop: Shop,
  match: MatchContext,
  carrierName?: string,
): Promise<{ trackersTouched: number; linesRemapped: number; stillWaiting: number }> {
  await lockShop(tx, shop.id);
  const where = carrierName
    ? { shopId: shop.id, active: true, carrierKey: normaliseCarrierName(carrierName) }
    : { shopId: shop.id, active: true, trackerId: null };
  const lines = await tx.trackingLine.findMany({ where });
  const touched = new Set<string>();
  let stillWaiting = 0;
  for (const line of lines) {
    if (line.trackerId) touched.add(line.trackerId);
    const trackerId = await resolveLine(tx, shop, line, match);
    if (trackerId) touched.add(trackerId);
    else stillWaiting++;
  }
  await recompute(tx, touched);
  return { trackersTouched: touched.size, linesRemapped: lines.length, stillWaiting };
}

/**
 * One shop's store events are applied one at a time: each use case first writes the shop's row, so a
 * concurrent one (another worker, on PostgreSQL) waits until this transaction ends and then reads what it
 * wrote. Without it two workers could each read the state from before the other's change, and an older
 * update (or a fulfilment racing its order's cancellation) could win.
 */
async function lockShop(tx: Tx, shopId: string): Promise<void> {
  await tx.shop.update({ where: { id: shopId }, data: { updatedAt: new Date() }, select: { id: true } });
}

async function deactivate(tx: Tx, lines: TrackingLine[], touched: Set<string>): Promise<void> {
  const active = lines.filter((l) => l.active);
  if (active.length === 0) return;
  await tx.trackingLine.updateMany({
    where: { id: { in: active.map((l) => l.id) } },
    data: { active: false },
  });
  for (const l of active) if (l.trackerId) touched.add(l.trackerId);
}

/** Sets the line's tracker from its carrier; makes the tracker row when it is the first to want it. */
async function resolveLine(
  tx: Tx,
  shop: Shop,
  line: TrackingLine,
  match: MatchContext,
): Promise<string | null> {
  const { slug } = match.matcher.match(line.carrierName, match.overrides);
  let trackerId: string | null = null;
  if (slug) {
    const tracker = await tx.tracker.upsert({
      where: {
        shopId_trackingNumber_provider: {
          shopId: shop.id,
          trackingNumber: line.trackingNumber,
          provider: slug,
        },
      },
      update: {},
      create: {
        shopId: shop.id,
        trackingNumber: line.trackingNumber,
        provider: slug,
        orderKey: orderKeyFor(shop, line.orderId, line.orderName),
        postalCode: line.postalCode,
        destinationCountry: line.destinationCountry,
        // Born removed and in sync; recompute() turns it active (and pending) when a line wants it.
        desired: 'removed',
        remote: 'absent',
        syncState: 'synced',
      },
      select: { id: true },
    });
    trackerId = tracker.id;
  }
  if (trackerId !== line.trackerId) {
    await tx.trackingLine.update({ where: { id: line.id }, data: { trackerId } });
  }
  return trackerId;
}

export function inSync(desired: string, remote: string): boolean {
  return (desired === 'active' && remote === 'present') || (desired === 'removed' && remote === 'absent');
}

/**
 * Re-derives each tracker's desired state from its lines. A tracker whose desired state or details
 * changed goes (back) to pending, due now, with a fresh attempt count; one that did not is left alone, so
 * a failed tracker stays failed until something about it changes.
 */
export async function recompute(tx: Tx, trackerIds: Iterable<string>): Promise<void> {
  for (const id of trackerIds) {
    // Optimistic: a worker may record an outcome on this row meanwhile; re-read and retry if it did.
    for (let attempt = 0; attempt < 10; attempt++) {
      if (await recomputeOne(tx, id)) break;
    }
  }
}

/** True when done (written or nothing to write); false when the row changed under us. */
async function recomputeOne(tx: Tx, id: string): Promise<boolean> {
  const tracker = await tx.tracker.findUnique({ where: { id } });
  if (!tracker) return true;
  const line = await tx.trackingLine.findFirst({
    where: { trackerId: id, active: true },
    orderBy: { updatedAt: 'desc' },
  });
  const desired = line ? 'active' : 'removed';
  const details =
    line && tracker.remote !== 'present'
      ? { postalCode: line.postalCode, destinationCountry: line.destinationCountry }
      : { postalCode: tracker.postalCode, destinationCountry: tracker.destinationCountry };
  const changed =
    desired !== tracker.desired ||
    details.postalCode !== tracker.postalCode ||
    details.destinationCountry !== tracker.destinationCountry;
  if (!changed) return true;
  const synced = inSync(desired, tracker.remote);
  const { count } = await tx.tracker.updateMany({
    where: { id, version: tracker.version },
    data: {
      desired,
      ...details,
      syncState: synced ? 'synced' : 'pending',
      attempts: 0,
      nextAttemptAt: new Date(),
      version: { increment: 1 },
      ...(synced ? {} : { lastError: null, lastErrorReason: null, lastErrorAt: null }),
    },
  });
  return count === 1;
}
