import type { DatabaseClient, Tx } from '../../db/client.js';
import type { DatabaseProvider } from '../../db/provider.js';
import { SqlParams } from '../../db/sql.js';

/**
 * Retention's statements (src/jobs/retention.ts runs them, a batch at a time): each kind of row described
 * once as data, and the few statements that pick, sweep and delete them.
 */

/** The times a pass compares with, named in the rules' SQL as `:now`, `:delivery`, … */
export interface PassTimes {
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
  `${ofTracker ? `(${q}."state" || '')` : `${q}."state"`} IN ('sent', 'skipped', 'superseded') AND ${q}."nextAttemptAt" < :storeEvent`;

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

/** A pick rule's batch, one statement: deletes up to `batchSize` rows its pick selects; the count deleted. */
export function deletePicked(
  prisma: DatabaseClient,
  provider: DatabaseProvider,
  rule: PickRule,
  times: PassTimes,
  batchSize: number,
): Promise<number> {
  const p = new Params(provider);
  const lock = provider === 'postgresql' ? ' FOR UPDATE OF q SKIP LOCKED' : '';
  const pick = `${p.bind(rule.pick, times)} LIMIT ${batchSize}${lock}`;
  return prisma.$executeRawUnsafe(`DELETE FROM "${rule.table}" WHERE "id" IN (${pick})`, ...p.values);
}

/** A sweep's next rows: up to `batchSize` of its table's rows after `after`, oldest first by its column. */
export function sweepRows(
  tx: Tx,
  provider: DatabaseProvider,
  sweep: NonNullable<KeyedRule['sweep']>,
  times: PassTimes,
  after: Date | null,
  batchSize: number,
): Promise<{ id: string; at: Date | string }[]> {
  const { table, column, before } = sweep;
  const p = new Params(provider);
  const cutoff = p.time(times[before]);
  const afterSql = after ? ` AND q."${column}" > ${p.time(after)}` : '';
  return tx.$queryRawUnsafe<{ id: string; at: Date | string }[]>(
    `SELECT q."id", q."${column}" AS "at" FROM "${table}" AS q WHERE q."${column}" < ${cutoff}${afterSql} ORDER BY q."${column}" LIMIT ${batchSize}`,
    ...p.values,
  );
}

/** A keyed rule's keys for one batch (its `keys`). */
export async function keyedRuleIds(
  tx: Tx,
  provider: DatabaseProvider,
  rule: KeyedRule,
  times: PassTimes,
  batchSize: number,
): Promise<string[]> {
  const p = new Params(provider);
  const sql = p.bind(rule.keys!(batchSize, provider), times);
  return (await tx.$queryRawUnsafe<{ id: string }[]>(sql, ...p.values)).map((r) => r.id);
}

/** A keyed rule's statements (`then`) over a batch's keys, in order: the rows its DELETEs removed. */
export async function runKeyedStatements(
  tx: Tx,
  provider: DatabaseProvider,
  rule: KeyedRule,
  times: PassTimes,
  ids: readonly string[],
): Promise<number> {
  let deleted = 0;
  for (const statement of ids.length > 0 ? rule.then : []) {
    const p = new Params(provider);
    const count = await tx.$executeRawUnsafe(p.bind(statement, times, ids), ...p.values);
    if (/^\s*DELETE/.test(statement)) deleted += count;
  }
  return deleted;
}
