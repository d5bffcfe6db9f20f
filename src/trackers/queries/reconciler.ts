import type { DatabaseClient } from '../../db/client.js';
import { leaseGivenBack } from '../../db/lease-queue.js';
import type { Prisma, Tracker } from '../../generated/sqlite/client.js';

/** The reconciler's reads and writes of its claimed trackers (src/trackers/reconciler.ts). */

/** The claimed trackers still leased to `token`, with their shop, the longest due first. */
export function leasedTrackersWithShop(prisma: DatabaseClient, ids: string[], token: string) {
  return prisma.tracker.findMany({
    where: { id: { in: ids }, leaseOwner: token },
    include: { shop: true },
    orderBy: { nextAttemptAt: 'asc' },
  });
}

/** Of these trackers, the ids still leased to `token`. */
export async function stillLeasedTrackerIds(
  prisma: DatabaseClient,
  ids: string[],
  token: string,
): Promise<Set<string>> {
  const left = await prisma.tracker.findMany({
    where: { id: { in: ids }, leaseOwner: token },
    select: { id: true },
  });
  return new Set(left.map((r) => r.id));
}

/** A tracker's row, if any. */
export function trackerRow(prisma: DatabaseClient, id: string): Promise<Tracker | null> {
  return prisma.tracker.findUnique({ where: { id } });
}

/** A tracker's sync state, if there is a row. */
export function trackerSyncState(prisma: DatabaseClient, id: string): Promise<{ syncState: string } | null> {
  return prisma.tracker.findUnique({
    where: { id },
    select: { syncState: true },
  });
}

/**
 * Writes a tracker's outcome while it is still leased to `token` at `version` (optimistic: 0 when another
 * write came first), its lease given back and its version moved on.
 */
export async function writeLeasedTracker(
  prisma: DatabaseClient,
  id: string,
  token: string,
  version: number,
  data: Prisma.TrackerUpdateManyMutationInput,
  createCallsIncrement?: number,
): Promise<number> {
  const { count } = await prisma.tracker.updateMany({
    where: { id, leaseOwner: token, version },
    data: {
      ...data,
      ...leaseGivenBack,
      version: { increment: 1 },
      ...(createCallsIncrement ? { createCalls: { increment: createCallsIncrement } } : {}),
    },
  });
  return count;
}
