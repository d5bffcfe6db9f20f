import type { QueueDescription } from './lease-queue.js';

/**
 * Every queue of background work, described once: which rows are due, in what order, under which lease.
 * Claimed, renewed and released through src/db/lease-queue.ts; counted for /metrics from this list.
 */

const lease = { owner: 'leaseOwner', expiresAt: 'leaseExpiresAt' } as const;

/** Recorded webhook deliveries waiting to become desired state. */
export const deliveryQueue: QueueDescription = {
  name: 'deliveries',
  table: 'WebhookDelivery',
  lease,
  due: `q."state" = 'pending' AND q."nextAttemptAt" <= :now`,
  orderBy: `q."receivedAt" ASC`,
  dueSince: 'nextAttemptAt',
};

/**
 * Trackers whose desired and remote states differ and whose next attempt is due, of shops that are not
 * paused (or whose pause is due a probe).
 */
export const trackerQueue: QueueDescription = {
  name: 'trackers',
  table: 'Tracker',
  lease,
  due: `q."syncState" = 'pending' AND q."nextAttemptAt" <= :now
    AND EXISTS (SELECT 1 FROM "Shop" s WHERE s."id" = q."shopId" AND (s."pausedAt" IS NULL OR s."probeAt" <= :now))`,
  orderBy: `q."nextAttemptAt" ASC`,
  dueSince: 'nextAttemptAt',
  bumpVersion: true,
  hasUpdatedAt: true,
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

/**
 * Trackers at the service whose status is due to be read, of shops that are neither paused nor
 * uninstalled: the most overdue first, at most `perGroup.max` of one shop per claim. Its own lease
 * columns: a status read never holds up a sync, nor the other way round.
 */
export const statusPollQueue: QueueDescription = {
  name: 'status-polls',
  table: 'Tracker',
  lease: { owner: 'pollLeaseOwner', expiresAt: 'pollLeaseExpiresAt' },
  due: `q."nextPollAt" <= :now AND q."desired" = 'active' AND q."remote" = 'present'
    AND EXISTS (SELECT 1 FROM "Shop" s WHERE s."id" = q."shopId" AND s."pausedAt" IS NULL AND s."uninstalledAt" IS NULL)`,
  orderBy: `q."nextPollAt" ASC`,
  dueSince: 'nextPollAt',
  perGroup: { column: 'shopId', max: 10 },
};

/** Fulfilment events to write to the stores, oldest first so a timeline is written in order. */
export const storeEventQueue: QueueDescription = {
  name: 'store-events',
  table: 'StoreFulfillmentEvent',
  lease,
  due: `q."state" IN ('pending', 'sending') AND q."nextAttemptAt" <= :now`,
  orderBy: `q."happenedAt" ASC, q."status" ASC`,
  dueSince: 'nextAttemptAt',
  hasUpdatedAt: true,
};

/** Fulfilments whose tracking links are to be set in the store (the tracking-page setting). */
export const storeLinkQueue: QueueDescription = {
  name: 'store-links',
  table: 'StoreTrackingLink',
  lease,
  due: `q."state" = 'pending' AND q."nextAttemptAt" <= :now`,
  orderBy: `q."nextAttemptAt" ASC`,
  dueSince: 'nextAttemptAt',
  hasUpdatedAt: true,
};

/** Status pushes from the tracking service waiting to be applied, in the order they came. */
export const statusPushQueue: QueueDescription = {
  name: 'status-pushes',
  table: 'StatusPush',
  lease,
  due: `q."state" = 'pending' AND q."nextAttemptAt" <= :now`,
  orderBy: `q."receivedAt" ASC`,
  dueSince: 'nextAttemptAt',
};

export const allQueues: readonly QueueDescription[] = [
  deliveryQueue,
  trackerQueue,
  backfillQueue,
  statusPollQueue,
  storeEventQueue,
  storeLinkQueue,
  statusPushQueue,
];
