import type { DatabaseClient } from '../db/client.js';
import { type LeaseHolder, withPassLeases } from '../db/lease-queue.js';
import { statusPushQueue } from '../db/queues.js';
import type { StatusPush } from '../generated/sqlite/client.js';
import { backoffDelayMs, backoffPolicies } from '../jobs/backoff.js';
import type { Logger } from '../logger.js';
import { statusPushes } from '../observability/metrics.js';
import { storeShipmentRead } from '../shipments/poll-statuses.js';
import { defaultPollPolicy, nextReadAt, type PollPolicy } from '../shipments/status.js';
import { parsePush } from './payload.js';

/**
 * Applies recorded status pushes, oldest first, through the same path as a poll (storeShipmentRead: the
 * stored status and history, one store fulfilment event per change, the shoppers' page). A push about a
 * tracker the shop does not have (or no longer wants) is dropped and counted; one older than what is
 * stored changes nothing (storeShipmentRead never writes older over newer), so pushes arriving out of
 * order leave the newest state. After a push, the tracker's next read is the safety net's.
 */

export interface ApplyPushDeps {
  prisma: DatabaseClient;
  logger: Logger;
  owner: string;
  leases?: LeaseHolder;
  leaseMs?: number;
  policy?: PollPolicy;
  now?: () => Date;
  random?: () => number;
}

export interface ApplyPushStats {
  claimed: number;
  applied: number;
  stale: number;
  dropped: number;
  failed: number;
}

/** Attempts before a push that keeps failing on our side is given up. */
const maxAttempts = 5;

/** Pushes kept this long after they were applied (for the record), then deleted. */
export const pushRetentionMs = 7 * 24 * 3_600_000;

export async function applyStatusPushes(deps: ApplyPushDeps, limit: number): Promise<ApplyPushStats> {
  const stats: ApplyPushStats = { claimed: 0, applied: 0, stale: 0, dropped: 0, failed: 0 };
  const now = (deps.now ?? (() => new Date()))();
  return withPassLeases(deps, statusPushQueue, async (leases) => {
    const ids = await leases.claim(limit, { now });
    if (ids.length === 0) return stats;
    try {
      const rows = await deps.prisma.statusPush.findMany({
        where: { id: { in: [...ids] }, leaseOwner: leases.token },
        orderBy: { receivedAt: 'asc' },
      });
      stats.claimed = rows.length;
      for (const row of rows) {
        let outcome: 'applied' | 'stale' | 'dropped';
        try {
          outcome = await applyOne(deps, row, now);
        } catch (error) {
          await failedOnce(deps, leases.token, row, now, error, stats);
          continue;
        }
        stats[outcome]++;
        statusPushes.inc({ outcome: outcome === 'dropped' ? 'dropped_unknown_tracker' : outcome });
        await deps.prisma.statusPush.updateMany({
          where: { id: row.id, leaseOwner: leases.token },
          data: {
            state: outcome,
            processedAt: now,
            error: outcome === 'dropped' ? 'no wanted tracker of this shop has this number' : null,
            leaseOwner: null,
            leaseExpiresAt: null,
          },
        });
      }
    } finally {
      leases.forget(ids);
    }
    return stats;
  });
}

async function applyOne(
  deps: ApplyPushDeps,
  row: StatusPush,
  now: Date,
): Promise<'applied' | 'stale' | 'dropped'> {
  const parsed = parsePush(row.payload);
  if (!parsed.ok) return 'dropped';
  const { shipment } = parsed;
  const number = shipment.trackingNumber.trim();
  const trackers = await deps.prisma.tracker.findMany({
    where: {
      shopId: row.shopId,
      desired: 'active',
      trackingNumber: { in: [...new Set([number, number.toUpperCase()])] },
      ...(shipment.trackingProvider ? { provider: shipment.trackingProvider } : {}),
    },
    include: { shop: true, lines: { where: { active: true }, select: { fulfillmentId: true } } },
  });
  if (trackers.length === 0) return 'dropped';
  let stored = false;
  for (const tracker of trackers) {
    // The shop's pushes arrive (this one did): the next read is the safety net's.
    const shop = { ...tracker.shop, lastStatusPushAt: row.receivedAt };
    const result = await storeShipmentRead(deps, tracker, shipment, now, {
      guard: {},
      then: (status) => ({
        nextPollAt: nextReadAt(
          status,
          tracker.createdAt,
          now,
          shop,
          deps.policy ?? defaultPollPolicy,
          deps.random,
        ),
        pollFailures: 0,
      }),
    });
    stored ||= result.stored;
  }
  return stored ? 'applied' : 'stale';
}

async function failedOnce(
  deps: ApplyPushDeps,
  token: string,
  row: StatusPush,
  now: Date,
  error: unknown,
  stats: ApplyPushStats,
): Promise<void> {
  const attempts = row.attempts + 1;
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 300);
  const giveUp = attempts >= maxAttempts;
  if (giveUp) {
    stats.failed++;
    statusPushes.inc({ outcome: 'failed' });
  }
  deps.logger.warn({ pushId: row.id, attempts }, 'status push not applied');
  await deps.prisma.statusPush.updateMany({
    where: { id: row.id, leaseOwner: token },
    data: {
      state: giveUp ? 'failed' : 'pending',
      attempts,
      error: message,
      nextAttemptAt: new Date(now.getTime() + backoffDelayMs(attempts, backoffPolicies.storeEvent)),
      leaseOwner: null,
      leaseExpiresAt: null,
    },
  });
}

/** Deletes pushes applied, stale or dropped longer ago than the retention. */
export async function pruneStatusPushes(prisma: DatabaseClient, now: Date = new Date()): Promise<number> {
  const { count } = await prisma.statusPush.deleteMany({
    where: {
      state: { in: ['applied', 'stale', 'dropped'] },
      processedAt: { lt: new Date(now.getTime() - pushRetentionMs) },
    },
  });
  return count;
}
