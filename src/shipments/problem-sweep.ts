import { randomUUID } from 'node:crypto';
import type { DatabaseClient } from '../db/client.js';
import { insertRows } from '../db/insert-rows.js';
import { queryRows, SqlParams } from '../db/sql.js';
import { nowOf } from '../lib/clock.js';
import type { Logger } from '../logger.js';
import { type Detection, detectProblems, problemRulesOf } from './problems.js';

/**
 * The problem sweep: evaluates the shipments due (`Tracker.problemCheckAt`), opens what is new and closes
 * what has gone. A status read or push and a desired change make a tracker due at once; a waiting rule makes
 * it due when it could fire. So a pass costs its batch, whatever the shop's size, and nothing is looked at
 * twice for nothing.
 *
 * Claiming pushes the batch's `problemCheckAt` a few minutes ahead (the claim's lease: a process that dies
 * leaves them due again then); the result is written only where that claim still stands, so a status
 * change meanwhile (which set it to now) is evaluated again next pass. Two processes never open a problem
 * twice: one row per (tracker, kind, since), inserted skipping conflicts.
 */

export interface ProblemSweepDeps {
  prisma: DatabaseClient;
  logger: Logger;
  now?: () => Date;
}

export interface ProblemSweepStats {
  evaluated: number;
  opened: number;
  closed: number;
}

const claimMs = 5 * 60_000;

export async function sweepProblems(deps: ProblemSweepDeps, limit: number): Promise<ProblemSweepStats> {
  const stats: ProblemSweepStats = { evaluated: 0, opened: 0, closed: 0 };
  const now = nowOf(deps);
  const claimedUntil = new Date(now.getTime() + claimMs);
  const ids = await claimDue(deps.prisma, now, claimedUntil, limit);
  if (ids.length === 0) return stats;
  const trackers = await deps.prisma.tracker.findMany({
    where: { id: { in: ids } },
    select: {
      id: true,
      shopId: true,
      desired: true,
      remote: true,
      status: true,
      statusDetail: true,
      estimatedDelivery: true,
      lastEventAt: true,
      lastEventMessage: true,
      syncedAt: true,
      createdAt: true,
      problemCheckAt: true,
      shop: { select: { timezone: true, problemRules: true } },
      problems: { where: { closedAt: null }, select: { id: true, kind: true, since: true } },
    },
  });
  for (const tracker of trackers) {
    // Evaluated by another process meanwhile, or made due again by a status change: left to that.
    if (tracker.problemCheckAt?.getTime() !== claimedUntil.getTime()) continue;
    const detection = detectProblems(
      tracker,
      { timezone: tracker.shop.timezone, rules: problemRulesOf(tracker.shop.problemRules) },
      now,
    );
    const { opened, closed } = await writeDetection(deps.prisma, tracker, detection, now, claimedUntil);
    stats.evaluated++;
    stats.opened += opened;
    stats.closed += closed;
  }
  if (stats.opened + stats.closed > 0) deps.logger.info(stats, 'shipment problems opened and closed');
  return stats;
}

/** Pushes up to `limit` due trackers' check time to `claimedUntil`; returns their ids. */
async function claimDue(
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

/** One tracker's problems as detected, and its next check, in one transaction (only if still claimed). */
async function writeDetection(
  prisma: DatabaseClient,
  tracker: { id: string; shopId: string; problems: { id: string; kind: string; since: Date }[] },
  detection: Detection,
  now: Date,
  claimedUntil: Date,
): Promise<{ opened: number; closed: number }> {
  const key = (p: { kind: string; since: Date }) => `${p.kind} ${p.since.getTime()}`;
  const wanted = new Set(detection.open.map(key));
  const have = new Set(tracker.problems.map(key));
  const gone = tracker.problems.filter((p) => !wanted.has(key(p))).map((p) => p.id);
  const fresh = detection.open.filter((p) => !have.has(key(p)));
  return prisma.$transaction(async (tx) => {
    const { count: still } = await tx.tracker.updateMany({
      where: { id: tracker.id, problemCheckAt: claimedUntil },
      data: { problemCheckAt: detection.nextCheckAt },
    });
    if (still === 0) return { opened: 0, closed: 0 };
    const { count: closed } =
      gone.length === 0
        ? { count: 0 }
        : await tx.shipmentProblem.updateMany({
            where: { id: { in: gone }, closedAt: null },
            data: { closedAt: now, closedReason: detection.closeReason },
          });
    const opened = await insertRows(
      tx,
      'ShipmentProblem',
      fresh.map((p) => ({
        id: randomUUID(),
        shopId: tracker.shopId,
        trackerId: tracker.id,
        kind: p.kind,
        since: p.since,
        detail: p.detail?.slice(0, 500) ?? null,
        openedAt: now,
      })),
      { skipConflictsOn: ['trackerId', 'kind', 'since'] },
    );
    return { opened: opened.length, closed };
  });
}
