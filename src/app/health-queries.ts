import type { DatabaseClient } from '../db/client.js';

/** The operational reads of the composition root: the /metrics gauges' figures and the readiness check. */

/** How many trackers are in a sync state, up to `cap`, through the (syncState, nextAttemptAt) index. */
export function countTrackersInSyncState(
  prisma: DatabaseClient,
  syncState: string,
  cap: number,
): Promise<number> {
  return prisma.tracker.count({ where: { syncState }, take: cap });
}

/** Up to `cap` paused shops' pause reasons. */
export function pausedShopReasons(
  prisma: DatabaseClient,
  cap: number,
): Promise<Array<{ pausedReason: string | null }>> {
  return prisma.shop.findMany({
    where: { pausedAt: { not: null } },
    select: { pausedReason: true },
    take: cap,
  });
}

/** The migrations `_prisma_migrations` records as finished (read directly: cheap, no schema engine). */
export function finishedMigrationNames(prisma: DatabaseClient): Promise<Array<{ migration_name: string }>> {
  return prisma.$queryRawUnsafe<Array<{ migration_name: string }>>(
    'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
  );
}
