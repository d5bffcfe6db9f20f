import type { DatabaseClient, Tx } from '../db/client.js';
import { SqlParams } from '../db/sql.js';
import type { DatabaseProvider } from '../db/provider.js';
import { providerOf } from '../db/provider-of.js';
import type { Logger } from '../logger.js';
import { yieldToEventLoop } from '../lib/yield-to-event-loop.js';

/**
 * Bounded storage: one mechanism deletes what the app no longer needs, each kind of row described once as
 * data (`retentionRules`), every delete in batches of at most `batchSize` rows:
 *
 * - a batch is one short statement, `DELETE … WHERE "id" IN (SELECT … LIMIT n)` (or, where rows of several
 *   tables go together, a few statements in one short transaction), its pick served by an index so that it
 *   reads little more than the rows it takes. On PostgreSQL a pick locks what it takes and skips rows another
 *   transaction holds (`FOR UPDATE … SKIP LOCKED`): it never waits on, nor holds up, the app's own writes,
 *   and two workers running retention at once take different rows.
 * - a pass runs each rule until a batch comes back short, or for at most `maxBatches` batches (the rest waits
 *   for the next pass), and yields to the event loop after every batch: on SQLite the process that serves
 *   intake runs these too, and a batch holds it for a few milliseconds.
 *
 * What is kept, and why (README, "Retention"):
 * - webhook deliveries: the duplicate window (RETENTION_DELIVERY_DAYS) after their last attempt, since their
 *   (shop, topic, event id) key is what refuses a duplicate; failed ones RETENTION_FAILED_DELIVERY_DAYS (for
 *   an operator to retry); pending ones always. Status pushes alike (their dedupe key is the push's content).
 * - store fulfilment events written or skipped: RETENTION_STORE_EVENT_DAYS after they were queued. Every read
 *   of a tracker (poll, push, the merchant's or a shopper's look) queues its history's changes again (the
 *   newest few: src/shipments/read-bounds.ts) and relies on the rows' unique key to skip those queued
 *   before, so deleting a written row would have the next read queue it, and the store get it, twice. Hence the tracker keeps the newest event time whose
 *   rows were deleted (`storeEventsThrough`), raised in the same transaction as the delete, and the insert
 *   of store events writes no change at or before it (`storeEventNotRetired` in src/shipments/read-bounds.ts, checked by the statement
 *   itself under a share lock of the tracker on PostgreSQL, so a read that loaded the tracker before the
 *   delete cannot slip through). Pending, sending and failed rows (refused writes, shown on the page) stay
 *   as long as their tracker.
 * - trackers, their lines and fulfilments: RETENTION_TRACKER_DAYS after the tracker's last write, once it has
 *   ended: nothing left to do at the service (not pending), no read scheduled (final, removed, or no longer
 *   followed), no lease held. Lines first (a tracker's deletion would otherwise leave its lines looking
 *   unmapped), then trackers with no line left (their store events go with them). Fulfilments are swept
 *   oldest first: one quiet for the retention with no line left goes, with its tracking-link row, which
 *   stays as long as the fulfilment does: it alone says the store holds the app's link (for turning the
 *   setting off; the carrier's own link is the line's trackingUrl).
 * - the shoppers' page's counters (visitors' failed lookups, shops' counts a minute): once they expire, a day
 *   after they last counted anything.
 */

const day = 24 * 3_600_000;

export interface RetentionSettings {
  /** Processed webhook deliveries and applied (stale, dropped) status pushes: the duplicate window. */
  deliveryMs: number;
  /** Failed deliveries and pushes. */
  failedDeliveryMs: number;
  /** Store fulfilment events written or skipped. */
  storeEventMs: number;
  /** Ended trackers (their lines, fulfilments, tracking links), counted from their last write. */
  trackerMs: number;
  /** Rows per batch. */
  batchSize: number;
  /** Batches per rule per pass. */
  maxBatches: number;
}

export const defaultRetention: RetentionSettings = {
  deliveryMs: 7 * day,
  failedDeliveryMs: 30 * day,
  storeEventMs: 30 * day,
  trackerMs: 400 * day,
  // About 10 ms a statement on SQLite on an idle machine (a status push with its body, a line with its rollup
  // triggers): well inside the 50 ms the process may be held (bench/storage.ts measures it).
  batchSize: 200,
  // 10 000 rows a rule a pass, a pass a minute: far more than a busy fleet writes; a backlog waits longer.
  maxBatches: 50,
};

/** After a sweep has caught up, it starts again from the oldest this long after it began. */
const sweepRestartMs = day;

/** The times a pass compares with, named in the rules' SQL as `:now`, `:delivery`, … */
interface PassTimes {
  now: Date;
  delivery: Date;
  failed: Date;
  storeEvent: Date;
  tracker: Date;
}

/**
 * Rows picked by an index and deleted, one statement a batch: `pick` selects their ids over the table
 * aliased `q` (trusted SQL written here only; `:name` for the pass's times); the mechanism adds `LIMIT`
 * and, on PostgreSQL, the row locks.
 */
export interface PickRule {
  name: string;
  table: string;
  pick: string;
}

/**
 * Rows of several tables that go together: each batch selects keys (`keys`, or a `sweep`), then runs `then`
 * on them (`:ids`) in one transaction. A batch is full when its DELETEs removed `batchSize` rows (a sweep:
 * when it visited `batchSize` keys).
 */
export interface KeyedRule {
  name: string;
  /** The batch's keys as "id": trusted SQL given the batch's size and provider. */
  keys?: (batchSize: number, provider: DatabaseProvider) => string;
  /**
   * Instead of `keys`: the table's rows oldest first by `column` (up to the pass time `before`), from a
   * cursor the process keeps. For rows whose end depends on other tables (a fulfilment ends when its last
   * line has gone): a pick would read those still waiting again at every batch, a sweep once per sweep.
   */
  sweep?: { table: string; column: string; before: keyof PassTimes };
  then: string[];
}

export type RetentionRule = PickRule | KeyedRule;

/** Ended: nothing left to do at the service, no read scheduled, no lease held (a dead worker's has run out). */
const ended = (t: string) =>
  `${t}."updatedAt" < :tracker AND ${t}."syncState" <> 'pending' AND ${t}."nextPollAt" IS NULL
    AND (${t}."leaseExpiresAt" IS NULL OR ${t}."leaseExpiresAt" < :now)
    AND (${t}."pollLeaseExpiresAt" IS NULL OR ${t}."pollLeaseExpiresAt" < :now)`;

/**
 * Store events written or skipped long enough ago. `ofTracker`: of one tracker, looked up by its key; the
 * state is then compared as an expression, or SQLite (without statistics) walks the (state, nextAttemptAt)
 * index over every done row instead, for each tracker.
 */
const doneEvents = (q: string, ofTracker = false) =>
  `${ofTracker ? `(${q}."state" || '')` : `${q}."state"`} IN ('sent', 'skipped') AND ${q}."nextAttemptAt" < :storeEvent`;

const sweptFulfillments = `SELECT f."shopId", f."fulfillmentId" FROM "Fulfillment" AS f WHERE f."id" IN (:ids)`;
const noLines = (f: string) =>
  `NOT EXISTS (SELECT 1 FROM "TrackingLine" AS l WHERE l."shopId" = ${f}."shopId" AND l."fulfillmentId" = ${f}."fulfillmentId")`;

/**
 * Every rule, in the order a pass runs them. The deliveries', pushes' and store events' picks use the
 * (state, nextAttemptAt) index each table has for its queue: a row's nextAttemptAt is its last attempt (the
 * time it arrived, unless retried), so a row goes the retention after it was last worked on. No ORDER BY:
 * which due rows a batch takes does not matter, and an IN list of states would make the database sort
 * them all first.
 */
export const retentionRules: readonly RetentionRule[] = [
  {
    name: 'deliveries',
    table: 'WebhookDelivery',
    pick: `SELECT q."id" FROM "WebhookDelivery" AS q WHERE q."state" = 'processed' AND q."nextAttemptAt" < :delivery`,
  },
  {
    name: 'failedDeliveries',
    table: 'WebhookDelivery',
    pick: `SELECT q."id" FROM "WebhookDelivery" AS q WHERE q."state" = 'failed' AND q."nextAttemptAt" < :failed`,
  },
  {
    name: 'statusPushes',
    table: 'StatusPush',
    pick: `SELECT q."id" FROM "StatusPush" AS q WHERE q."state" IN ('applied', 'stale', 'dropped') AND q."nextAttemptAt" < :delivery`,
  },
  {
    name: 'failedStatusPushes',
    table: 'StatusPush',
    pick: `SELECT q."id" FROM "StatusPush" AS q WHERE q."state" = 'failed' AND q."nextAttemptAt" < :failed`,
  },
  {
    // Flow triggers sent or no longer wanted, then failed ones (src/flow/send-flow-events.ts).
    name: 'flowEvents',
    table: 'FlowEvent',
    pick: `SELECT q."id" FROM "FlowEvent" AS q WHERE q."state" IN ('sent', 'skipped') AND q."nextAttemptAt" < :delivery`,
  },
  {
    name: 'failedFlowEvents',
    table: 'FlowEvent',
    pick: `SELECT q."id" FROM "FlowEvent" AS q WHERE q."state" = 'failed' AND q."nextAttemptAt" < :failed`,
  },
  {
    // Past digests (one per shop, channel and day: src/notifications/send-digests.ts), once failures would be.
    name: 'digestRuns',
    table: 'DigestRun',
    pick: `SELECT q."id" FROM "DigestRun" AS q WHERE q."createdAt" < :failed`,
  },
  {
    // The shoppers' page's counters once they say nothing (src/proxy/lookup-limits.ts).
    name: 'lookupLimits',
    table: 'LookupLimit',
    pick: `SELECT q."id" FROM "LookupLimit" AS q WHERE q."expiresAt" < :now`,
  },
  {
    // A batch: the trackers of up to batchSize done rows (locked first on PostgreSQL, as a read's insert
    // locks them, so the two never deadlock), their mark raised, then their done rows deleted.
    name: 'storeEvents',
    keys: (n, provider) =>
      provider === 'postgresql'
        ? `SELECT t."id" FROM "Tracker" AS t WHERE t."id" IN (SELECT q."trackerId" FROM "StoreFulfillmentEvent" AS q WHERE ${doneEvents('q')} LIMIT ${n}) ORDER BY t."id" FOR UPDATE OF t SKIP LOCKED`
        : `SELECT DISTINCT d."trackerId" AS "id" FROM (SELECT q."trackerId" FROM "StoreFulfillmentEvent" AS q WHERE ${doneEvents('q')} LIMIT ${n}) AS d`,
    then: [
      // Only ever raised: a row written late (an old change that waited) may be older than the mark.
      `UPDATE "Tracker" SET "storeEventsThrough" = (SELECT MAX(q."happenedAt") FROM "StoreFulfillmentEvent" AS q
        WHERE q."trackerId" = "Tracker"."id" AND ${doneEvents('q', true)})
        WHERE "id" IN (:ids) AND EXISTS (SELECT 1 FROM "StoreFulfillmentEvent" AS q WHERE q."trackerId" = "Tracker"."id"
          AND ${doneEvents('q', true)} AND ("Tracker"."storeEventsThrough" IS NULL OR q."happenedAt" > "Tracker"."storeEventsThrough"))`,
      `DELETE FROM "StoreFulfillmentEvent" WHERE "trackerId" IN (:ids) AND ${doneEvents('"StoreFulfillmentEvent"', true)}
        AND "happenedAt" <= (SELECT t."storeEventsThrough" FROM "Tracker" AS t WHERE t."id" = "StoreFulfillmentEvent"."trackerId")`,
    ],
  },
  {
    name: 'trackerLines',
    table: 'TrackingLine',
    pick: `SELECT q."id" FROM "Tracker" AS t JOIN "TrackingLine" AS q ON q."trackerId" = t."id" WHERE ${ended('t')}`,
  },
  {
    name: 'trackers',
    table: 'Tracker',
    pick: `SELECT q."id" FROM "Tracker" AS q WHERE ${ended('q')}
      AND NOT EXISTS (SELECT 1 FROM "TrackingLine" AS l WHERE l."trackerId" = q."id")`,
  },
  {
    name: 'fulfillments',
    sweep: { table: 'Fulfillment', column: 'updatedAt', before: 'tracker' },
    then: [
      // Lines that never found a tracker (their carrier never mapped) and ended long ago.
      `DELETE FROM "TrackingLine" WHERE ("shopId", "fulfillmentId") IN (${sweptFulfillments})
        AND "trackerId" IS NULL AND "active" = false AND "updatedAt" < :tracker`,
      `DELETE FROM "StoreTrackingLink" WHERE ("shopId", "fulfillmentId") IN (${sweptFulfillments} AND ${noLines('f')})`,
      // The time is checked again on the row itself: a fulfilment updated meanwhile (a new number) stays.
      `DELETE FROM "Fulfillment" WHERE "id" IN (:ids) AND "updatedAt" < :tracker AND ${noLines('"Fulfillment"')}
        AND NOT EXISTS (SELECT 1 FROM "StoreTrackingLink" AS k WHERE k."shopId" = "Fulfillment"."shopId" AND k."fulfillmentId" = "Fulfillment"."fulfillmentId")`,
    ],
  },
];

/** One rule's work in a pass: batches run and rows deleted. */
export interface RuleStats {
  batches: number;
  rows: number;
}

export interface RetentionPass {
  rules: Record<string, RuleStats>;
  /** Every rule finished (a short batch); false: some stopped at maxBatches and continue next pass. */
  done: boolean;
}

export interface Retention {
  readonly settings: RetentionSettings;
  /** One bounded pass over every rule. */
  runPass(options?: { now?: Date; shouldStop?: () => boolean }): Promise<RetentionPass>;
}

/** Builds one statement's parameters in the provider's placeholder style, in the text's order. */
/** One statement's parameters (src/db/sql.ts), with the pass's named times. */
class Params extends SqlParams {
  /** Replaces `:name` (never `::type`) with the pass's times and `:ids` with the given ids. */
  bind(sql: string, times: PassTimes, ids: readonly string[] = []): string {
    return sql.replace(/(?<!:):([a-zA-Z]+)\b/g, (_match, name: string) => {
      if (name === 'ids') return ids.map((id) => this.text(id)).join(', ');
      const time = times[name as keyof PassTimes];
      if (!time) throw new Error(`retention SQL names an unknown time :${name}`);
      return this.time(time);
    });
  }
}

/** A batch's outcome: rows deleted, and whether it was full (another may follow). */
interface Batch {
  deleted: number;
  full: boolean;
}

export function createRetention(
  deps: { prisma: DatabaseClient; logger?: Logger },
  settings: Partial<RetentionSettings> = {},
  rules: readonly RetentionRule[] = retentionRules,
): Retention {
  const config: RetentionSettings = { ...defaultRetention, ...settings };
  const provider = providerOf(deps.prisma);
  /** Per sweep: where it is (the last column value visited) and when it began. */
  const sweeps = new Map<string, { after: Date | null; startedAt: number }>();

  async function pickBatch(rule: PickRule, times: PassTimes): Promise<Batch> {
    const p = new Params(provider);
    const lock = provider === 'postgresql' ? ' FOR UPDATE OF q SKIP LOCKED' : '';
    const pick = `${p.bind(rule.pick, times)} LIMIT ${config.batchSize}${lock}`;
    const deleted = await deps.prisma.$executeRawUnsafe(
      `DELETE FROM "${rule.table}" WHERE "id" IN (${pick})`,
      ...p.values,
    );
    return { deleted, full: deleted >= config.batchSize };
  }

  /** A sweep's next keys: up to batchSize rows after its cursor, oldest first. */
  async function sweepKeys(tx: Tx, rule: KeyedRule & { sweep: object }, times: PassTimes) {
    const { table, column, before } = rule.sweep;
    let state = sweeps.get(rule.name);
    if (!state) sweeps.set(rule.name, (state = { after: null, startedAt: times.now.getTime() }));
    const p = new Params(provider);
    const cutoff = p.time(times[before]);
    const after = state.after ? ` AND q."${column}" > ${p.time(state.after)}` : '';
    const rows = await tx.$queryRawUnsafe<{ id: string; at: Date | string }[]>(
      `SELECT q."id", q."${column}" AS "at" FROM "${table}" AS q WHERE q."${column}" < ${cutoff}${after} ORDER BY q."${column}" LIMIT ${config.batchSize}`,
      ...p.values,
    );
    // Rows sharing the last time with rows not visited yet wait for the next sweep.
    if (rows.length > 0) state.after = new Date(rows.at(-1)!.at);
    // Caught up: what ages past the cutoff from now on lies after the cursor; the rows passed over (a
    // fulfilment whose lines had not gone yet) are visited again by the next sweep, from the oldest.
    if (rows.length < config.batchSize && times.now.getTime() - state.startedAt >= sweepRestartMs)
      sweeps.delete(rule.name);
    return rows.map((r) => r.id);
  }

  async function keyedBatch(rule: KeyedRule, times: PassTimes): Promise<Batch> {
    return deps.prisma.$transaction(async (tx) => {
      let ids: string[];
      if (rule.sweep) ids = await sweepKeys(tx, { ...rule, sweep: rule.sweep }, times);
      else {
        const p = new Params(provider);
        const sql = p.bind(rule.keys!(config.batchSize, provider), times);
        ids = (await tx.$queryRawUnsafe<{ id: string }[]>(sql, ...p.values)).map((r) => r.id);
      }
      let deleted = 0;
      for (const statement of ids.length > 0 ? rule.then : []) {
        const p = new Params(provider);
        const count = await tx.$executeRawUnsafe(p.bind(statement, times, ids), ...p.values);
        if (/^\s*DELETE/.test(statement)) deleted += count;
      }
      return { deleted, full: (rule.sweep ? ids.length : deleted) >= config.batchSize };
    });
  }

  return {
    settings: config,
    async runPass(options = {}) {
      const now = options.now ?? new Date();
      const times: PassTimes = {
        now,
        delivery: new Date(now.getTime() - config.deliveryMs),
        failed: new Date(now.getTime() - config.failedDeliveryMs),
        storeEvent: new Date(now.getTime() - config.storeEventMs),
        tracker: new Date(now.getTime() - config.trackerMs),
      };
      const pass: RetentionPass = { rules: {}, done: true };
      for (const rule of rules) {
        const stats: RuleStats = { batches: 0, rows: 0 };
        pass.rules[rule.name] = stats;
        let full = true;
        while (full && stats.batches < config.maxBatches && !options.shouldStop?.()) {
          const batch = 'pick' in rule ? await pickBatch(rule, times) : await keyedBatch(rule, times);
          stats.batches++;
          stats.rows += batch.deleted;
          full = batch.full;
          // Between batches, whatever waits (a webhook, a service answer) runs.
          await yieldToEventLoop();
        }
        if (full) pass.done = false;
      }
      const deleted = Object.entries(pass.rules).filter(([, r]) => r.rows > 0);
      if (deleted.length > 0)
        deps.logger?.info(Object.fromEntries(deleted.map(([name, r]) => [name, r.rows])), 'retention pass');
      return pass;
    },
  };
}
