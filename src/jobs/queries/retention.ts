import type { DatabaseClient, Tx } from '../../db/client.js';
import type { DatabaseProvider } from '../../db/provider.js';
import { SqlParams } from '../../db/sql.js';
import { statusClassSql } from '../../shipments/status-classes.js';

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
  /**
   * Runs until its batches come back short (up to `catchUpBatches` a pass) instead of `maxBatches`: for rows
   * written at a rate no setting bounds (the shoppers' page's counters, one per visitor address), so that the
   * work of a pass grows with what expired since the last one, still a statement of `batchSize` rows at a time.
   */
  catchUp?: boolean;
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
  /**
   * Of a sweep's keys (`:ids`), those the batch takes: trusted SQL selecting "id", given the provider (on
   * PostgreSQL it locks them, skipping rows another transaction holds). `then` runs on these only.
   */
  take?: (provider: DatabaseProvider) => string;
  then: string[];
}

export type RetentionRule = PickRule | KeyedRule;

/**
 * Settled: a tracker the app has no work left for, quiet since the retention's cutoff. Each condition keeps
 * a kind of open work:
 * - wanted and actual state agree, and nothing failed on the way: synced (not pending, failed nor dead: a
 *   failed or dead tracker is on the merchant's health line until retried), and either wanted removed and
 *   absent at the service, or wanted and present with a final status (delivered, returned, ended, …). A
 *   tracker wanted removed but still at the service, or still wanted whose polling gave up before a final
 *   status, stays: the service still holds it, and only this row remembers it.
 * - no read scheduled, no problem evaluation due, no lease held (a dead worker's has run out);
 * - no store write pending, being sent or refused (refused ones are on the attention list), no open problem
 *   shown to the merchant, and no tracking-link write of one of its fulfilments pending or refused.
 * The subqueries read the tracker's own rows by their trackerId (fulfilment) keys: a batch's cost.
 */
const settled = (t: string) =>
  `${t}."updatedAt" < :tracker AND ${t}."syncState" = 'synced'
    AND ((${t}."desired" = 'removed' AND ${t}."remote" = 'absent')
      OR (${t}."desired" = 'active' AND ${t}."remote" = 'present' AND ${statusClassSql(`${t}."status"`, `${t}."statusDetail"`, 'final')}))
    AND ${t}."nextPollAt" IS NULL AND ${t}."problemCheckAt" IS NULL
    AND (${t}."leaseExpiresAt" IS NULL OR ${t}."leaseExpiresAt" < :now)
    AND (${t}."pollLeaseExpiresAt" IS NULL OR ${t}."pollLeaseExpiresAt" < :now)
    AND NOT EXISTS (SELECT 1 FROM "StoreFulfillmentEvent" AS e WHERE e."trackerId" = ${t}."id" AND (e."state" || '') NOT IN ('sent', 'skipped', 'superseded'))
    AND NOT EXISTS (SELECT 1 FROM "ShipmentProblem" AS p WHERE p."trackerId" = ${t}."id" AND p."closedAt" IS NULL)
    AND NOT EXISTS (SELECT 1 FROM "TrackingLine" AS l JOIN "StoreTrackingLink" AS k ON k."shopId" = l."shopId" AND k."fulfillmentId" = l."fulfillmentId"
      WHERE l."trackerId" = ${t}."id" AND (k."state" || '') NOT IN ('sent', 'skipped'))`;

/**
 * A tracking-link row whose write is done (written, or nothing to write). The state compared as an
 * expression: the rows are found by their fulfilment's key, where SQLite (without statistics) would walk
 * the (state, nextAttemptAt) index over every written link instead.
 */
const linkDone = (k: string) => `(${k}."state" || '') IN ('sent', 'skipped')`;

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
    // The shoppers' page's counters once they say nothing (src/proxy/lookup-limits.ts): every expired one each
    // pass, whatever the rate visitors' addresses come in.
    name: 'lookupLimits',
    table: 'LookupLimit',
    // In the index's order: a flood's rows deleted by earlier batches (dead until vacuumed) are then passed
    // over in the index, where a scan of the table (all rows due) would read them again at every batch.
    pick: `SELECT q."id" FROM "LookupLimit" AS q WHERE q."expiresAt" < :now ORDER BY q."expiresAt"`,
    catchUp: true,
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
    // Trackers swept oldest first by their last write (a cursor the process keeps): one kept (open work) is
    // read once a sweep, not at every batch. A batch takes the settled ones of its keys (locked on
    // PostgreSQL, as a read's store-event insert locks them), then their lines and them, in one transaction
    // (their store events, done, and closed problems go with them).
    name: 'trackers',
    sweep: { table: 'Tracker', column: 'updatedAt', before: 'tracker' },
    take: (provider) =>
      `SELECT t."id" FROM "Tracker" AS t WHERE t."id" IN (:ids) AND ${settled('t')}` +
      (provider === 'postgresql' ? ` ORDER BY t."id" FOR UPDATE OF t SKIP LOCKED` : ''),
    then: [
      `DELETE FROM "TrackingLine" WHERE "trackerId" IN (:ids)`,
      `DELETE FROM "Tracker" WHERE "id" IN (:ids)`,
    ],
  },
  {
    name: 'fulfillments',
    sweep: { table: 'Fulfillment', column: 'updatedAt', before: 'tracker' },
    then: [
      // Lines that never found a tracker (their carrier never mapped) and ended long ago. Found by their
      // fulfilment's key: `"trackerId" IS NULL` as an expression, or SQLite walks the trackerId index over
      // every line still waiting for a carrier mapping, at every batch.
      `DELETE FROM "TrackingLine" WHERE ("shopId", "fulfillmentId") IN (${sweptFulfillments})
        AND ("trackerId" || '') IS NULL AND "active" = false AND "updatedAt" < :tracker`,
      // A tracking link still to write, or refused (shown on the overview), stays, and its fulfilment with it.
      `DELETE FROM "StoreTrackingLink" WHERE ("shopId", "fulfillmentId") IN (${sweptFulfillments} AND ${noLines('f')})
        AND ${linkDone('"StoreTrackingLink"')}`,
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

/** Where a sweep is: the last row visited, by its column and id. */
export interface SweepCursor {
  at: Date;
  id: string;
}

/**
 * A sweep's next rows: up to `batchSize` of its table's rows after `after`, oldest first by (column, id), on
 * the table's (column, id) index: rows sharing a time (a bulk update gives thousands the same) are visited
 * one batch after another, none passed over.
 */
export function sweepRows(
  tx: Tx,
  provider: DatabaseProvider,
  sweep: NonNullable<KeyedRule['sweep']>,
  times: PassTimes,
  after: SweepCursor | null,
  batchSize: number,
): Promise<{ id: string; at: Date | string }[]> {
  const { table, column, before } = sweep;
  const p = new Params(provider);
  const cutoff = p.time(times[before]);
  const afterSql = after ? ` AND (q."${column}", q."id") > (${p.time(after.at)}, ${p.text(after.id)})` : '';
  return tx.$queryRawUnsafe<{ id: string; at: Date | string }[]>(
    `SELECT q."id", q."${column}" AS "at" FROM "${table}" AS q WHERE q."${column}" < ${cutoff}${afterSql} ORDER BY q."${column}", q."id" LIMIT ${batchSize}`,
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

/** Of a sweep's keys, those its rule's `take` selects (and on PostgreSQL locks). */
export async function takenKeys(
  tx: Tx,
  provider: DatabaseProvider,
  rule: KeyedRule,
  times: PassTimes,
  ids: readonly string[],
): Promise<string[]> {
  if (!rule.take || ids.length === 0) return [...ids];
  const p = new Params(provider);
  const sql = p.bind(rule.take(provider), times, ids);
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
