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
  reopenProblems,
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
 *
 * One problem per episode, whatever the parcel's status does meanwhile: a kind still raised stays open
 * (a new event of the same trouble does not close it and open another), and a kind raised again within
 * `problemEpisodeGapMs` of the sweep closing it opens that row again (its `openedAt` and `since` kept), so
 * a flapping status (a carrier feed, pushes in the wrong hands) opens one problem, not one per flip: no new
 * problem in the digest or on Slack, no Flow trigger again. What the merchant closed (handled, the rule
 * switched off) is never reopened.
 */

/** A problem the sweep closed that is raised again within this long continues its episode. */
export const problemEpisodeGapMs = 24 * 3_600_000;

/** The reasons the sweep closes a problem for (the merchant's are `handled` and `rule_off`). */
const sweepCloseReasons = ['moved', 'delivered', 'ended'] as const;

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
  /** Closed problems opened again: their episode continues (no new problem). */
  reopened: number;
}

const claimMs = 5 * 60_000;

export async function sweepProblems(deps: ProblemSweepDeps, limit: number): Promise<ProblemSweepStats> {
  const now = nowOf(deps);
  const claimedUntil = new Date(now.getTime() + claimMs);
  const ids = await claimDueProblemChecks(deps.prisma, now, claimedUntil, limit);
  if (ids.length === 0) return { evaluated: 0, opened: 0, closed: 0, reopened: 0 };
  const trackers = await trackersToEvaluate(
    deps.prisma,
    ids,
    new Date(now.getTime() - problemEpisodeGapMs),
    sweepCloseReasons,
  );
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
  if (stats.opened + stats.closed + stats.reopened > 0)
    deps.logger.info(stats, 'shipment problems opened and closed');
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
  tracker: {
    id: string;
    shopId: string;
    /** Its open problems, and those the sweep closed within the episode gap. */
    problems: { id: string; kind: string; since: Date; closedAt: Date | null }[];
  };
  detection: Detection;
}

/**
 * The batch's detections in one transaction of a few statements: the next checks of the trackers still
 * claimed (one statement), then only for those the problems closed (one statement per reason), reopened
 * (one statement) and opened (one insert, skipping any another process wrote first).
 */
async function writeDetections(
  prisma: DatabaseClient,
  evaluated: readonly Evaluated[],
  now: Date,
  claimedUntil: Date,
): Promise<ProblemSweepStats & { openedIds: string[] }> {
  if (evaluated.length === 0) return { evaluated: 0, opened: 0, closed: 0, reopened: 0, openedIds: [] };
  return inTransaction(prisma, async (tx) => {
    const still = await setNextProblemChecks(
      tx,
      evaluated.map((e) => ({ id: e.tracker.id, nextCheckAt: e.detection.nextCheckAt })),
      claimedUntil,
    );
    const held = new Set(still);
    const closing = new Map<string, string[]>();
    const reopening: string[] = [];
    const fresh = [];
    for (const { tracker, detection } of evaluated) {
      if (!held.has(tracker.id)) continue;
      const wantedKinds = new Set<string>(detection.open.map((x) => x.kind));
      const open = tracker.problems.filter((x) => x.closedAt === null);
      const openKinds = new Set(open.map((x) => x.kind));
      // A kind still raised keeps its open problem (the episode goes on, whatever its new `since`).
      const gone = open.filter((x) => !wantedKinds.has(x.kind)).map((x) => x.id);
      if (gone.length > 0)
        closing.set(detection.closeReason, [...(closing.get(detection.closeReason) ?? []), ...gone]);
      for (const x of detection.open) {
        if (openKinds.has(x.kind)) continue;
        // Closed by the sweep a short while ago: the same episode, opened again (the latest closed one).
        const recent = tracker.problems
          .filter((p) => p.closedAt !== null && p.kind === x.kind)
          .sort((a, b) => b.closedAt!.getTime() - a.closedAt!.getTime())[0];
        if (recent) {
          reopening.push(recent.id);
          continue;
        }
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
    const reopened = await reopenProblems(tx, reopening, sweepCloseReasons);
    const opened = await insertRows(tx, 'ShipmentProblem', fresh, {
      skipConflictsOn: ['trackerId', 'kind', 'since'],
    });
    return { evaluated: held.size, opened: opened.length, closed, reopened, openedIds: opened };
  });
}
