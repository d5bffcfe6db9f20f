import { createHash } from 'node:crypto';
import type { DatabaseClient, Tx } from '../db/client.js';
import type { BalanceForecast } from '../shipments/balance-forecast.js';
import { type ProblemKind, problemKinds } from '../shipments/problem-words.js';
import { estimateOf } from '../shipments/estimates.js';
import { isFinalStatus, parcelGroupOf, parcelOf as parcelModelOf } from '../shipments/parcel-model.js';
import { storeTrackingUrl } from '../shipments/tracking-links.js';
import { fulfillmentGid } from '../shopify/fulfillment-events.js';
import { queueFlowEvent, type QueueOutcome } from './queue-flow-event.js';
import { type FlowEventInput, handlesInUse, queueFlowEvents } from './queries/flow-events.js';
import { openProblemsOnTrigger, trackerParcel } from './queries/trigger-reads.js';
import { type FlowTriggerHandle, flowPayload, type ShipmentFacts } from './triggers.js';

/**
 * What the rest of the app calls to fire Flow triggers: a shipment's read changed (status, delivery,
 * estimate), problems opened, the balance runs low. Each looks up what the payload needs, builds it with
 * the trigger's builder (src/flow/triggers.ts) and queues it (src/flow/queue-flow-event.ts), one event per
 * fulfilment of the parcel; nothing is read when the shop has no workflow on the triggers concerned. Safe to
 * call inside the transaction that writes the change, and again for the same change (one row per key).
 */

type Db = DatabaseClient | Tx;

/** A parcel's state before or after a read, as the tracker row holds it. */
export interface ShipmentState {
  status: string | null;
  statusDetail: string | null;
  /** The tracking service's estimate (a date text). */
  estimatedDelivery: string | null;
  /** The predicted one, where the service gives none (src/shipments/estimates.ts). */
  predictedDelivery?: string | null;
  /** The latest event's time: the same status coming back later is a new change. */
  lastEventAt: Date | null;
}

/** The tracker whose read changed (the rest is read from it). */
export interface TrackerRef {
  id: string;
  shopId: string;
}

/** The estimate shown everywhere (the parcel model's rule: none for a parcel the service cannot follow). */
function shownEstimate(state: ShipmentState): string | null {
  return (
    estimateOf({
      status: state.status,
      statusDetail: state.statusDetail,
      estimatedDelivery: state.estimatedDelivery,
      predictedDelivery: state.predictedDelivery ?? null,
    })?.date ?? null
  );
}

function key(...parts: Array<string | null | undefined>): string {
  return createHash('sha256')
    .update(parts.map((p) => p ?? '').join('\u0000'))
    .digest('base64url')
    .slice(0, 22);
}

/** A trigger a read fires, and what makes it one event (with the tracker and the fulfilment). */
export interface ShipmentChange {
  handle: Extract<
    FlowTriggerHandle,
    'shipment-status-changed' | 'shipment-delivered' | 'delivery-estimate-changed'
  >;
  dedupe: string;
}

/** The triggers a read fires: the status or its detail changed, delivered, the estimate changed. */
export function shipmentChanges(before: ShipmentState, after: ShipmentState): ShipmentChange[] {
  if (!after.status) return [];
  const fired: ShipmentChange[] = [];
  const at = after.lastEventAt?.toISOString();
  if (after.status !== before.status || (after.statusDetail ?? null) !== (before.statusDetail ?? null))
    fired.push({ handle: 'shipment-status-changed', dedupe: key(after.status, after.statusDetail, at) });
  const deliveredNow = parcelGroupOf(after.status, after.statusDetail) === 'delivered';
  if (deliveredNow && parcelGroupOf(before.status, before.statusDetail) !== 'delivered')
    fired.push({ handle: 'shipment-delivered', dedupe: 'delivered' });
  const estimate = shownEstimate(after);
  const previous = shownEstimate(before);
  if (estimate !== null && estimate !== previous && !deliveredNow && !isFinalStatus(after.status))
    fired.push({ handle: 'delivery-estimate-changed', dedupe: key(previous, estimate, at) });
  return fired;
}

/** The store's numeric order id (what an order reference takes). */
const numericId = /^[1-9]\d{0,15}$/;

interface Parcel {
  trackingNumber: string;
  provider: string;
  domain: string;
  /** Its wanted lines, one per fulfilment. */
  lines: Array<{ fulfillmentId: string; orderId: string; carrierName: string | null }>;
}

/** The parcel's number, carrier, shop domain and wanted fulfilments, in one read. */
async function parcelOf(db: Db, trackerId: string): Promise<Parcel | null> {
  const tracker = await trackerParcel(db, trackerId);
  if (!tracker) return null;
  // One per fulfilment; a line whose order id is not the store's numeric id cannot name the order.
  const byFulfillment = new Map<string, Parcel['lines'][number]>();
  for (const line of tracker.lines) {
    if (numericId.test(line.orderId) && !byFulfillment.has(line.fulfillmentId))
      byFulfillment.set(line.fulfillmentId, line);
  }
  return {
    trackingNumber: tracker.trackingNumber,
    provider: tracker.provider,
    domain: tracker.shop.domain,
    lines: [...byFulfillment.values()],
  };
}

function factsOf(parcel: Parcel, line: Parcel['lines'][number], state: ShipmentState): ShipmentFacts {
  return {
    orderId: line.orderId,
    fulfillmentId: fulfillmentGid(line.fulfillmentId),
    trackingNumber: parcel.trackingNumber,
    carrier: line.carrierName?.trim() || parcel.provider,
    status: state.status ?? '',
    statusDetail: state.statusDetail,
    statusLabel: state.status ? parcelModelOf(state.status, state.statusDetail).label : '',
    estimatedDelivery: shownEstimate(state),
    trackingPageUrl: storeTrackingUrl(parcel.domain, parcel.trackingNumber),
  };
}

/**
 * A read of the tracker was stored (a poll, a push, a look at the timeline): queues "Shipment status
 * changed" when its status or detail changed, "Shipment delivered" when it became delivered, and "Delivery
 * estimate changed" when the estimate the shopper sees changed on a parcel still on its way; one per
 * fulfilment of the parcel, for the triggers the shop has workflows on. Returns how many were queued.
 */
export async function queueShipmentChanges(
  db: Db,
  tracker: TrackerRef,
  before: ShipmentState,
  after: ShipmentState,
  now: Date = new Date(),
  /** The shop's triggers in use, when the caller read them once for many trackers (the insert decides anyway). */
  known?: ReadonlySet<string>,
): Promise<number> {
  const changes = shipmentChanges(before, after);
  if (changes.length === 0) return 0;
  const inUse = known ?? (await handlesInUse(db, tracker.shopId));
  const wanted = changes.filter((c) => inUse.has(c.handle));
  if (wanted.length === 0) return 0;
  const parcel = await parcelOf(db, tracker.id);
  if (!parcel) return 0;
  const events: FlowEventInput[] = parcel.lines.flatMap((line) =>
    wanted.map(({ handle, dedupe }) => {
      const facts = factsOf(parcel, line, after);
      const payload =
        handle === 'delivery-estimate-changed'
          ? flowPayload(handle, { ...facts, previousEstimate: shownEstimate(before) })
          : flowPayload(handle, facts);
      return {
        shopId: tracker.shopId,
        handle,
        payload,
        dedupeKey: `${tracker.id}/${line.fulfillmentId}/${dedupe}`,
      };
    }),
  );
  return queueFlowEvents(db, events, now);
}

const isProblemKind = (kind: string): kind is ProblemKind =>
  (problemKinds as readonly string[]).includes(kind);

/**
 * Problems were opened (ShipmentProblem ids, as the sweep inserted them): queues "Shipment needs attention"
 * for each, one per fulfilment of its parcel, for the shops with a workflow on it. A problem's episode is
 * one event. Returns how many were queued.
 */
export async function queueProblemsOpened(
  db: Db,
  problemIds: readonly string[],
  now: Date = new Date(),
): Promise<number> {
  if (problemIds.length === 0) return 0;
  const handle = 'shipment-needs-attention';
  const problems = await openProblemsOnTrigger(db, problemIds, handle);
  const events: FlowEventInput[] = [];
  for (const problem of problems) {
    const { kind } = problem;
    if (!isProblemKind(kind)) continue;
    const parcel = await parcelOf(db, problem.tracker.id);
    if (!parcel) continue;
    for (const line of parcel.lines) {
      events.push({
        shopId: problem.shopId,
        handle,
        payload: flowPayload(handle, { ...factsOf(parcel, line, problem.tracker), kind }),
        dedupeKey: `${problem.id}/${line.fulfillmentId}`,
      });
    }
  }
  return queueFlowEvents(db, events, now);
}

/**
 * The balance forecast warns (src/shipments/balance-forecast.ts): queues "Tracking balance running low",
 * at most once a day (UTC) while it warns. `not_low`: the forecast does not warn.
 */
export async function queueBalanceLow(
  db: Db,
  shop: { id: string; trackersBalance: number | null },
  forecast: BalanceForecast,
  now: Date = new Date(),
): Promise<QueueOutcome | 'not_low'> {
  if (!forecast.warn || forecast.daysLeft === null || shop.trackersBalance === null) return 'not_low';
  const handle = 'tracking-balance-low';
  return queueFlowEvent(
    db,
    {
      shopId: shop.id,
      handle,
      payload: flowPayload(handle, {
        balance: shop.trackersBalance,
        daysLeft: forecast.daysLeft,
        perDay: forecast.perDay,
      }),
      dedupeKey: `day:${now.toISOString().slice(0, 10)}`,
    },
    now,
  );
}
