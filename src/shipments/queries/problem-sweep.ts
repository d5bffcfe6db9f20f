import type { DatabaseClient, Tx } from '../../db/client.js';
import { sqlTimestamp } from '../../db/insert-rows.js';
import { queryRows, SqlParams } from '../../db/sql.js';

/** The problem sweep's reads and writes (src/shipments/problem-sweep.ts): its claim, its trackers, its writes. */

/**
 * Claims up to `limit` trackers due an evaluation, the most overdue first: their `problemCheckAt` moved to
 * `claimedUntil` in one statement (on PostgreSQL skipping rows another sweep holds). Their ids.
 */
export async function claimDueProblemChecks(
  prisma: DatabaseClient,
  now: Date,
  claimedUntil: Date,
  limit: number,
): Promise<string[]> {
  const p = SqlParams.for(prisma);
  const until = p.time(claimedUntil);
  const due = p.time(now);
  const pick = `SELECT "id" FROM "Tracker" WHERE "problemCheckAt" <= ${due} ORDER BY "problemCheckAt" LIMIT ${p.int(limit)}${p.provider === 'postgresql' ? ' FOR UPDATE SKIP LOCKED' : ''}`;
  const rows = await queryRows<{ id: string }>(
    prisma,
    `UPDATE "Tracker" SET "problemCheckAt" = ${until} WHERE "id" IN (${pick}) RETURNING "id"`,
    p,
  );
  return rows.map((r) => r.id);
}

/**
 * What the sweep reads of its claimed trackers: the parcel, its shop's rules, its open problems and those
 * the sweep itself closed since `closedSince` (an episode they may continue).
 */
export function trackersToEvaluate(
  prisma: DatabaseClient,
  ids: string[],
  closedSince: Date,
  closedBy: readonly string[],
) {
  return prisma.tracker.findMany({
    where: { id: { in: ids } },
    select: {
      id: true,
      shopId: true,
      desired: true,
      remote: true,
      status: true,
      statusDetail: true,
      estimatedDelivery: true,
      predictedDelivery: true,
      lastEventAt: true,
      lastEventMessage: true,
      syncedAt: true,
      createdAt: true,
      provider: true,
      destinationCountry: true,
      events: true,
      problemCheckAt: true,
      shop: { select: { timezone: true, problemRules: true } },
      problems: {
        where: {
          OR: [{ closedAt: null }, { closedAt: { gte: closedSince }, closedReason: { in: [...closedBy] } }],
        },
        select: { id: true, kind: true, since: true, closedAt: true },
      },
    },
  });
}

/** The transit statistics of these keys that have enough samples: their 90th percentile. */
export function usualTransitStats(
  prisma: DatabaseClient,
  keys: Array<{ shopId: string; provider: string; destinationCountry: string }>,
  minSamples: number,
): Promise<Array<{ shopId: string; provider: string; destinationCountry: string; p90Seconds: number }>> {
  return prisma.transitStat.findMany({
    where: { OR: keys, samples: { gte: minSamples } },
    select: { shopId: true, provider: true, destinationCountry: true, p90Seconds: true },
  });
}

/**
 * Sets each tracker's next check, only where the sweep still holds it (`problemCheckAt` is its claim):
 * the ids still held.
 */
export async function setNextProblemChecks(
  tx: Tx,
  next: ReadonlyArray<{ id: string; nextCheckAt: Date | null }>,
  claimedUntil: Date,
): Promise<string[]> {
  const p = SqlParams.for(tx);
  const values = next
    .map(
      (e) =>
        `(${p.text(e.id)}, ${p.value(e.nextCheckAt ? sqlTimestamp(e.nextCheckAt, p.provider) : null, 'timestamp(3)')})`,
    )
    .join(', ');
  const still = await queryRows<{ id: string }>(
    tx,
    `WITH v ("id", "next") AS (VALUES ${values}) UPDATE "Tracker" SET "problemCheckAt" = (SELECT v."next" FROM v WHERE v."id" = "Tracker"."id") WHERE "id" IN (SELECT v."id" FROM v) AND "problemCheckAt" = ${p.time(claimedUntil)} RETURNING "id"`,
    p,
  );
  return still.map((r) => r.id);
}

/** Closes these problems (those still open) with a reason: how many. */
export async function closeProblems(tx: Tx, ids: string[], now: Date, reason: string): Promise<number> {
  const { count } = await tx.shipmentProblem.updateMany({
    where: { id: { in: ids }, closedAt: null },
    data: { closedAt: now, closedReason: reason },
  });
  return count;
}

/**
 * Opens these closed problems again (an episode continuing), those still closed by one of these reasons:
 * how many. Their `openedAt` and `since` stay: the episode is not new.
 */
export async function reopenProblems(tx: Tx, ids: string[], closedBy: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { count } = await tx.shipmentProblem.updateMany({
    where: { id: { in: ids }, closedAt: { not: null }, closedReason: { in: [...closedBy] } },
    data: { closedAt: null, closedReason: null },
  });
  return count;
}
