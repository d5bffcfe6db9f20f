import { handlesInUse } from '../flow/queries/flow-events.js';
import { yieldToEventLoop } from '../lib/yield-to-event-loop.js';
import { queueShipmentChanges } from '../flow/queue-triggers.js';
import { nowOf } from '../lib/clock.js';
import { failedAttempt, type QueueWork } from '../db/lease-queue.js';
import { runQueuePass } from '../db/queue-pass.js';
import { statusPushQueue } from '../db/queues.js';
import type { StatusPush } from '../generated/sqlite/client.js';
import { backoffPolicies } from '../lib/backoff.js';
import { statusPushes } from '../observability/metrics.js';
import { type ReadStoredHook, storeShipmentRead } from '../shipments/poll-statuses.js';
import { withoutFutureEvents } from '../shipments/read-bounds.js';
import { isFinalStatus } from '../shipments/status-table.js';
import { defaultPollPolicy, nextReadAt, type PollPolicy, statusFromShipment } from '../shipments/status.js';
import type { Shipment } from '../tracking/types.js';
import { parsePush } from './payload.js';
import { closePushes, leasedPushes, recordPushAttempt, wantedTrackersByNumber } from './queries/pushes.js';
import { noteStatusPushesUntil } from '../shops/shop-repository.js';
import { safeReason } from '../errors/safe-reason.js';

/**
 * Applies recorded status pushes, a claimed batch at a time, through the same path as a poll
 * (storeShipmentRead: the stored status and history, one store fulfilment event per change, the shoppers'
 * page). A push about a
 * tracker the shop does not have (or no longer wants) is dropped and counted; one older than what is
 * stored changes nothing (storeShipmentRead never writes older over newer), so pushes arriving out of
 * order leave the newest state. After a push, the tracker's next read is the safety net's.
 */

export interface ApplyPushDeps extends QueueWork {
  policy?: PollPolicy;
  random?: () => number;
}

export interface ApplyPushStats {
  claimed: number;
  applied: number;
  stale: number;
  dropped: number;
  failed: number;
}

export async function applyStatusPushes(deps: ApplyPushDeps, limit: number): Promise<ApplyPushStats> {
  const stats: ApplyPushStats = { claimed: 0, applied: 0, stale: 0, dropped: 0, failed: 0 };
  const now = nowOf(deps);
  return runQueuePass(deps, {
    queue: statusPushQueue,
    limit,
    now,
    none: stats,
    load: (ids, token) => leasedPushes(deps.prisma, ids, token),
    act: async (rows, leases) => {
      stats.claimed = rows.length;
      const byShop = new Map<string, StatusPush[]>();
      for (const row of rows) byShop.set(row.shopId, [...(byShop.get(row.shopId) ?? []), row]);
      for (const [shopId, shopRows] of byShop)
        await applyShop(deps, leases.token, shopId, shopRows, now, stats);
      return stats;
    },
  });
}

type Parsed = { row: StatusPush; shipment: Shipment; lastEventAt: number; final: boolean };

/**
 * One shop's claimed pushes: its trackers read at once, and per tracker only the newest push applied (its
 * history holds every earlier one's events, so their store events are queued too); the earlier ones are
 * closed as stale without a write of their own. A burst of a tracker's successive events costs one write.
 */
async function applyShop(
  deps: ApplyPushDeps,
  token: string,
  shopId: string,
  rows: StatusPush[],
  now: Date,
  stats: ApplyPushStats,
): Promise<void> {
  // The shop's pushes arrive: its polling becomes the safety net (src/shipments/status.ts). One write per
  // shop and pass, here rather than on intake's path.
  const newest = new Date(Math.max(...rows.map((r) => r.receivedAt.getTime())));
  await noteStatusPushesUntil(deps.prisma, shopId, newest);
  const parsed: Parsed[] = [];
  const outcomes: Record<'applied' | 'stale' | 'dropped', string[]> = { applied: [], stale: [], dropped: [] };
  for (const row of rows) {
    const push = parsePush(row.payload);
    if (!push.ok) {
      outcomes.dropped.push(row.id);
      continue;
    }
    // Ranked as storeShipmentRead will see it: a far-future date must not make a push the newest.
    const status = statusFromShipment(withoutFutureEvents(push.shipment, now).shipment);
    parsed.push({
      row,
      shipment: push.shipment,
      lastEventAt: status.lastEventAt?.getTime() ?? -Infinity,
      final: isFinalStatus(status.status),
    });
  }
  const numbers = [
    ...new Set(
      parsed.flatMap((p) => [
        p.shipment.trackingNumber.trim(),
        p.shipment.trackingNumber.trim().toUpperCase(),
      ]),
    ),
  ];
  const trackers = numbers.length === 0 ? [] : await wantedTrackersByNumber(deps.prisma, shopId, numbers);
  // Each tracker's pushes, newest last (by latest event, a final status after another at the same instant,
  // then event count, then arrival).
  const perTracker = new Map<string, { tracker: (typeof trackers)[number]; pushes: Parsed[] }>();
  for (const p of parsed) {
    const number = p.shipment.trackingNumber.trim().toUpperCase();
    const matching = trackers.filter(
      (t) =>
        t.trackingNumber.toUpperCase() === number &&
        (p.shipment.trackingProvider === null || t.provider === p.shipment.trackingProvider),
    );
    if (matching.length === 0) outcomes.dropped.push(p.row.id);
    for (const tracker of matching) {
      const entry = perTracker.get(tracker.id) ?? { tracker, pushes: [] };
      entry.pushes.push(p);
      perTracker.set(tracker.id, entry);
    }
  }
  const failed = new Set<string>();
  // The shop's Flow triggers in use, read once for its trackers, not once per tracker stored.
  const inUse = perTracker.size > 0 ? await handlesInUse(deps.prisma, shopId) : new Set<string>();
  const onStored: ReadStoredHook = (db, stored, before, after) =>
    queueShipmentChanges(db, stored, before, after, new Date(), inUse);
  for (const { tracker, pushes } of perTracker.values()) {
    pushes.sort(
      (a, b) =>
        a.lastEventAt - b.lastEventAt ||
        Number(a.final) - Number(b.final) ||
        a.shipment.events.length - b.shipment.events.length ||
        a.row.receivedAt.getTime() - b.row.receivedAt.getTime(),
    );
    const newest = pushes.at(-1)!;
    // The shop's pushes arrive (this one did): the next read is the safety net's.
    const shop = { ...tracker.shop, lastStatusPushAt: newest.row.receivedAt };
    try {
      const result = await storeShipmentRead({ ...deps, onStored }, tracker, newest.shipment, now, {
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
      (result.stored ? outcomes.applied : outcomes.stale).push(newest.row.id);
      for (const p of pushes.slice(0, -1)) outcomes.stale.push(p.row.id);
      // Pushes arriving meanwhile are taken in between, before the next parcel's write: accepting them comes
      // first (on SQLite a pass is otherwise one unbroken chain of synchronous statements).
      await yieldToEventLoop();
    } catch (error) {
      for (const p of pushes) {
        failed.add(p.row.id);
        await failedOnce(deps, token, p.row, now, error, stats);
      }
    }
  }
  // A push matching two trackers (no provider given) counts once, by its best outcome.
  const seen = new Set<string>(failed);
  for (const outcome of ['applied', 'stale', 'dropped'] as const) {
    const ids = [...new Set(outcomes[outcome])].filter((id) => !seen.has(id));
    ids.forEach((id) => seen.add(id));
    if (ids.length === 0) continue;
    stats[outcome] += ids.length;
    statusPushes.inc({ outcome: outcome === 'dropped' ? 'dropped_unknown_tracker' : outcome }, ids.length);
    await closePushes(deps.prisma, ids, token, outcome);
  }
}

async function failedOnce(
  deps: ApplyPushDeps,
  token: string,
  row: StatusPush,
  now: Date,
  error: unknown,
  stats: ApplyPushStats,
): Promise<void> {
  const { giveUp, data } = failedAttempt(row, safeReason(error), backoffPolicies.statusPush, now);
  if (giveUp) {
    stats.failed++;
    statusPushes.inc({ outcome: 'failed' });
  }
  deps.logger.warn({ pushId: row.id, attempts: data.attempts }, 'status push not applied');
  await recordPushAttempt(deps.prisma, row.id, token, data);
}
