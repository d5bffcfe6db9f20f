import { type CarrierMatcher, normaliseCarrierName } from '../carriers/match.js';
import type { Tx } from '../db/client.js';
import { insertRows } from '../db/insert-rows.js';
import { providerOf } from '../db/provider-of.js';
import { lockShop } from '../shops/shop-repository.js';
import { customerEmailHash } from '../lib/email-hash.js';
import { isStoreTrackingUrl, queueLinkForFulfillment } from '../shipments/tracking-links.js';
import type { Prisma, Shop, Tracker, TrackingLine } from '../generated/sqlite/client.js';
import type { FulfillmentPayload, OrderCancelledPayload } from './fulfillment-payload.js';
import { newRowId } from '../lib/row-id.js';
import {
  activeLineDestinations,
  activeLinesOfOrder,
  activeLinesToRemap,
  createFulfillmentRow,
  ensureTracker,
  fulfillmentRow,
  isOrderCancelled,
  linesOfFulfillment,
  lockTrackerRows,
  newestActiveLine,
  pointLineAtTracker,
  recordCancelledOrder,
  setLineTracker,
  setLineTrackingUrl,
  trackerById,
  trackerIdsOfNumbers,
  trackersByIds,
  updateFulfillmentRow,
  updateLines,
  writeTrackerAtVersion,
} from './queries/desired-state.js';

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

/**
 * A fulfilment's own columns as a body gives them, `sourceUpdatedAt` the newest known. An update without the
 * customer's email keeps the one known.
 */
export function fulfillmentColumns(shopId: string, fulfillment: FulfillmentPayload, sourceUpdatedAt: Date) {
  return {
    status: fulfillment.status,
    carrierName: fulfillment.carrierName,
    orderName: fulfillment.orderName,
    ...(fulfillment.customerEmail
      ? { customerEmailHash: customerEmailHash(shopId, fulfillment.customerEmail) }
      : {}),
    sourceUpdatedAt,
  };
}

/** What every line of a fulfilment says alike: written on its new lines, refreshed on those seen again. */
export function lineDetails(fulfillment: FulfillmentPayload) {
  return {
    orderId: fulfillment.orderId,
    orderName: fulfillment.orderName,
    fulfillmentName: fulfillment.fulfillmentName,
    carrierName: fulfillment.carrierName,
    carrierKey: fulfillment.carrierName ? normaliseCarrierName(fulfillment.carrierName) || null : null,
    postalCode: fulfillment.postalCode,
    destinationCountry: fulfillment.destinationCountry,
  };
}

/** The carrier's tracking page of a number as the store gave it; the store's own page (set by this app) is not. */
export function carrierUrlOf(
  shop: { domain: string },
  fulfillment: FulfillmentPayload,
  trackingNumber: string,
): string | null {
  const url = fulfillment.trackingUrls[trackingNumber] ?? null;
  return isStoreTrackingUrl(shop.domain, url) ? null : url;
}

/** A new line of a fulfilment (one path at a time or in bulk), already pointing at its tracker. */
export function newLineRow(
  shop: { id: string; domain: string },
  fulfillment: FulfillmentPayload,
  trackingNumber: string,
  line: { active: boolean; trackerId: string | null; now: Date },
) {
  return {
    id: newRowId(),
    createdAt: line.now,
    updatedAt: line.now,
    shopId: shop.id,
    fulfillmentId: fulfillment.fulfillmentId,
    trackingNumber,
    trackingUrl: carrierUrlOf(shop, fulfillment, trackingNumber),
    active: line.active,
    trackerId: line.trackerId,
    ...lineDetails(fulfillment),
  };
}

/**
 * How far ahead of the app's clock a fulfilment's `updated_at` is taken as sent. The body is the platform's
 * (signed), so a time beyond it is clamped to now rather than refused: the fulfilment's numbers still
 * apply, but the time cannot stand as the newest for ever and turn every later real update away as stale.
 */
export const maxSourceLeadMs = 5 * 60_000;

export async function applyFulfillment(
  tx: Tx,
  shop: Shop,
  fulfillment: FulfillmentPayload,
  match: MatchContext,
): Promise<ApplyOutcome> {
  const locked = await lockShop(tx, shop.id);
  const existing = await fulfillmentRow(tx, shop.id, fulfillment.fulfillmentId);
  const cancelled = isCancelledStatus(fulfillment.status);
  // Times from the body are bounded (maxSourceLeadMs): one far ahead is taken as now, and one stored far
  // ahead (before the bound existed) holds no update back.
  const applyAt = new Date();
  const latest = applyAt.getTime() + maxSourceLeadMs;
  const sent =
    fulfillment.updatedAt && fulfillment.updatedAt.getTime() > latest ? applyAt : fulfillment.updatedAt;
  const stored = existing && existing.sourceUpdatedAt.getTime() <= latest ? existing.sourceUpdatedAt : null;
  const updatedAt = sent ?? stored ?? new Date(0);

  if (existing) {
    // A cancellation is final; otherwise the newest `updated_at` wins.
    if (isCancelledStatus(existing.status) && !cancelled) {
      return { kind: 'stale', why: 'the fulfilment is already cancelled' };
    }
    if (!cancelled && stored && updatedAt < stored) {
      return { kind: 'stale', why: 'an update newer than this one was already applied' };
    }
  }

  const newest = stored && stored > updatedAt ? stored : updatedAt;
  const fields = fulfillmentColumns(shop.id, fulfillment, newest);
  if (existing) {
    await updateFulfillmentRow(tx, existing.id, fields);
  } else {
    await createFulfillmentRow(tx, {
      shopId: shop.id,
      fulfillmentId: fulfillment.fulfillmentId,
      orderId: fulfillment.orderId,
      ...fields,
    });
  }

  // Lines exist only for a fulfilment already recorded.
  const lines = existing ? await linesOfFulfillment(tx, shop.id, fulfillment.fulfillmentId) : [];
  await lockTrackersOf(tx, lines);
  const orderCancelled = await isOrderCancelled(tx, shop.id, fulfillment.orderId);

  const touched = new Set<string>();
  // An order cancelled while the shop keeps trackers on cancel holds nothing back: its fulfilments apply as
  // usual, so the outcome does not depend on whether the cancel arrived first.
  if (cancelled || (orderCancelled && shop.deleteOnCancel)) {
    if (shop.deleteOnCancel)
      await deactivate(tx, lines, touched, orderCancelled ? 'order_cancelled' : 'fulfillment_cancelled');
    await recompute(tx, touched);
    return { kind: 'applied', trackersTouched: touched.size, linesWaitingForCarrier: 0 };
  }

  const wanted = new Set(fulfillment.trackingNumbers);
  await deactivate(
    tx,
    lines.filter((l) => !wanted.has(l.trackingNumber)),
    touched,
    'number_removed',
  );
  // One fulfilment's numbers share its carrier, destination and order: everything below is set-based, a
  // handful of statements whatever the count (bounded by trackingNumberLimits), so the transaction stays
  // short. It does not yield inside: on SQLite the connection is the process's one, and a transaction
  // left open across event-loop turns holds every other query (and, with a second connection, blocks the
  // synchronous driver on the busy timeout).
  const details = lineDetails(fulfillment);
  const byNumber = new Map(lines.map((l) => [l.trackingNumber, l]));
  const fresh = fulfillment.trackingNumbers.filter((n) => !byNumber.has(n));
  const again = fulfillment.trackingNumbers.flatMap((n) => byNumber.get(n) ?? []);
  const { slug } = match.matcher.match(fulfillment.carrierName, match.overrides);
  const active = shop.createOnFulfillment;
  const now = new Date();

  // Trackers: the existing ones for these numbers, and new rows for the rest. A tracker made for a new
  // line already has the state that line gives it (wanted and pending when active); one made for a line
  // seen before is born removed and in sync, and recompute() derives its state from its lines.
  const trackerIds = new Map<string, string>();
  const created = new Set<string>();
  if (slug && fulfillment.trackingNumbers.length > 0) {
    for (const t of await trackerIdsOfNumbers(tx, shop.id, slug, fulfillment.trackingNumbers)) {
      trackerIds.set(t.trackingNumber, t.id);
    }
    const freshNumbers = new Set(fresh);
    const rows = fulfillment.trackingNumbers
      .filter((n) => !trackerIds.has(n))
      .map((trackingNumber) => {
        const id = newRowId();
        trackerIds.set(trackingNumber, id);
        const born = freshNumbers.has(trackingNumber) && active;
        if (freshNumbers.has(trackingNumber)) created.add(id);
        return newTrackerRow(shop, { ...fulfillment, trackingNumber }, slug, born, now, id);
      });
    await insertRows(tx, 'Tracker', rows);
  }
  for (const n of fresh) {
    const id = trackerIds.get(n);
    // A tracker made just now for a new line already has its state; an older one is re-derived.
    if (id && !created.has(id)) touched.add(id);
  }

  // New numbers: their lines, written once, already pointing at their trackers.
  await insertRows(
    tx,
    'TrackingLine',
    fresh.map((trackingNumber) =>
      newLineRow(shop, fulfillment, trackingNumber, {
        active,
        trackerId: trackerIds.get(trackingNumber) ?? null,
        now,
      }),
    ),
  );

  // Numbers seen before: new details, wanted again when listed again (unless the shop creates no
  // trackers), and pointed at the tracker their carrier now gives.
  if (again.length > 0) {
    const revived = again.filter((l) => l.active || active).map((l) => l.id);
    const dormant = again.filter((l) => !(l.active || active)).map((l) => l.id);
    if (revived.length > 0) await updateLines(tx, revived, { ...details, active: true, endedReason: null });
    if (dormant.length > 0) await updateLines(tx, dormant, details);
    // A tracking page the store now gives (or no longer gives): one statement per changed line only. The
    // store's own page, set by this app, is not the carrier's: the carrier's link is kept.
    for (const line of again) {
      if (isStoreTrackingUrl(shop.domain, fulfillment.trackingUrls[line.trackingNumber])) continue;
      const trackingUrl = carrierUrlOf(shop, fulfillment, line.trackingNumber);
      if (line.trackingUrl !== trackingUrl) await setLineTrackingUrl(tx, line.id, trackingUrl);
    }
    for (const line of again) {
      if (line.trackerId) touched.add(line.trackerId);
      const trackerId = trackerIds.get(line.trackingNumber);
      if (trackerId) touched.add(trackerId);
    }
    await pointLinesAtTrackers(tx, again, trackerIds);
  }
  await recompute(tx, touched);
  await queueLinkForFulfillment(tx, { ...shop, ...locked }, fulfillment);
  const waiting = slug ? 0 : fresh.length * (active ? 1 : 0) + again.filter((l) => l.active || active).length;
  return { kind: 'applied', trackersTouched: touched.size + created.size, linesWaitingForCarrier: waiting };
}

export async function applyOrderCancelled(
  tx: Tx,
  shop: Shop,
  order: OrderCancelledPayload,
): Promise<ApplyOutcome> {
  await lockShop(tx, shop.id);
  await recordCancelledOrder(tx, shop.id, order.orderId, order.cancelledAt ?? new Date());
  if (!shop.deleteOnCancel) return { kind: 'applied', trackersTouched: 0, linesWaitingForCarrier: 0 };
  const lines = await activeLinesOfOrder(tx, shop.id, order.orderId);
  await lockTrackersOf(tx, lines);
  const touched = new Set<string>();
  await deactivate(tx, lines, touched, 'order_cancelled');
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
  const lines = await activeLinesToRemap(tx, shop.id, carrierName ? normaliseCarrierName(carrierName) : null);
  await lockTrackersOf(tx, lines);
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
 * Locks the trackers of the lines a use case is about to change, before it changes them (PostgreSQL; SQLite
 * has one writer). A tracker's status or sync change rewrites its lines' class in the same statement (a
 * trigger: src/shipments/rollups.ts), so those writers lock the tracker, then its lines; taking the trackers
 * first here too keeps one order, and two transactions never wait on each other in a cycle (a deadlock).
 */
async function lockTrackersOf(tx: Tx, lines: readonly Pick<TrackingLine, 'trackerId'>[]): Promise<void> {
  const ids = [...new Set(lines.flatMap((l) => (l.trackerId ? [l.trackerId] : [])))].sort();
  if (ids.length === 0 || providerOf(tx) !== 'postgresql') return;
  await lockTrackerRows(tx, ids);
}

/** Why a line stopped being wanted (shown on the page: "Order cancelled — tracker removed"). */
export type LineEndedReason = 'order_cancelled' | 'fulfillment_cancelled' | 'number_removed';

async function deactivate(
  tx: Tx,
  lines: TrackingLine[],
  touched: Set<string>,
  endedReason: LineEndedReason,
): Promise<void> {
  const active = lines.filter((l) => l.active);
  if (active.length === 0) return;
  await updateLines(
    tx,
    active.map((l) => l.id),
    { active: false, endedReason },
  );
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
    trackerId = await ensureTracker(
      tx,
      { shopId: shop.id, trackingNumber: line.trackingNumber, provider: slug },
      // Born removed and in sync; recompute() turns it active (and pending) when a line wants it.
      newTrackerRow(shop, line, slug, false),
    );
  }
  if (trackerId !== line.trackerId) {
    await setLineTracker(tx, line.id, trackerId);
  }
  return trackerId;
}

/**
 * The one way a tracker row is born, on every path (a fulfilment applied one at a time, in bulk, or a
 * line matched later): not at the service yet; wanted (`active`, so pending) or not yet (`removed`, in
 * sync) as its caller knows.
 */
export function newTrackerRow(
  shop: Pick<Shop, 'id' | 'orderIdSource'>,
  source: {
    trackingNumber: string;
    orderId: string;
    orderName: string | null;
    postalCode: string | null;
    destinationCountry: string | null;
  },
  provider: string,
  wanted: boolean,
  now: Date = new Date(),
  id: string = newRowId(),
) {
  return {
    id,
    createdAt: now,
    updatedAt: now,
    nextAttemptAt: now,
    shopId: shop.id,
    trackingNumber: source.trackingNumber,
    provider,
    orderKey: orderKeyFor(shop, source.orderId, source.orderName),
    postalCode: source.postalCode,
    destinationCountry: source.destinationCountry,
    desired: wanted ? 'active' : 'removed',
    remote: 'absent',
    syncState: wanted ? 'pending' : 'synced',
  } satisfies Prisma.TrackerCreateManyInput;
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
  const ids = [...new Set(trackerIds)];
  for (let start = 0; start < ids.length; start += recomputeChunk) {
    const chunk = ids.slice(start, start + recomputeChunk);
    // Set-based first pass: two reads for the whole chunk, a write only for trackers that changed.
    const trackers = await trackersByIds(tx, chunk);
    const newestLine = new Map<string, Pick<TrackingLine, 'postalCode' | 'destinationCountry'>>();
    for (const line of await activeLineDestinations(tx, chunk)) {
      if (line.trackerId && !newestLine.has(line.trackerId)) newestLine.set(line.trackerId, line);
    }
    for (const tracker of trackers) {
      if (await writeDerived(tx, tracker, newestLine.get(tracker.id) ?? null)) continue;
      // Optimistic: a worker recorded an outcome on this row meanwhile; re-read and retry.
      for (let attempt = 0; attempt < 10; attempt++) {
        if (await recomputeOne(tx, tracker.id)) break;
      }
    }
  }
}

const recomputeChunk = 500;

/**
 * Points each line at the tracker its number now has (or none, without a carrier). Only lines whose
 * tracker changes are written: none when a fulfilment is applied again unchanged.
 */
async function pointLinesAtTrackers(
  tx: Tx,
  lines: readonly TrackingLine[],
  trackerIds: ReadonlyMap<string, string>,
): Promise<void> {
  const unmapped = lines.filter((l) => l.trackerId !== null && !trackerIds.has(l.trackingNumber));
  if (unmapped.length > 0) {
    await updateLines(
      tx,
      unmapped.map((l) => l.id),
      { trackerId: null },
    );
  }
  // One write per line whose carrier changed: rare, and bounded by trackingNumberLimits.
  for (const line of lines) {
    const trackerId = trackerIds.get(line.trackingNumber);
    if (trackerId === undefined || trackerId === line.trackerId) continue;
    await pointLineAtTracker(tx, line.id, trackerId);
  }
}

/** True when done (written or nothing to write); false when the row changed under us. */
async function recomputeOne(tx: Tx, id: string): Promise<boolean> {
  const tracker = await trackerById(tx, id);
  if (!tracker) return true;
  const line = await newestActiveLine(tx, id);
  return writeDerived(tx, tracker, line);
}

/** Writes the tracker's state as its newest active line (or none) gives it; false when it changed under us. */
async function writeDerived(
  tx: Tx,
  tracker: Tracker,
  line: Pick<TrackingLine, 'postalCode' | 'destinationCountry'> | null,
): Promise<boolean> {
  const id = tracker.id;
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
  const count = await writeTrackerAtVersion(tx, id, tracker.version, {
    desired,
    ...details,
    syncState: synced ? 'synced' : 'pending',
    attempts: 0,
    nextAttemptAt: new Date(),
    // Wanted or no longer: its problems are looked at again (src/shipments/problem-sweep.ts).
    problemCheckAt: new Date(),
    version: { increment: 1 },
    ...(synced ? {} : { lastError: null, lastErrorReason: null, lastErrorAt: null }),
  });
  return count === 1;
}
