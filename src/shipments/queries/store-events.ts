import type { DatabaseClient } from '../../db/client.js';
import { leaseGivenBack } from '../../db/lease-queue.js';
import type { StoreFulfillmentEvent } from '../../generated/sqlite/client.js';

/** The store fulfilment events' outbox rows (src/shipments/post-store-events.ts writes them to the store). */

/** The claimed events still leased to `token`, oldest first. */
export function leasedStoreEvents(
  prisma: DatabaseClient,
  ids: readonly string[],
  token: string,
): Promise<StoreFulfillmentEvent[]> {
  return prisma.storeFulfillmentEvent.findMany({
    where: { id: { in: [...ids] }, leaseOwner: token },
    orderBy: [{ happenedAt: 'asc' }, { status: 'asc' }],
  });
}

/** What the pass reads of these shops. */
export function storeEventShops(
  prisma: DatabaseClient,
  shopIds: string[],
): Promise<
  Array<{ id: string; domain: string; postFulfillmentEvents: boolean; uninstalledAt: Date | null }>
> {
  return prisma.shop.findMany({
    where: { id: { in: shopIds } },
    select: { id: true, domain: true, postFulfillmentEvents: true, uninstalledAt: true },
  });
}

/** The events still waiting (pending or sending) of these fulfilments of these shops. */
export function waitingStoreEvents(prisma: DatabaseClient, fulfillmentIds: string[], shopIds: string[]) {
  return prisma.storeFulfillmentEvent.findMany({
    where: {
      state: { in: ['pending', 'sending'] },
      fulfillmentId: { in: fulfillmentIds },
      shopId: { in: shopIds },
    },
    select: {
      id: true,
      shopId: true,
      fulfillmentId: true,
      status: true,
      happenedAt: true,
      state: true,
      nextAttemptAt: true,
      leaseOwner: true,
      leaseExpiresAt: true,
    },
  });
}

/**
 * The writes begun since `since` (their `sentAt`) of these fulfilments of these shops: how many per
 * fulfilment, and the oldest (when it leaves the window, a write is free again). On the
 * (shopId, fulfillmentId, sentAt) index.
 */
export async function recentStoreWrites(
  prisma: DatabaseClient,
  fulfillmentIds: string[],
  shopIds: string[],
  since: Date,
): Promise<Array<{ shopId: string; fulfillmentId: string; count: number; oldest: Date }>> {
  const groups = await prisma.storeFulfillmentEvent.groupBy({
    by: ['shopId', 'fulfillmentId'],
    where: { shopId: { in: shopIds }, fulfillmentId: { in: fulfillmentIds }, sentAt: { gte: since } },
    _count: { _all: true },
    _min: { sentAt: true },
  });
  return groups.map((g) => ({
    shopId: g.shopId,
    fulfillmentId: g.fulfillmentId,
    count: g._count._all,
    oldest: g._min.sentAt ?? since,
  }));
}

/**
 * Marks these events superseded (never written: a newer status of their fulfilment replaced it), those
 * still pending and either leased to `token` or not leased at all: the ids marked.
 */
export async function supersedeStoreEvents(
  prisma: DatabaseClient,
  ids: string[],
  token: string,
  reason: string,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await prisma.storeFulfillmentEvent.updateManyAndReturn({
    where: { id: { in: ids }, state: 'pending', OR: [{ leaseOwner: token }, { leaseOwner: null }] },
    data: { state: 'superseded', error: reason, ...leaseGivenBack },
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

/** Held events: their lease given back, due at `nextAttemptAt`. */
export async function holdStoreEvents(
  prisma: DatabaseClient,
  ids: string[],
  token: string,
  nextAttemptAt: Date,
): Promise<void> {
  await prisma.storeFulfillmentEvent.updateMany({
    where: { id: { in: ids }, leaseOwner: token },
    data: { nextAttemptAt, ...leaseGivenBack },
  });
}

/**
 * Write-ahead: the event is being sent (the store may hold it from now on), a write of its fulfilment's
 * budget spent at `now`. How many rows (0: lease lost).
 */
export async function markStoreEventSending(
  prisma: DatabaseClient,
  id: string,
  token: string,
  now: Date,
): Promise<number> {
  const { count } = await prisma.storeFulfillmentEvent.updateMany({
    where: { id, leaseOwner: token },
    data: { state: 'sending', sentAt: now },
  });
  return count;
}

/** Writes an event's outcome while its lease is still `token`'s, the lease given back. */
export async function finishStoreEvent(
  prisma: DatabaseClient,
  token: string,
  id: string,
  data: Partial<
    Pick<StoreFulfillmentEvent, 'state' | 'error' | 'attempts' | 'nextAttemptAt' | 'storeEventId'>
  >,
): Promise<void> {
  await prisma.storeFulfillmentEvent.updateMany({
    where: { id, leaseOwner: token },
    data: { ...data, ...leaseGivenBack },
  });
}
