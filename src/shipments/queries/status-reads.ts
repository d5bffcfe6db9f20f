import type { DatabaseClient } from '../../db/client.js';
import type { Prisma } from '../../generated/sqlite/client.js';

/** The status reads' writes of their trackers (src/shipments/poll-statuses.ts: polls, and pushes through it). */

/** The claimed trackers still poll-leased to `token`, with their shop and active lines, the most due first. */
export function pollLeasedTrackers(prisma: DatabaseClient, ids: string[], token: string) {
  return prisma.tracker.findMany({
    where: { id: { in: ids }, pollLeaseOwner: token },
    include: { shop: true, lines: { where: { active: true }, select: { fulfillmentId: true } } },
    orderBy: { nextPollAt: 'asc' },
  });
}

/**
 * The service no longer holds a wanted tracker this read still holds (not under a sync lease): it goes
 * back to the reconciler, unread until then. How many rows (0 or 1).
 */
export async function markTrackerMissing(
  prisma: DatabaseClient,
  id: string,
  token: string,
  now: Date,
): Promise<number> {
  const { count } = await prisma.tracker.updateMany({
    where: {
      id,
      pollLeaseOwner: token,
      leaseOwner: null,
      desired: 'active',
      remote: 'present',
    },
    data: {
      remote: 'unknown',
      syncState: 'pending',
      nextAttemptAt: now,
      nextPollAt: null,
      pollLeaseOwner: null,
      pollLeaseExpiresAt: null,
      statusCheckedAt: now,
      version: { increment: 1 },
    },
  });
  return count;
}

/** A read that wrote nothing: its next read set and its poll lease given back. How many rows (0 or 1). */
export async function releaseReadTracker(
  prisma: DatabaseClient,
  id: string,
  token: string,
  nextPollAt: Date | null,
  now: Date,
): Promise<number> {
  const { count } = await prisma.tracker.updateMany({
    where: { id, pollLeaseOwner: token },
    data: {
      nextPollAt,
      pollFailures: 0,
      statusCheckedAt: now,
      pollLeaseOwner: null,
      pollLeaseExpiresAt: null,
    },
  });
  return count;
}

/** The shop's pushes stopped: its last push time cleared, only while it is the one read. How many (0 or 1). */
export async function clearLastStatusPush(
  prisma: DatabaseClient,
  shopId: string,
  lastStatusPushAt: Date | null,
): Promise<number> {
  const { count } = await prisma.shop.updateMany({
    where: { id: shopId, lastStatusPushAt },
    data: { lastStatusPushAt: null },
  });
  return count;
}

/** The shop's other trackers read later than `after`: read now. How many. */
export async function pullReadsForward(
  prisma: DatabaseClient,
  shopId: string,
  exceptId: string,
  after: Date,
  now: Date,
): Promise<number> {
  const pulled = await prisma.tracker.updateMany({
    where: {
      shopId,
      id: { not: exceptId },
      nextPollAt: { gt: after },
    },
    data: { nextPollAt: now },
  });
  return pulled.count;
}

/** Writes a read's status on its tracker where `where` still holds: how many rows (0 or 1). */
export async function writeTrackerRead(
  prisma: DatabaseClient,
  where: Prisma.TrackerWhereInput,
  data: Prisma.TrackerUpdateManyMutationInput,
): Promise<number> {
  const { count } = await prisma.tracker.updateMany({ where, data });
  return count;
}

/** A failed read: tried again at `nextPollAt`, its poll lease given back. */
export async function postponeRead(
  prisma: DatabaseClient,
  id: string,
  token: string,
  nextPollAt: Date,
  now: Date,
): Promise<void> {
  await prisma.tracker.updateMany({
    where: { id, pollLeaseOwner: token },
    data: {
      pollFailures: { increment: 1 },
      nextPollAt,
      statusCheckedAt: now,
      pollLeaseOwner: null,
      pollLeaseExpiresAt: null,
    },
  });
}

/** Gives a tracker's poll lease back, nothing else written. */
export async function releasePollLease(prisma: DatabaseClient, id: string, token: string): Promise<void> {
  await prisma.tracker.updateMany({
    where: { id, pollLeaseOwner: token },
    data: { pollLeaseOwner: null, pollLeaseExpiresAt: null },
  });
}
