import type { DatabaseClient } from '../db/client.js';
import { insertRows, sqlTimestamp } from '../db/insert-rows.js';
import { queryRows, SqlParams } from '../db/sql.js';
import { nowOf } from '../lib/clock.js';
import type { Logger } from '../logger.js';
import { transitStartOf } from './delivery-facts.js';
import { minTransitSamples, transitKeyOf } from './estimates.js';
import { type Detection, detectProblems, problemRulesOf } from './problems.js';
import { storedEventsOf } from './status.js';
import { newRowId } from '../lib/row-id.js';

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
  /** Called with the problems just opened, after they are written (the worker's Flow trigger). */
  onOpened?: (db: DatabaseClient, problemIds: readonly string[]) => Promise<unknown>;
}

export interface ProblemSweepStats {
  evaluated: number;
  opened: number;
  closed: number;
}

const claimMs = 5 * 60_000;

export async function sweepProblems(deps: ProblemSweepDeps, limit: number): Promise<ProblemSweepStats> {
  const now = nowOf(deps);
  const claimedUntil = new Date(now.getTime() + claimMs);
  const ids = await claimDue(deps.prisma, now, claimedUntil, limit);
  if (ids.length === 0) return { evaluated: 0, opened: 0, closed: 0 };
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
      problems: { where: { closedAt: null }, select: { id: true, kind: true, since: true } },
    },
  });
  // Evaluated by another process meanwhile, or made due again by a status change: left to that.
  const claimed = trackers.filter((t) => t.problemCheckAt?.getTime() === claimedUntil.getTime());
  const usual = await usualTransits(deps.prisma, claimed);
  const detections = claimed.map((tracker) => ({
    tracker,
    detection: detectProblems(
      {
        ...tracker,
        transitStartedAt: new Date(transitStartOf(storedEventsOf(tracker.events), tracker.createdAt)),
        usualTransitP90Seconds: usual.get(transitKeyText(transitKeyOf(tracker))) ?? null,
      },
      { timezone: tracker.shop.timezone, rules: problemRulesOf(tracker.shop.problemRules) },
      now,
    ),
  }));
  const { openedIds, ...stats } = await writeDetections(deps.prisma, detections, now, claimedUntil);
  if (openedIds.length > 0 && deps.onOpened) await deps.onOpened(deps.prisma, openedIds);
  if (stats.opened + stats.closed > 0) deps.logger.info(stats, 'shipment problems opened and closed');
  return stats;
}

const transitKeyText = (k: { shopId: string; provider: string; destinationCountry: string }) =>
  `${k.shopId}\u0000${k.provider}\u0000${k.destinationCountry}`;

/**
 * The 90th percentile transit of each (shop, carrier, country) of the batch, where it has the samples a
 * figure needs: one read of TransitStat by primary key for the batch's few keys.
 */
async function usualTransits(
  prisma: DatabaseClient,
  trackers: ReadonlyArray<{ shopId: string; provider: string; destinationCountry: string | null }>,
): Promise<Map<string, number>> {
  const keys = new Map(trackers.map((t) => [transitKeyText(transitKeyOf(t)), transitKeyOf(t)]));
  if (keys.size === 0) return new Map();
  const rows = await prisma.transitStat.findMany({
    where: { OR: [...keys.values()], samples: { gte: minTransitSamples } },
    select: { shopId: true, provider: true, destinationCountry: true, p90Seconds: true },
  });
  return new Map(rows.map((r) => [transitKeyText(r), r.p90Seconds]));
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

interface Evaluated {
  tracker: { id: string; shopId: string; problems: { id: string; kind: string; since: Date }[] };
  detection: Detection;
}

/**
 * The batch's detections in one transaction of a few statements: the next checks of the trackers still
 * claimed (one statement), then only for those the problems closed (one statement per reason) and opened
 * (one insert, skipping any another process wrote first).
 */
async function writeDetections(
  prisma: DatabaseClient,
  evaluated: readonly Evaluated[],
  now: Date,
  claimedUntil: Date,
): Promise<ProblemSweepStats & { openedIds: string[] }> {
  if (evaluated.length === 0) return { evaluated: 0, opened: 0, closed: 0, openedIds: [] };
  const key = (p: { kind: string; since: Date }) => `${p.kind} ${p.since.getTime()}`;
  return prisma.$transaction(async (tx) => {
    const p = SqlParams.for(tx);
    const values = evaluated
      .map(
        (e) =>
          `(${p.text(e.tracker.id)}, ${p.value(e.detection.nextCheckAt ? sqlTimestamp(e.detection.nextCheckAt, p.provider) : null, 'timestamp(3)')})`,
      )
      .join(', ');
    const still = await queryRows<{ id: string }>(
      tx,
      `WITH v ("id", "next") AS (VALUES ${values}) UPDATE "Tracker" SET "problemCheckAt" = (SELECT v."next" FROM v WHERE v."id" = "Tracker"."id") WHERE "id" IN (SELECT v."id" FROM v) AND "problemCheckAt" = ${p.time(claimedUntil)} RETURNING "id"`,
      p,
    );
    const held = new Set(still.map((r) => r.id));
    const closing = new Map<string, string[]>();
    const fresh = [];
    for (const { tracker, detection } of evaluated) {
      if (!held.has(tracker.id)) continue;
      const wanted = new Set(detection.open.map(key));
      const have = new Set(tracker.problems.map(key));
      const gone = tracker.problems.filter((x) => !wanted.has(key(x))).map((x) => x.id);
      if (gone.length > 0)
        closing.set(detection.closeReason, [...(closing.get(detection.closeReason) ?? []), ...gone]);
      for (const x of detection.open) {
        if (have.has(key(x))) continue;
        fresh.push({
          id: newRowId(),
          shopId: tracker.shopId,
          trackerId: tracker.id,
          kind: x.kind,
          since: x.since,
          detail: x.detail?.slice(0, 500) ?? null,
          openedAt: now,
        });
      }
    }
    let closed = 0;
    for (const [reason, ids] of closing) {
      const { count } = await tx.shipmentProblem.updateMany({
        where: { id: { in: ids }, closedAt: null },
        data: { closedAt: now, closedReason: reason },
      });
      closed += count;
    }
    const opened = await insertRows(tx, 'ShipmentProblem', fresh, {
      skipConflictsOn: ['trackerId', 'kind', 'since'],
    });
    return { evaluated: held.size, opened: opened.length, closed, openedIds: opened };
  });
}
