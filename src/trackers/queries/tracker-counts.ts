import type { DatabaseClient } from '../../db/client.js';

/** Operators' figures over the trackers (the CLI). */

/** How many trackers each shop has in each sync state. */
export async function trackersByShopAndSyncState(
  prisma: DatabaseClient,
): Promise<Array<{ shopId: string; syncState: string; count: number }>> {
  const groups = await prisma.tracker.groupBy({ by: ['shopId', 'syncState'], _count: { _all: true } });
  return groups.map((g) => ({ shopId: g.shopId, syncState: g.syncState, count: g._count._all }));
}
