import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { DatabaseClient, Tx } from './client.js';
import { type HotPath, hotPathOf, inHotTransaction } from './hot-path.js';
import type { DatabaseProvider } from './provider.js';
import { providerOf } from './provider-of.js';
import { SqlParams } from './sql.js';
import { safeReason } from '../errors/safe-reason.js';
import { type BackoffPolicy, backoffDelayMs } from '../lib/backoff.js';

/**
 * One lease queue for every kind of background work. A queue is a table whose due rows a worker leases
 * for a while (owner token + expiry), works on, and then either completes (its own update, conditional on
 * still holding the lease) or gives back. A queue is described once, as data (see src/db/queues.ts); this
 * module claims, renews, releases and counts for all of them, on both databases:
 *
 * - PostgreSQL: the pick and the lease are one UPDATE whose subquery locks the rows it picks with
 *   `FOR UPDATE SKIP LOCKED`: two workers claiming at the same moment get different rows at once, neither
 *   waits for the other, neither comes back with fewer rows than were due.
 * - SQLite: the same UPDATE without the locking clause. SQLite has one writer at a time, so the statement
 *   is atomic on its own and there is nothing to skip.
 * - Queues of shop-owned rows (`byShop`: tracker syncs, status reads) are claimed shop by shop, so a claim
 *   costs the batch, not the backlog: the database keeps a short list of the shops that may have rows due
 *   and from when (the DueShop table, kept by triggers: src/db/due-shops.ts); a claim reads the shops due
 *   first from it, then at most a few due rows of each through the (shopId, due time) index, locking them as
 *   above, and finally replaces those shops' entries by when each is next due. One big shop never takes a
 *   whole claim (`max` rows of a shop per claim) and a paused shop's backlog is never read: the shop is
 *   looked at once, then again when it may be claimed (its probe, or when it is resumed).
 *
 * Leases are short and renewed by a heartbeat while their holder still works on the rows
 * (`createLeaseHolder`), so the work of a process that died is taken over within one lease, not minutes.
 */

export interface LeaseColumns {
  owner: string;
  expiresAt: string;
}

export interface QueueDescription {
  /** For logs and metrics. */
  name: string;
  /** The table, as in the schema. */
  table:
    | 'WebhookDelivery'
    | 'Tracker'
    | 'BackfillJob'
    | 'StoreFulfillmentEvent'
    | 'StoreTrackingLink'
    | 'StatusPush'
    | 'FlowEvent';
  /** The lease's columns (the Tracker table has a second lease for status reads). */
  lease: LeaseColumns;
  /**
   * When a row is due, in SQL over the table aliased `q`, with `:now` for the claim's time. Trusted SQL
   * written in this codebase only: never built from input. "Lease free" is added by the queue.
   */
  due: string;
  /** Oldest first, in SQL over `q`. */
  orderBy: string;
  /** The column a due row has waited since (for the oldest-due age in metrics). */
  dueSince: string;
  /** Claiming also bumps the row's optimistic-lock `version`. */
  bumpVersion?: boolean;
  /** The table has a Prisma `@updatedAt` column, which raw SQL must set itself. */
  hasUpdatedAt?: boolean;
  /** Rows owned by shops (a `shopId` column), claimed shop by shop: see the module's comment. */
  byShop?: ByShop;
}

/**
 * How a queue of shop-owned rows is claimed shop by shop. `dueSince` is then the row's due time: `due` must be
 * `member AND q."<dueSince>" <= :now`, and the table needs an index on (shopId, dueSince).
 */
export interface ByShop {
  /**
   * When a row is in the queue at all, whenever due (SQL over `q`, without `:now`). The database keeps, per
   * shop, an entry at or before the due time of each such row not leased (src/db/due-shops.ts).
   */
  member: string;
  /** When the shop's rows may be claimed (SQL over the shop, aliased `s`, with `:now`). */
  eligible: string;
  /** When a shop that may not be claimed is to be looked at again (SQL over `s`; NULL: once the shop changes). */
  lookAgainAt: string;
  /** At most this many rows of one shop per claim (default: the claim's limit). */
  max?: number;
}

type Db = DatabaseClient | Tx;

/**
 * A whole client, not a transaction's client. (A transaction's client has a `$transaction` too at runtime,
 * but none of the connection methods.)
 */
function isClient(db: Db): db is DatabaseClient {
  return typeof (db as { $disconnect?: unknown }).$disconnect === 'function';
}

/** One statement's text and parameters in the provider's placeholder style (src/db/sql.ts), with the queues' parts. */
class Statement extends SqlParams {
  /** Trusted SQL with `:now` placeholders. */
  sql(text: string, now: Date): string {
    return text.replaceAll(':now', () => this.time(now));
  }

  /** A list of shop ids as a table `g("shopId")`, in the list's order. */
  shops(ids: readonly string[]): string {
    return this.provider === 'postgresql'
      ? `unnest(${this.value(ids, 'text[]')}) AS g("shopId")`
      : `(SELECT "value" AS "shopId" FROM json_each(${this.value(JSON.stringify(ids), 'text')})) AS g`;
  }

  done(sql: string): SqlStatement {
    return { sql, params: this.values };
  }
}

/** One statement's text and parameters. */
export interface SqlStatement {
  sql: string;
  params: unknown[];
}

function leaseFree(queue: QueueDescription, s: Statement, now: Date): string {
  return `(q."${queue.lease.expiresAt}" IS NULL OR q."${queue.lease.expiresAt}" < ${s.time(now)})`;
}

function touched(queue: QueueDescription, s: Statement, now: Date): string {
  return [
    queue.bumpVersion ? `, "version" = "version" + 1` : '',
    queue.hasUpdatedAt ? `, "updatedAt" = ${s.time(now)}` : '',
  ].join('');
}

const idChunk = 500;

export interface ClaimRequest {
  token: string;
  now: Date;
  leaseMs: number;
  limit: number;
  /** Overrides the queue's `byShop.max` for this claim. */
  perGroupMax?: number;
}

/**
 * Leases up to `limit` due, lease-free rows to `token` (the oldest first; shop by shop for `byShop` queues);
 * returns their ids in no particular order: callers read the rows back in the order they need.
 */
export async function claimDue(db: Db, queue: QueueDescription, request: ClaimRequest): Promise<string[]> {
  if (request.limit <= 0) return [];
  if (queue.byShop) return claimByShop(db, queue, queue.byShop, request);
  const s = new Statement(providerOf(db));
  const { now } = request;
  // Placeholders are numbered (PostgreSQL) or positional (SQLite): every part is built in text order.
  const head = leaseHead(queue, s, request);
  const pick = `SELECT q."id" FROM "${queue.table}" AS q WHERE ${leaseFree(queue, s, now)} AND (${s.sql(queue.due, now)}) ORDER BY ${queue.orderBy} LIMIT ${s.value(request.limit, 'integer')}${s.provider === 'postgresql' ? ' FOR UPDATE OF q SKIP LOCKED' : ''}`;
  const rows = await hotPathOf(db).rows<{ id: string }>(
    `${head} WHERE "id" IN (${pick}) RETURNING "id"`,
    s.values,
  );
  return rows.map((x) => x.id);
}

function leaseHead(queue: QueueDescription, s: Statement, request: ClaimRequest): string {
  const lease = queue.lease;
  return `UPDATE "${queue.table}" SET "${lease.owner}" = ${s.value(request.token, 'text')}, "${lease.expiresAt}" = ${s.time(new Date(request.now.getTime() + request.leaseMs))}${touched(queue, s, request.now)}`;
}

/**
 * Shops a claim may look at beyond one per row it may take: room for shops whose due rows another claim is
 * taking at the same moment (they are skipped).
 */
const spareShops = 32;
/** DueShop entries read per shop it may look at (a shop may have a few). */
const entriesPerShop = 2;

/** How many shops a claim of `limit` rows lists at most. */
function shopsListed(limit: number): number {
  return Math.min(limit + spareShops, 1_000);
}

interface ListedShop {
  shopId: string;
  eligible: boolean;
}

/**
 * A claim by shop: the shops due first (DueShop), then up to `max` due rows of each until `limit` (locked as
 * they are read, so two claimers never take the same row and neither waits), then the shops it read get their
 * entry replaced by when each is next due (or is to be looked at again). PostgreSQL: the last two in one
 * transaction (one commit), which never waits for anyone. SQLite: statement by statement (each is atomic with
 * one writer; a transaction held across awaits would hold the write lock meanwhile, and better-sqlite3 waits
 * for a busy lock synchronously, stalling every connection of the process).
 */
async function claimByShop(
  db: Db,
  queue: QueueDescription,
  byShop: ByShop,
  request: ClaimRequest,
): Promise<string[]> {
  // A claim whose whole list gave nothing (entries of shops whose rows were all done or taken meanwhile)
  // has moved those entries on: it looks again, a bounded number of times, rather than come back empty
  // while rows are due further down the list (the worker would then sleep before its next pass).
  for (let round = 0; round < maxRounds; round++) {
    const { leased, listFull } = await claimByShopOnce(db, queue, byShop, request);
    if (leased.length > 0 || !listFull) return leased;
  }
  return [];
}

const maxRounds = 4;

async function claimByShopOnce(
  db: Db,
  queue: QueueDescription,
  byShop: ByShop,
  request: ClaimRequest,
): Promise<{ leased: string[]; listFull: boolean }> {
  const provider = providerOf(db);
  const list = claimByShopStatements.dueShops(provider, queue, request.now, request.limit);
  const shops = (
    await hotPathOf(db).rows<{ shopId: string; eligible: number | bigint | string }>(list.sql, list.params)
  ).map((row) => ({ shopId: row.shopId, eligible: Number(row.eligible) > 0 }));
  if (shops.length === 0) return { leased: [], listFull: false };
  const eligible = shops.filter((shop) => shop.eligible).map((shop) => shop.shopId);
  const lease = eligible.length > 0 ? claimByShopStatements.lease(provider, queue, eligible, request) : null;
  type Leased = { id: string; shopId: string }[];
  const leaseAndReplace = async (hot: HotPath) => {
    const rows = lease ? await hot.rows<Leased[number]>(lease.sql, lease.params) : [];
    await replaceDueShops(
      hot,
      queue,
      toReplace(shops, rows, request, perShopOf(byShop, request)),
      request.now,
    );
    return rows;
  };
  const leased =
    provider === 'postgresql'
      ? await indexOrdered(db, leaseAndReplace)
      : await leaseAndReplace(hotPathOf(db));
  return { leased: leased.map((row) => row.id), listFull: shops.length >= shopsListed(request.limit) };
}

/**
 * Replaces the DueShop entries of `shopIds` (see claimByShopStatements.replaceDueShops). SQLite: the new
 * entries first, then the ones there before them; a new entry a writer adds meanwhile stays.
 */
async function replaceDueShops(
  hot: HotPath,
  queue: QueueDescription,
  shopIds: string[],
  now: Date,
): Promise<void> {
  if (shopIds.length === 0) return;
  const replace = claimByShopStatements.replaceDueShops(hot.provider, queue, shopIds, now);
  if (hot.provider === 'postgresql') {
    await hot.run(replace.sql, replace.params);
    return;
  }
  const ofShops = `"queue" = ? AND "shopId" IN (SELECT "value" FROM json_each(?))`;
  const shopsJson = JSON.stringify(shopIds);
  const before = await hot.rows<{ id: string }>(`SELECT "id" FROM "DueShop" WHERE ${ofShops}`, [
    queue.name,
    shopsJson,
  ]);
  await hot.run(replace.sql, replace.params);
  if (before.length === 0) return;
  await hot.run(`DELETE FROM "DueShop" WHERE ${ofShops} AND "id" IN (SELECT "value" FROM json_each(?))`, [
    queue.name,
    shopsJson,
    JSON.stringify(before.map((row) => row.id)),
  ]);
}

function perShopOf(byShop: ByShop, request: ClaimRequest): number {
  return Math.min(request.limit, request.perGroupMax ?? byShop.max ?? request.limit);
}

/**
 * The shops whose DueShop entries a claim replaces: those it may not claim from (looked at again later), and
 * those it read that gave fewer than `perShop` rows (nothing left due, or their entry was too early). The rows
 * are read shop by shop in the list's order, so when the claim is full the shops after the last one it took
 * rows of were not read, and that one may have more. A shop that gave `perShop` rows keeps its entry: it is
 * still due, at the latest from there.
 */
function toReplace(
  shops: ListedShop[],
  leased: { shopId: string }[],
  request: ClaimRequest,
  perShop: number,
): string[] {
  const eligible = shops.filter((shop) => shop.eligible).map((shop) => shop.shopId);
  const taken = new Map<string, number>();
  for (const row of leased) taken.set(row.shopId, (taken.get(row.shopId) ?? 0) + 1);
  const lastTaken = eligible.findLastIndex((id) => taken.has(id));
  const read = leased.length >= request.limit ? eligible.slice(0, lastTaken) : eligible;
  return [
    ...shops.filter((shop) => !shop.eligible).map((shop) => shop.shopId),
    ...read.filter((id) => (taken.get(id) ?? 0) < perShop),
  ];
}

/**
 * PostgreSQL: runs `fn` in one transaction (a transaction of its own, or the caller's when `db` is already a
 * transaction's client) with bitmap scans off, for statements whose per-shop subqueries must walk the
 * (shopId, due time) index in order and stop early. The planner, which estimates a few rows per shop, may
 * otherwise pick a bitmap scan that reads all of a big shop's due rows and sorts them (tens of milliseconds
 * for one shop with a large backlog). In the caller's transaction the setting is put back afterwards.
 */
async function indexOrdered<T>(db: Db, fn: (hot: HotPath) => Promise<T>): Promise<T> {
  if (isClient(db)) {
    return inHotTransaction(db, async (hot) => {
      await hot.run('SET LOCAL enable_bitmapscan = off', []);
      return fn(hot);
    });
  }
  const [was] = await db.$queryRawUnsafe<{ v: string }[]>(
    `SELECT current_setting('enable_bitmapscan') AS "v", set_config('enable_bitmapscan', 'off', true)`,
  );
  try {
    return await fn(hotPathOf(db));
  } finally {
    await db.$queryRawUnsafe(`SELECT set_config('enable_bitmapscan', $1, true)`, was?.v ?? 'on');
  }
}

/**
 * The statements of a claim by shop (exported to check their plans on seeded data:
 * test/db/claim-plans.test.ts).
 */
export const claimByShopStatements = {
  /**
   * The shops whose entries are due first, one per row the claim may take and a few more, each with whether
   * its rows may be claimed now (`eligible`: 1 or 0).
   */
  dueShops(provider: DatabaseProvider, queue: QueueDescription, now: Date, limit: number): SqlStatement {
    const byShop = requireByShop(queue);
    const s = new Statement(provider);
    const shops = shopsListed(limit);
    const eligible = `(SELECT COUNT(*) FROM "Shop" AS s WHERE s."id" = h."shopId" AND (${s.sql(byShop.eligible, now)}))`;
    const entries = `SELECT "shopId", "dueAt" FROM "DueShop" WHERE "queue" = ${s.value(queue.name, 'text')} AND "dueAt" <= ${s.time(now)} ORDER BY "dueAt" LIMIT ${s.value(shops * entriesPerShop, 'integer')}`;
    return s.done(
      `SELECT h."shopId" AS "shopId", ${eligible} AS "eligible" FROM (SELECT d."shopId" AS "shopId", MIN(d."dueAt") AS "dueAt" FROM (${entries}) AS d GROUP BY d."shopId") AS h ORDER BY h."dueAt" LIMIT ${s.value(shops, 'integer')}`,
    );
  },

  /**
   * Leases up to `limit` due rows of `shopIds`, taken shop by shop in the list's order, at most `max` of each;
   * returns the rows' id and shopId. PostgreSQL: a LATERAL subquery per shop, locking as it reads (SKIP
   * LOCKED); SQLite (no LATERAL, one writer): a correlated subquery per shop.
   */
  lease(
    provider: DatabaseProvider,
    queue: QueueDescription,
    shopIds: readonly string[],
    request: ClaimRequest,
  ): SqlStatement {
    const byShop = requireByShop(queue);
    const s = new Statement(provider);
    const { now } = request;
    const perShop = perShopOf(byShop, request);
    const head = leaseHead(queue, s, request);
    const shops = s.shops(shopIds);
    const rowsOfShop = `SELECT q."id" FROM "${queue.table}" AS q WHERE q."shopId" = g."shopId" AND ${leaseFree(queue, s, now)} AND (${s.sql(queue.due, now)}) ORDER BY q."${queue.dueSince}" ASC LIMIT ${s.value(perShop, 'integer')}`;
    const pick =
      provider === 'postgresql'
        ? `SELECT c."id" FROM ${shops} CROSS JOIN LATERAL (${rowsOfShop} FOR UPDATE OF q SKIP LOCKED) AS c`
        : `SELECT c."id" FROM ${shops} CROSS JOIN "${queue.table}" AS c WHERE c."id" IN (${rowsOfShop})`;
    return s.done(
      `${head} WHERE "id" IN (${pick} LIMIT ${s.value(request.limit, 'integer')}) RETURNING "id", "shopId"`,
    );
  },

  /**
   * Replaces the DueShop entries of `shopIds` by one each: when its next row not leased is due (if that is
   * later than now and some of its due rows are leased: when the first of those leases ends, in case its
   * holder died), or, for a shop whose rows may not be claimed now, `lookAgainAt`; none when nothing is left.
   * PostgreSQL: one statement, which skips entries a writer holds (they stay: see src/db/due-shops.ts) and
   * sees only entries whose rows it also sees. SQLite: only the insert (the old entries are deleted after it).
   */
  replaceDueShops(
    provider: DatabaseProvider,
    queue: QueueDescription,
    shopIds: readonly string[],
    now: Date,
  ): SqlStatement {
    const byShop = requireByShop(queue);
    const due = `q."${queue.dueSince}"`;
    const leaseEnd = `q."${queue.lease.expiresAt}"`;
    // Per shop, each subquery once (MATERIALIZED: not copied into every place that reads it); built in text
    // order, as SQLite's placeholders are positional.
    const entries = (s: Statement) => {
      const head = `(SELECT ${due} FROM "${queue.table}" AS q WHERE q."shopId" = g."shopId" AND (${byShop.member}) AND ${leaseFree(queue, s, now)} ORDER BY ${due} ASC LIMIT 1)`;
      const eligible = `(SELECT COUNT(*) FROM "Shop" AS s WHERE s."id" = g."shopId" AND (${s.sql(byShop.eligible, now)}))`;
      const shops = s.shops(shopIds);
      const x = `SELECT g."shopId" AS "shopId", ${head} AS "head", ${eligible} AS "eligible" FROM ${shops}`;
      const headDue = `x."head" <= ${s.time(now)}`;
      const leasedEnd = `SELECT MIN(${leaseEnd}) FROM "${queue.table}" AS q WHERE q."shopId" = x."shopId" AND (${byShop.member}) AND ${due} <= ${s.time(now)} AND ${leaseEnd} >= ${s.time(now)}`;
      const lookAgainAt = `(SELECT ${byShop.lookAgainAt} FROM "Shop" AS s WHERE s."id" = x."shopId")`;
      const later = s.provider === 'postgresql' ? `CAST(${lookAgainAt} AS timestamp(3))` : lookAgainAt;
      const next = `SELECT x."shopId" AS "shopId", CASE WHEN x."eligible" > 0 THEN CASE WHEN ${headDue} THEN x."head" ELSE (SELECT MIN(m."at") FROM (SELECT x."head" AS "at" UNION ALL ${leasedEnd}) AS m) END ELSE ${later} END AS "dueAt" FROM "x"`;
      return `"x" AS MATERIALIZED (${x}), "n" AS MATERIALIZED (${next})`;
    };
    const insert = (s: Statement) => {
      const queueName = s.value(queue.name, 'text');
      const id = s.provider === 'postgresql' ? 'gen_random_uuid()::text' : 'lower(hex(randomblob(16)))';
      return `INSERT INTO "DueShop" ("id", "queue", "shopId", "dueAt") SELECT ${id}, ${queueName}, n."shopId", n."dueAt" FROM "n" WHERE n."dueAt" IS NOT NULL`;
    };
    if (provider === 'postgresql') {
      const s = new Statement(provider);
      // By the locked rows' ctid: a TID scan, whatever the planner makes of the list's size.
      const held = `SELECT d."ctid" FROM "DueShop" AS d WHERE d."queue" = ${s.value(queue.name, 'text')} AND d."shopId" = ANY(${s.value(shopIds, 'text[]')}) FOR UPDATE SKIP LOCKED`;
      const gone = `DELETE FROM "DueShop" WHERE "ctid" = ANY(ARRAY(${held}))`;
      return s.done(`WITH "gone" AS (${gone}), ${entries(s)} ${insert(s)}`);
    }
    const s = new Statement(provider);
    return s.done(`WITH ${entries(s)} ${insert(s)}`);
  },
};

function requireByShop(queue: QueueDescription): ByShop {
  if (!queue.byShop) throw new Error(`Queue ${queue.name} is not claimed by shop`);
  return queue.byShop;
}

/** Extends the lease of those of `ids` still held by `token`; returns the ids still held. */
export async function renewLeases(
  db: Db,
  queue: QueueDescription,
  token: string,
  ids: readonly string[],
  expiresAt: Date,
): Promise<string[]> {
  const held: string[] = [];
  for (let start = 0; start < ids.length; start += idChunk) {
    const s = new Statement(providerOf(db));
    const rows = await hotPathOf(db).rows<{ id: string }>(
      `UPDATE "${queue.table}" SET "${queue.lease.expiresAt}" = ${s.time(expiresAt)} WHERE "${queue.lease.owner}" = ${s.value(token, 'text')} AND "id" ${s.inTexts(ids.slice(start, start + idChunk))} RETURNING "id"`,
      s.values,
    );
    for (const row of rows) held.push(row.id);
  }
  return held;
}

/** Gives back those of `ids` still held by `token`, untouched otherwise; returns how many. */
export async function releaseLeases(
  db: Db,
  queue: QueueDescription,
  token: string,
  ids: readonly string[],
  now: Date = new Date(),
): Promise<number> {
  let released = 0;
  for (let start = 0; start < ids.length; start += idChunk) {
    const s = new Statement(providerOf(db));
    released += await hotPathOf(db).run(
      `UPDATE "${queue.table}" SET "${queue.lease.owner}" = NULL, "${queue.lease.expiresAt}" = NULL${touched(queue, s, now)} WHERE "${queue.lease.owner}" = ${s.value(token, 'text')} AND "id" ${s.inTexts(ids.slice(start, start + idChunk))}`,
      s.values,
    );
  }
  return released;
}

export interface QueueDepth {
  /** Rows due now and not leased, counted up to the cap (at the cap: at least that many). */
  due: number;
  /** How long the oldest of the rows counted has waited, in seconds (0 when none). */
  oldestDueAgeS: number;
}

/** Rows a depth count reads at most: a count costs the same whatever the backlog. */
export const defaultDepthCap = 100_000;

/**
 * The statement of queueDepth: how many rows of a queue are due (at most `cap`) and the oldest due time
 * (exported to check its plan on seeded data: test/db/claim-plans.test.ts).
 */
export function queueDepthStatement(
  provider: DatabaseProvider,
  queue: QueueDescription,
  now: Date,
  cap: number,
): SqlStatement {
  const s = new Statement(provider);
  let rows: string;
  if (queue.byShop) {
    const entries = `SELECT "shopId" FROM "DueShop" WHERE "queue" = ${s.value(queue.name, 'text')} AND "dueAt" <= ${s.time(now)} ORDER BY "dueAt" LIMIT ${s.value(cap, 'integer')}`;
    const shops = `SELECT h."shopId" FROM (SELECT DISTINCT d."shopId" AS "shopId" FROM (${entries}) AS d) AS h WHERE EXISTS (SELECT 1 FROM "Shop" AS s WHERE s."id" = h."shopId" AND (${s.sql(queue.byShop.eligible, now)}))`;
    const ofShop = `q."shopId" = g."shopId" AND ${leaseFree(queue, s, now)} AND (${s.sql(queue.due, now)})`;
    const at = `q."${queue.dueSince}"`;
    rows =
      s.provider === 'postgresql'
        ? `SELECT r."at" FROM (${shops}) AS g CROSS JOIN LATERAL (SELECT ${at} AS "at" FROM "${queue.table}" AS q WHERE ${ofShop} ORDER BY ${at} LIMIT ${s.value(cap, 'integer')}) AS r`
        : `SELECT ${at} AS "at" FROM (${shops}) AS g CROSS JOIN "${queue.table}" AS q WHERE ${ofShop}`;
  } else {
    rows = `SELECT q."${queue.dueSince}" AS "at" FROM "${queue.table}" AS q WHERE ${leaseFree(queue, s, now)} AND (${s.sql(queue.due, now)})`;
  }
  return s.done(
    `SELECT COUNT(*) AS "n", MIN(c."at") AS "oldest" FROM (${rows} LIMIT ${s.value(cap, 'integer')}) AS c`,
  );
}

/**
 * How many rows are due and since when, reading at most `cap` of them (through the due-time index; for a
 * `byShop` queue, shop by shop from the DueShop list, so a paused shop's backlog is not read).
 */
export async function queueDepth(
  db: Db,
  queue: QueueDescription,
  now: Date = new Date(),
  cap: number = defaultDepthCap,
): Promise<QueueDepth> {
  const provider = providerOf(db);
  const count = queueDepthStatement(provider, queue, now, cap);
  type Found = { n: number | bigint | string; oldest: string | Date | null };
  const read = (hot: HotPath) => hot.rows<Found>(count.sql, count.params);
  // Shop by shop on PostgreSQL: each shop's rows through the index, stopping at the cap (see indexOrdered).
  const found =
    queue.byShop && provider === 'postgresql' ? await indexOrdered(db, read) : await read(hotPathOf(db));
  const row = found[0];
  const oldest = row?.oldest ? new Date(row.oldest) : null;
  return {
    due: Number(row?.n ?? 0),
    oldestDueAgeS: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
  };
}

/** A row's (default) lease columns cleared: written with the row's outcome, it gives the row back. */
export const leaseGivenBack = { leaseOwner: null, leaseExpiresAt: null } as const;

/** What a failed attempt at a held row writes (with its lease given back). */
export interface FailedAttempt {
  state: 'pending' | 'failed';
  attempts: number;
  error: string;
  nextAttemptAt: Date;
  leaseOwner: null;
  leaseExpiresAt: null;
}

/**
 * A failed attempt at a held row, by its kind of work's policy: the attempt counted, the reason kept, and the
 * row due again after the policy's delay, or failed for good after its last attempt. The caller writes it
 * with its own conditional update (`where` the row is still held by its token).
 */
export function failedAttempt(
  row: { attempts: number },
  reason: string,
  policy: BackoffPolicy,
  now: Date = new Date(),
): { giveUp: boolean; data: FailedAttempt } {
  const attempts = row.attempts + 1;
  const giveUp = attempts >= policy.maxAttempts;
  return {
    giveUp,
    data: {
      state: giveUp ? 'failed' : 'pending',
      attempts,
      error: reason,
      nextAttemptAt: new Date(now.getTime() + backoffDelayMs(attempts, policy)),
      ...leaseGivenBack,
    },
  };
}

/** Lease length and heartbeat, settable by env (WORKER_LEASE_MS, WORKER_LEASE_RENEW_MS). */
export interface LeaseTiming {
  leaseMs: number;
  /** How often held leases are renewed; default a third of the lease. */
  renewEveryMs?: number;
}

export const defaultLeaseTiming: Required<LeaseTiming> = { leaseMs: 15_000, renewEveryMs: 5_000 };

/**
 * A process's hold on one queue: one token for all it claims, a heartbeat that renews the leases of the
 * rows it still works on, and the knowledge of whether a lease can still be relied on (a holder whose
 * heartbeat stalled, e.g. a blocked event loop, must not start a call another process may be making).
 */
export interface LeaseHolder {
  readonly queue: QueueDescription;
  readonly token: string;
  readonly leaseMs: number;
  /** Leases up to `limit` due rows, the oldest first; returns their ids (in no particular order). */
  claim(limit: number, options?: { now?: Date; perGroupMax?: number }): Promise<string[]>;
  /** The row's lease is this holder's and has not run out as far as this process knows. */
  holds(id: string): boolean;
  /** Stops renewing these rows: done (completed by their own update) or left leased on purpose. */
  forget(ids: Iterable<string>): void;
  /** Gives back rows not worked on. */
  release(ids: readonly string[]): Promise<number>;
  /** Renews now (the heartbeat calls this); returns how many rows are still held. */
  renew(): Promise<number>;
  /** Ends the heartbeat and gives back every row still held. */
  close(): Promise<void>;
}

/**
 * What every consumer of a queue works with: the database, a logger, who it is (in lease tokens), its hold on
 * the queue and a clock. A consumer's own deps add only its clients and its policy.
 */
export interface QueueWork {
  prisma: DatabaseClient;
  logger: Logger;
  /** Identifies this process in leases. */
  owner: string;
  /** The worker's hold on the queue (renewed while it works); without it, one made per pass. */
  leases?: LeaseHolder;
  /** Lease length of a holder made for one pass. */
  leaseMs?: number;
  now?: () => Date;
}

/**
 * A queue whose rows are sent to one of the store's APIs (fulfilment events, tracking links, Flow
 * triggers): the queue's work, the API (a port), and how many attempts a row gets.
 */
export interface ApiQueueWork<Api> extends QueueWork {
  api: Api;
  maxAttempts?: number;
}

/**
 * Runs one pass over a queue with the worker's holder or, when there is none (a test, the CLI), with a
 * holder made for the pass and closed after it, which gives back whatever it still holds.
 */
export async function withPassLeases<T>(
  /** The worker's holder, or what to make one from. */
  deps: Pick<QueueWork, 'prisma' | 'leases' | 'leaseMs' | 'now'> &
    Partial<Pick<QueueWork, 'owner' | 'logger'>>,
  queue: QueueDescription,
  pass: (leases: LeaseHolder) => Promise<T>,
): Promise<T> {
  if (deps.leases) return pass(deps.leases);
  const leases = createLeaseHolder(deps.prisma, queue, {
    owner: deps.owner ?? 'worker',
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.leaseMs ? { timing: { leaseMs: deps.leaseMs } } : {}),
    ...(deps.now ? { now: deps.now } : {}),
  });
  try {
    return await pass(leases);
  } finally {
    await leases.close();
  }
}

export function createLeaseHolder(
  db: DatabaseClient,
  queue: QueueDescription,
  options: { owner: string; timing?: LeaseTiming; logger?: Logger; now?: () => Date },
): LeaseHolder {
  const leaseMs = options.timing?.leaseMs ?? defaultLeaseTiming.leaseMs;
  const renewEveryMs = options.timing?.renewEveryMs ?? Math.max(1, Math.floor(leaseMs / 3));
  const clock = options.now ?? (() => new Date());
  const token = `${options.owner}:${queue.name}:${randomUUID()}`;
  /** Held rows and until when their lease is known to run (by this process's clock). */
  const held = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;
  let renewing: Promise<number> | null = null;

  const schedule = () => {
    if (timer || held.size === 0) return;
    timer = setInterval(() => {
      void holder.renew().catch((error: unknown) => {
        options.logger?.warn(
          { queue: queue.name, err: safeReason(error) },
          'lease renewal failed; will try again',
        );
      });
    }, renewEveryMs);
    timer.unref();
  };
  const unschedule = () => {
    if (timer && held.size === 0) {
      clearInterval(timer);
      timer = null;
    }
  };

  const holder: LeaseHolder = {
    queue,
    token,
    leaseMs,
    async claim(limit, claimOptions = {}) {
      // Counted from before the statement: never longer than the lease really runs.
      const until = Date.now() + leaseMs;
      const now = claimOptions.now ?? clock();
      const ids = await claimDue(db, queue, {
        token,
        now,
        leaseMs,
        limit,
        ...(claimOptions.perGroupMax === undefined ? {} : { perGroupMax: claimOptions.perGroupMax }),
      });
      for (const id of ids) held.set(id, until);
      schedule();
      return ids;
    },
    holds(id) {
      const until = held.get(id);
      return until !== undefined && Date.now() < until;
    },
    forget(ids) {
      for (const id of ids) held.delete(id);
      unschedule();
    },
    async release(ids) {
      holder.forget(ids);
      return ids.length === 0 ? 0 : releaseLeases(db, queue, token, ids, clock());
    },
    renew() {
      renewing ??= (async () => {
        try {
          const ids = [...held.keys()];
          if (ids.length === 0) return 0;
          const started = Date.now();
          const still = new Set(
            await renewLeases(db, queue, token, ids, new Date(clock().getTime() + leaseMs)),
          );
          let lost = 0;
          for (const id of ids) {
            if (!held.has(id)) continue; // finished while the renewal ran
            if (still.has(id)) held.set(id, started + leaseMs);
            else {
              held.delete(id);
              lost++;
            }
          }
          if (lost > 0) {
            options.logger?.warn(
              { queue: queue.name, count: lost },
              'leases lost; another process has the rows',
            );
          }
          unschedule();
          return held.size;
        } finally {
          renewing = null;
        }
      })();
      return renewing;
    },
    async close() {
      const ids = [...held.keys()];
      held.clear();
      unschedule();
      // A renewal still running would meet the release on the same rows: on PostgreSQL it keeps them locked
      // (rechecked, not updated) until it ends, so a claim right after the close would skip them.
      await renewing?.catch(() => undefined);
      if (ids.length > 0) await releaseLeases(db, queue, token, ids, clock());
    },
  };
  return holder;
}
