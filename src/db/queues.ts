import type { QueueDescription } from './lease-queue.js';

/**
 * Every queue of background work, described once: which rows are due, in what order, under which lease.
 * Claimed, renewed and released through src/db/lease-queue.ts; counted for /metrics from this list.
 */

const lease = { owner: 'leaseOwner', expiresAt: 'leaseExpiresAt' } as const;

/**
 * A queue of attempts: rows with a `state` and a `nextAttemptAt` under the default lease, due while in one of
 * `states` (default: pending) once their time has come.
 */
function attemptQueue(
  description: Pick<QueueDescription, 'name' | 'table' | 'orderBy' | 'hasUpdatedAt'> & { states?: string[] },
): QueueDescription {
  const { states = ['pending'], ...rest } = description;
  return {
    ...rest,
    lease,
    due: `q."state" IN (${states.map((st) => `'${st}'`).join(', ')}) AND q."nextAttemptAt" <= :now`,
    dueSince: 'nextAttemptAt',
  };
}

/** Recorded webhook deliveries waiting to become desired state. */
export const deliveryQueue = attemptQueue({
  name: 'deliveries',
  table: 'WebhookDelivery',
  orderBy: `q."receivedAt" ASC`,
});

/** A tracker the reconciler has work on (desired and remote states differ), whenever it is due. */
const syncPending = `q."syncState" = 'pending'`;

/**
 * Trackers whose desired and remote states differ and whose next attempt is due, of shops that are not
 * paused (or whose pause is due a probe), claimed shop by shop: the shops due first, oldest rows first.
 */
export const trackerQueue: QueueDescription = {
  name: 'trackers',
  table: 'Tracker',
  lease,
  due: `${syncPending} AND q."nextAttemptAt" <= :now`,
  orderBy: `q."nextAttemptAt" ASC`,
  dueSince: 'nextAttemptAt',
  bumpVersion: true,
  hasUpdatedAt: true,
  byShop: {
    member: syncPending,
    eligible: `s."pausedAt" IS NULL OR s."probeAt" <= :now`,
    // A paused shop is looked at again when its probe is due (its resume adds it back at once).
    lookAgainAt: `s."probeAt"`,
  },
};

/** Running backfill jobs: one page each per claim. */
export const backfillQueue: QueueDescription = {
  name: 'backfills',
  table: 'BackfillJob',
  lease,
  due: `q."state" = 'running'`,
  orderBy: `q."updatedAt" ASC`,
  dueSince: 'updatedAt',
  hasUpdatedAt: true,
};

/** A tracker at the service whose status is read from time to time, whenever it is next due. */
const polled = `q."desired" = 'active' AND q."remote" = 'present' AND q."nextPollAt" IS NOT NULL`;

/**
 * Trackers at the service whose status is due to be read, of shops that are neither paused nor
 * uninstalled: the most overdue shops first, at most `byShop.max` of one shop per claim. Its own lease
 * columns: a status read never holds up a sync, nor the other way round.
 */
export const statusPollQueue: QueueDescription = {
  name: 'status-polls',
  table: 'Tracker',
  lease: { owner: 'pollLeaseOwner', expiresAt: 'pollLeaseExpiresAt' },
  due: `${polled} AND q."nextPollAt" <= :now`,
  orderBy: `q."nextPollAt" ASC`,
  dueSince: 'nextPollAt',
  byShop: {
    member: polled,
    eligible: `s."pausedAt" IS NULL AND s."uninstalledAt" IS NULL`,
    // Looked at again once the shop changes (resumed, reinstalled).
    lookAgainAt: 'NULL',
    max: 10,
  },
};

/** Fulfilment events to write to the stores, oldest first so a timeline is written in order. */
export const storeEventQueue = attemptQueue({
  name: 'store-events',
  table: 'StoreFulfillmentEvent',
  states: ['pending', 'sending'],
  orderBy: `q."happenedAt" ASC, q."status" ASC`,
  hasUpdatedAt: true,
});

/** Fulfilments whose tracking links are to be set in the store (the tracking-page setting). */
export const storeLinkQueue = attemptQueue({
  name: 'store-links',
  table: 'StoreTrackingLink',
  orderBy: `q."nextAttemptAt" ASC`,
  hasUpdatedAt: true,
});

/** Status pushes from the tracking service waiting to be applied, in the order they came. */
export const statusPushQueue = attemptQueue({
  name: 'status-pushes',
  table: 'StatusPush',
  orderBy: `q."receivedAt" ASC`,
});

/** Shopify Flow triggers to fire (src/flow/send-flow-events.ts), in the order they were queued. */
export const flowEventQueue = attemptQueue({
  name: 'flow-events',
  table: 'FlowEvent',
  orderBy: `q."createdAt" ASC`,
  hasUpdatedAt: true,
});

/** The queues claimed shop by shop (their rows have a `shopId`; see `byShop` in src/db/lease-queue.ts). */
export const byShopQueues: readonly QueueDescription[] = [trackerQueue, statusPollQueue];

export const allQueues: readonly QueueDescription[] = [
  deliveryQueue,
  trackerQueue,
  backfillQueue,
  statusPollQueue,
  storeEventQueue,
  storeLinkQueue,
  statusPushQueue,
  flowEventQueue,
];
