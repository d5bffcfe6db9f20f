import type { DatabaseClient } from '../db/client.js';
import { insertRows } from '../db/insert-rows.js';
import { inTransaction } from '../db/transaction.js';
import { nowOf } from '../lib/clock.js';
import type { Logger } from '../logger.js';
import { transitStartOf } from './delivery-facts.js';
import { minTransitSamples, transitKeyOf } from './estimates.js';
import { type Detection, detectProblems, problemRulesOf } from './problems.js';
import { storedEventsOf } from './status.js';
import { newRowId } from '../lib/row-id.js';
import {
  claimDueProblemChecks,
  closeProblems,
  setNextProblemChecks,
  trackersToEvaluate,
  usualTransitStats,
} from './queries/problem-sweep.js';

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
  const ids = await claimDueProblemChecks(deps.prisma, now, claimedUntil, limit);
  if (ids.length === 0) return { evaluated: 0, opened: 0, closed: 0 };
  const trackers = await trackersToEvaluate(deps.prisma, ids);
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
  const rows = await usualTransitStats(prisma, [...keys.values()], minTransitSamples);
  return new Map(rows.map((r) => [transitKeyText(r), r.p90Seconds]));
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
  return inTransaction(prisma, async (tx) => {
    const still = await setNextProblemChecks(
      tx,
      evaluated.map((e) => ({ id: e.tracker.id, nextCheckAt: e.detection.nextCheckAt })),
      claimedUntil,
    );
    const held = new Set(still);
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
      closed += await closeProblems(tx, ids, now, reason);
    }
    const opened = await insertRows(tx, 'ShipmentProblem', fresh, {
      skipConflictsOn: ['trackerId', 'kind', 'since'],
    });
    return { evaluated: held.size, opened: opened.length, closed, openedIds: opened };
  });
}
