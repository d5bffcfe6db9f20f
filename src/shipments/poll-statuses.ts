import { nowOf } from '../lib/clock.js';
import type { DatabaseClient } from '../db/client.js';
import type { QueueWork } from '../db/lease-queue.js';
import { runQueuePass } from '../db/queue-pass.js';
import { statusPollQueue } from '../db/queues.js';
import { insertRows } from '../db/insert-rows.js';
import type { Prisma, Shop, Tracker } from '../generated/sqlite/client.js';
import { backoffDelayMs, backoffPolicies } from '../lib/backoff.js';
import { SecretUnreadableError } from '../shops/crypto.js';
import type { ShopCredentials, ShopRepository } from '../shops/shop-repository.js';
import type { TrackingClient } from '../tracking/client.js';
import type { Shipment } from '../tracking/types.js';
import { deliveryFactsOf } from './delivery-facts.js';
import { noteDelivered, predictedDeliveryOf } from './estimates.js';
import { type OrderRead, readOrderShipments } from './read-order.js';
import {
  readNotOlderWhere,
  readSupersedes,
  storeEventChanges,
  storeEventNotRetired,
  withoutFutureEvents,
} from './read-bounds.js';
import {
  defaultPollPolicy,
  nextReadAt,
  pushesArriving,
  parseServiceTime,
  type PollPolicy,
  type StatusChange,
  statusFromShipment,
  storedEventsOf,
} from './status.js';
import {
  clearLastStatusPush,
  markTrackerMissing,
  pollLeasedTrackers,
  postponeRead,
  pullReadsForward,
  releasePollLease,
  releaseReadTracker,
  writeTrackerRead,
} from './queries/status-reads.js';
import { newRowId } from '../lib/row-id.js';

/**
 * Reads the status of active trackers back from the service, on the schedule the status calls for
 * (status.ts), stores it on the tracker, and queues each platform status change for the store
 * (StoreFulfillmentEvent, written by post-store-events.ts). Trackers of one order due in the same pass
 * are read with one by-order-id call (read-order.ts), the others with one `get` each.
 *
 * Fair and bounded: a pass takes the shops whose work is most overdue first and at most `perShop`
 * trackers of each, so one big shop never starves the others nor sends the service a burst of its own.
 * Each tracker is leased for the pass (poll lease, separate from the sync lease); every write is
 * conditional on holding it. Queued store events carry a unique key, so a duplicate poll, two workers or a
 * restart after a crash queue nothing twice.
 */

export interface PollDeps extends QueueWork {
  client: TrackingClient;
  shops: ShopRepository;
  /** What follows a stored read's change (the worker sets it: Flow triggers). */
  onStored?: ReadStoredHook;
  policy?: PollPolicy;
  random?: () => number;
}

export interface PollOptions {
  /** Trackers per pass, all shops together. */
  limit: number;
  /** Trackers per shop per pass. */
  perShop: number;
  /** Service calls in flight at once. */
  concurrency: number;
  shouldStop?: () => boolean;
}

export interface PollStats {
  claimed: number;
  polled: number;
  changed: number;
  eventsQueued: number;
  stopped: number;
  notFound: number;
  failed: number;
}

type Claimed = Tracker & { shop: Shop; lines: { fulfillmentId: string }[] };

export function pollStatuses(deps: PollDeps, options: PollOptions): Promise<PollStats> {
  const stats: PollStats = {
    claimed: 0,
    polled: 0,
    changed: 0,
    eventsQueued: 0,
    stopped: 0,
    notFound: 0,
    failed: 0,
  };
  const now = nowOf(deps);
  // Every path of pollClaimed writes its row with the poll lease cleared.
  return runQueuePass(deps, {
    queue: statusPollQueue,
    limit: options.limit,
    now,
    perGroupMax: options.perShop,
    none: stats,
    load: (ids, token) => pollLeasedTrackers(deps.prisma, ids, token),
    act: (claimed, leases) => pollClaimed(deps, leases.token, claimed, options, now, stats),
  });
}

async function pollClaimed(
  deps: PollDeps,
  token: string,
  claimed: Claimed[],
  options: PollOptions,
  now: Date,
  stats: PollStats,
): Promise<PollStats> {
  stats.claimed = claimed.length;
  if (claimed.length === 0) return stats;

  // Trackers of one order due together are read with one by-order-id call; the others one `get` each.
  const byOrder = new Map<string, Claimed[]>();
  for (const tracker of claimed) {
    const key = `${tracker.shopId}\u0000${tracker.orderKey}`;
    byOrder.set(key, [...(byOrder.get(key) ?? []), tracker]);
  }
  const groups = [...byOrder.values()];
  const credentials = new Map<string, Promise<ShopCredentials | null>>();
  let next = 0;
  const run = async () => {
    while (next < groups.length) {
      const group = groups[next++]!;
      const shop = group[0]!.shop;
      if (options.shouldStop?.()) {
        for (const tracker of group) await release(deps, token, tracker.id, now);
        continue;
      }
      if (!credentials.has(shop.id)) {
        credentials.set(
          shop.id,
          deps.shops.credentials(shop).catch((error: unknown) => {
            if (error instanceof SecretUnreadableError) return null;
            throw error;
          }),
        );
      }
      const creds = await credentials.get(shop.id)!;
      if (!creds) {
        for (const tracker of group) await failed(deps, token, tracker, now, 'not_connected');
        stats.failed += group.length;
        continue;
      }
      if (group.length === 1) await pollOne(deps, token, group[0]!, creds, stats);
      else await pollOrder(deps, token, group, creds, stats);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, groups.length) }, run));
  return stats;
}

async function pollOne(
  deps: PollDeps,
  token: string,
  tracker: Claimed,
  creds: ShopCredentials,
  stats: PollStats,
): Promise<void> {
  const log = deps.logger.child({ trackerId: tracker.id, shop: tracker.shop.domain });
  const result = await deps.client.getShipment(creds, {
    trackingNumber: tracker.trackingNumber,
    trackingProvider: tracker.provider,
  });
  const now = nowOf(deps);
  if (!result.ok) {
    if (result.error.reason === 'tracking_not_found') {
      // The service no longer holds it: the reconciler looks (get) and creates it again if still wanted.
      const count = await markTrackerMissing(deps.prisma, tracker.id, token, now);
      if (count === 1) {
        stats.notFound++;
        log.warn('tracker missing at the service; it will be looked up and created again');
        return;
      }
    }
    stats.failed++;
    log.info({ reason: result.error.reason }, 'status read failed; will try again later');
    await failed(deps, token, tracker, now, result.error.reason);
    return;
  }

  await storePolled(deps, token, tracker, { shipment: result.value, listing: false }, now, stats);
}

/**
 * Several trackers of one order, due together: one by-order-id call (read-order.ts). A tracker the listing
 * does not hold is read alone; when the listing call fails, a failure that may pass (the service is down,
 * slow, limiting) backs every tracker off without a call each, any other is retried one `get` each.
 */
async function pollOrder(
  deps: PollDeps,
  token: string,
  trackers: Claimed[],
  creds: ShopCredentials,
  stats: PollStats,
): Promise<void> {
  const result = await readOrderShipments(deps.client, creds, trackers[0]!.orderKey, trackers, {
    fullReadOnNews: true,
  });
  const now = nowOf(deps);
  if (!result.ok) {
    if (result.error.retryable) {
      deps.logger.info(
        { shop: trackers[0]!.shop.domain, reason: result.error.reason },
        'order status read failed; will try again later',
      );
      for (const tracker of trackers) await failed(deps, token, tracker, now, result.error.reason);
      stats.failed += trackers.length;
      return;
    }
    for (const tracker of trackers) await pollOne(deps, token, tracker, creds, stats);
    return;
  }
  for (const tracker of trackers) {
    const read = result.read.get(tracker.id);
    if (read) await storePolled(deps, token, tracker, read, now, stats);
    else await pollOne(deps, token, tracker, creds, stats);
  }
}

async function storePolled(
  deps: PollDeps,
  token: string,
  tracker: Claimed,
  read: OrderRead,
  now: Date,
  stats: PollStats,
): Promise<void> {
  const policy = deps.policy ?? defaultPollPolicy;
  // A read that finds news no push brought ends the shop's push mode, for this tracker's schedule too.
  const missed =
    pushesArriving(tracker.shop, now) && missedByPushes(tracker, statusFromShipment(read.shipment), now);
  const schedule = missed ? { ...tracker.shop, lastStatusPushAt: null } : tracker.shop;
  const next = (status: ReturnType<typeof statusFromShipment>) =>
    nextReadAt(status, tracker.createdAt, now, schedule, policy, deps.random);
  const {
    stored: count,
    eventsQueued,
    status,
  } = await storeShipmentRead(deps, tracker, read.shipment, now, {
    guard: { pollLeaseOwner: token },
    listing: read.listing,
    then: (s) => ({ nextPollAt: next(s), pollFailures: 0, pollLeaseOwner: null, pollLeaseExpiresAt: null }),
  });
  stats.eventsQueued += eventsQueued;
  const nextPoll = next(status);
  if (count) {
    stats.polled++;
    if (status.status !== tracker.status) stats.changed++;
    if (nextPoll === null) stats.stopped++;
    if (missed) await pushesStopped(deps, tracker, now, policy);
    return;
  }
  // Older than what is stored (a push came first): nothing written but the next read and the lease.
  const released = await releaseReadTracker(deps.prisma, tracker.id, token, nextPoll, now);
  if (released) stats.polled++;
}

/** A push is expected within this long of an event; news older than that which no push brought was missed. */
export const pushGraceMs = 15 * 60_000;

/** A safety-net read found an event, old enough to have been pushed, that no push brought. */
function missedByPushes(
  tracker: Pick<Tracker, 'lastEventAt'>,
  status: { lastEventAt: Date | null },
  now: Date,
): boolean {
  const at = status.lastEventAt?.getTime();
  if (at === undefined) return false;
  return at > (tracker.lastEventAt?.getTime() ?? -Infinity) && at < now.getTime() - pushGraceMs;
}

/**
 * The shop's pushes have stopped (or lose events): it goes back to polling as usual at once. Its
 * trackers waiting for a safety-net read are read soon (per-shop fairness spreads them over passes).
 */
async function pushesStopped(deps: PollDeps, tracker: Claimed, now: Date, policy: PollPolicy): Promise<void> {
  const count = await clearLastStatusPush(deps.prisma, tracker.shopId, tracker.shop.lastStatusPushAt);
  if (count === 0) return;
  const pulled = await pullReadsForward(
    deps.prisma,
    tracker.shopId,
    tracker.id,
    new Date(now.getTime() + policy.movingMs),
    now,
  );

  deps.logger.warn(
    { shop: tracker.shop.domain, trackersPulledForward: pulled },
    'status pushes missed an event: polling as usual again',
  );
}

/** What storeShipmentRead needs of a tracker: its row, its wanted lines' fulfilments, its shop's setting. */
/** A parcel's state before and after a stored read, for what follows a change (Flow triggers: src/flow). */
export interface ShipmentReadState {
  status: string | null;
  statusDetail: string | null;
  estimatedDelivery: string | null;
  predictedDelivery: string | null;
  lastEventAt: Date | null;
}

/**
 * Called after a read was stored (set by the layers above: the worker, the pushes, the pages), in the
 * read's own connection; what it does is idempotent (a repeated read changes nothing).
 */
export type ReadStoredHook = (
  db: DatabaseClient,
  tracker: { id: string; shopId: string },
  before: ShipmentReadState,
  after: ShipmentReadState,
) => Promise<unknown>;

export type ReadTarget = Pick<
  Tracker,
  | 'id'
  | 'shopId'
  | 'provider'
  | 'destinationCountry'
  | 'estimatedDelivery'
  | 'predictedDelivery'
  | 'events'
  | 'createdAt'
  | 'lastEventAt'
  | 'status'
  | 'statusDetail'
  | 'deliveredAt'
  | 'deliveredOnTime'
> & {
  lines: Array<{ fulfillmentId: string }>;
  shop: Pick<Shop, 'postFulfillmentEvents'>;
};

/**
 * What a successful read of a shipment changes, written alike by the status poller and by a merchant's
 * look at the timeline (so the list and the timeline never disagree): the status columns and history,
 * and, when the shop writes tracking updates to the store, one store event per new change and
 * fulfilment (already queued ones are skipped by their unique key, so no update is written twice).
 * `guard` is the condition the row must meet to be written (the poller's lease; nobody's lease).
 *
 * Whoever sent it, a read cannot rewrite history (read-bounds.ts): its far-future events are refused, it
 * never writes older over newer nor a non-final status over a final one at the same instant, and it queues
 * at most a handful of store events.
 */
export async function storeShipmentRead(
  deps: { prisma: DatabaseClient; onStored?: ReadStoredHook | undefined },
  tracker: ReadTarget,
  received: Shipment,
  now: Date,
  write: {
    guard: Prisma.TrackerWhereInput;
    then?: (status: ReturnType<typeof statusFromShipment>) => Prisma.TrackerUpdateManyMutationInput;
    /**
     * The shipment came from a by-order-id listing, whose elements may leave fields out (the estimated
     * delivery, even the events): what it leaves out keeps its stored value instead of being erased.
     */
    listing?: boolean;
  },
): Promise<{
  stored: boolean;
  eventsQueued: number;
  status: ReturnType<typeof statusFromShipment>;
  /** The predicted estimate written with it (null: none). */
  predictedDelivery: string | null;
}> {
  const bounded = withoutFutureEvents(received, now);
  const shipment = bounded.shipment;
  const read = statusFromShipment(shipment);
  const keepHistory = write.listing === true && read.events.length === 0 && tracker.events != null;
  const status = {
    ...read,
    estimatedDelivery: read.estimatedDelivery ?? (write.listing ? tracker.estimatedDelivery : null),
  };
  // Every dated event was far ahead: nothing to apply (the poller still schedules its next read).
  if (!bounded.usable) return { stored: false, eventsQueued: 0, status, predictedDelivery: null };
  const history = keepHistory ? storedEventsOf(tracker.events) : status.events;
  // Where the service gives no estimate, one predicted from the shop's deliveries (src/shipments/estimates.ts).
  const predictedDelivery = await predictedDeliveryOf(deps.prisma, tracker, { ...status, events: history });
  // Only a read that may be written queues its changes: an older one, or one at the same instant that
  // would undo a final status, must not put its status on the store's timeline after the newer one.
  const changes = readSupersedes(tracker, read, now) ? storeEventChanges(shipment.events) : [];
  const eventsQueued =
    tracker.shop.postFulfillmentEvents && changes.length > 0
      ? await queueStoreEvents(deps, tracker, changes, status.estimatedDelivery ?? predictedDelivery)
      : 0;
  const facts = deliveryFactsOf({
    ...status,
    events: history,
    lastEventAt: keepHistory ? (tracker.lastEventAt ?? status.lastEventAt) : status.lastEventAt,
    createdAt: tracker.createdAt,
    // Delivered now: on time against the prediction it had on its way (cleared below).
    predictedDelivery: tracker.predictedDelivery,
  });
  // Delivered before: its prediction was cleared then, so a later read without the service's estimate
  // keeps the verdict given at delivery.
  const deliveredOnTime =
    facts.deliveredOnTime === null && facts.deliveredAt !== null && tracker.deliveredAt !== null
      ? tracker.deliveredOnTime
      : facts.deliveredOnTime;
  // Never older over newer (a late push, a poll that crossed a push): a read whose latest event is older
  // than the stored one's changes nothing, nor one at the same instant that would undo a final status. A
  // listing without events says nothing about time.
  const newerOrSame: Prisma.TrackerWhereInput = keepHistory ? {} : readNotOlderWhere(read, now);
  const count = await writeTrackerRead(
    deps.prisma,
    { AND: [write.guard, newerOrSame], id: tracker.id },
    {
      status: status.status,
      statusDetail: status.statusDetail,
      estimatedDelivery: status.estimatedDelivery,
      predictedDelivery,
      ...(keepHistory
        ? {}
        : {
            lastEventAt: status.lastEventAt,
            lastEventMessage: status.lastEventMessage,
            lastEventLocation: status.lastEventLocation,
            events: JSON.stringify(status.events),
          }),
      // The last-mile carrier's number, shown to the shopper; a read without one keeps the stored one.
      ...(shipment.deliveryNumber
        ? {
            deliveryNumber: shipment.deliveryNumber.slice(0, 100),
            deliveryProvider: shipment.deliveryProvider?.slice(0, 100) ?? null,
          }
        : {}),
      statusCheckedAt: now,
      // Its problems are looked at again (src/shipments/problem-sweep.ts).
      problemCheckAt: now,
      ...facts,
      deliveredOnTime,
      ...(write.then?.(status) ?? {}),
    },
  );
  // Delivered just now: its carrier and country are counted by the transit statistics from then on.
  if (count === 1 && facts.deliveredAt !== null && tracker.deliveredAt === null)
    await noteDelivered(deps.prisma, tracker);
  if (count === 1 && deps.onStored)
    await deps.onStored(
      deps.prisma,
      tracker,
      {
        status: tracker.status,
        statusDetail: tracker.statusDetail,
        estimatedDelivery: tracker.estimatedDelivery,
        predictedDelivery: tracker.predictedDelivery,
        lastEventAt: tracker.lastEventAt,
      },
      {
        status: status.status,
        statusDetail: status.statusDetail,
        estimatedDelivery: status.estimatedDelivery,
        predictedDelivery,
        lastEventAt: keepHistory ? (tracker.lastEventAt ?? status.lastEventAt) : status.lastEventAt,
      },
    );
  return { stored: count === 1, eventsQueued, status, predictedDelivery };
}

/**
 * One row per (change, store fulfilment); rows already queued are skipped by their unique key. Each carries
 * the estimate the shopper sees: the service's, else the predicted one.
 */
async function queueStoreEvents(
  deps: { prisma: DatabaseClient },
  tracker: ReadTarget,
  changes: StatusChange[],
  estimatedDelivery: string | null,
): Promise<number> {
  const fulfillmentIds = [...new Set(tracker.lines.map((l) => l.fulfillmentId))];
  if (fulfillmentIds.length === 0) return 0;
  const now = new Date();
  // Like every service time: a date, or a date and time with no zone, is read as UTC.
  const estimate = parseServiceTime(estimatedDelivery);
  const rows = fulfillmentIds.flatMap((fulfillmentId) =>
    changes.map((c) => ({
      id: newRowId(),
      shopId: tracker.shopId,
      trackerId: tracker.id,
      fulfillmentId,
      status: c.status,
      happenedAt: c.happenedAt,
      message: c.message.slice(0, 500) || null,
      city: c.city,
      province: c.province,
      country: c.country,
      zip: c.zip,
      estimatedDeliveryAt: estimate,
      nextAttemptAt: now,
      createdAt: now,
      updatedAt: now,
    })),
  );
  const written = await insertRows(deps.prisma, 'StoreFulfillmentEvent', rows, {
    skipConflictsOn: ['trackerId', 'fulfillmentId', 'status', 'happenedAt'],
    // Nor a change whose row retention deleted (its key is gone): see src/jobs/retention.ts.
    onlyIf: storeEventNotRetired,
  });
  return written.length;
}

async function failed(
  deps: PollDeps,
  token: string,
  tracker: Tracker,
  now: Date,
  reason: string,
): Promise<void> {
  await postponeRead(
    deps.prisma,
    tracker.id,
    token,
    new Date(now.getTime() + backoffDelayMs(tracker.pollFailures + 1, backoffPolicies.statusPoll)),
    now,
  );
  deps.logger.debug({ trackerId: tracker.id, reason }, 'status poll postponed');
}

async function release(deps: PollDeps, token: string, trackerId: string, _now: Date): Promise<void> {
  await releasePollLease(deps.prisma, trackerId, token);
}
