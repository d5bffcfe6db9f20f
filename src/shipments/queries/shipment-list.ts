import type { DatabaseClient } from '../../db/client.js';
import { countOf, dateOf, queryRows, SqlParams } from '../../db/sql.js';
import type { Tracker, TrackingLine } from '../../generated/sqlite/client.js';
import type { ParcelGroup, SyncState } from '../status-table.js';

/**
 * The shipments list's queries, for the admin API, the CSV export and the CLI: one row per line (a number
 * on a fulfilment), newest first, paged by keyset on (createdAt, id), filtered on the lines' own
 * parcelGroup / syncState columns (kept by triggers: src/shipments/rollups.ts) through the indexes
 * (shopId, parcelGroup|syncState, createdAt, id), and counted from the ShipmentCount rollup. No query
 * here reads more rows than a page needs, whatever the shop's size, but a search (exact or prefix on
 * indexed columns) whose matches are few by nature.
 */

/** What the list shows: the filters as the API took them. */
export interface ShipmentFilter {
  search?: string | undefined;
  /** Any of these parcel groups (none: all). */
  parcel?: readonly ParcelGroup[] | undefined;
  /** Any of these sync states (none: all). */
  sync?: readonly SyncState[] | undefined;
  /**
   * Instead of parcel × sync: any of these (parcel group, sync state) pairs, null for any (the lines that
   * need the merchant are such a set: see needsActionCells in src/ui/vocabulary.ts).
   */
  cells?: ReadonlyArray<{ parcel: ParcelGroup | null; sync: SyncState | null }> | undefined;
  /** UTC days, inclusive: YYYY-MM-DD. */
  from?: string | undefined;
  to?: string | undefined;
}

/** A position in the list: the last row seen. */
export interface ShipmentCursor {
  createdAt: Date;
  id: string;
}

export type LineWithTracker = TrackingLine & { tracker: Tracker | null };

const dayMs = 86_400_000;

function searchSpellings(search: string): string[] {
  // Numbers are stored as the store sent them (usually upper case): try the usual spellings.
  return [...new Set([search, search.toUpperCase(), search.toLowerCase()])];
}

/** The first text after every text starting with `prefix` (byte order): the prefix's range end. */
function prefixEnd(prefix: string): string {
  return prefix + '\u{10FFFF}';
}

/**
 * The WHERE conditions over the line `l` for a filter, with one parcel group and one sync state (or none):
 * several values of one filter are run as one ordered index range each (see pageOfLines).
 */
function lineConditions(
  p: SqlParams,
  shopId: string,
  filter: ShipmentFilter,
  parcel: ParcelGroup | null,
  sync: SyncState | null,
): string[] {
  const where = [`l."shopId" = ${p.text(shopId)}`, `(l."active" OR l."trackerId" IS NOT NULL)`];
  if (parcel) where.push(`l."parcelGroup" = ${p.text(parcel)}`);
  if (sync) where.push(`l."syncState" = ${p.text(sync)}`);
  if (filter.from) where.push(`l."createdAt" >= ${p.time(new Date(`${filter.from}T00:00:00.000Z`))}`);
  if (filter.to)
    where.push(`l."createdAt" < ${p.time(new Date(Date.parse(`${filter.to}T00:00:00.000Z`) + dayMs))}`);
  if (filter.search) {
    // Exact order id; prefix of the tracking number or the order name (#1001 also for 1001): each an
    // index range of (shopId, column). A prefix range in byte order is exact on PostgreSQL databases with
    // the C / C.UTF-8 collation and on SQLite (see docs/scale.md, Search).
    const s = filter.search;
    const ranges = (column: string, prefix: string) =>
      `(l."${column}" >= ${p.text(prefix)} AND l."${column}" < ${p.text(prefixEnd(prefix))})`;
    const any = [`l."orderId" = ${p.text(s)}`];
    for (const spelling of searchSpellings(s)) any.push(ranges('trackingNumber', spelling));
    for (const name of new Set([s, /^\d/.test(s) ? `#${s}` : s])) any.push(ranges('orderName', name));
    where.push(`(${any.join(' OR ')})`);
  }
  return where;
}

export interface LinePage {
  lines: LineWithTracker[];
  /** More rows further in the direction read. */
  more: boolean;
}

/**
 * One page of lines, newest first: `after` the cursor (older rows), or `before` it (newer rows, for the
 * previous page). Each (parcel group, sync state) pair of the filter is one ordered index range read for
 * at most `limit + 1` rows; their union is cut to the page.
 */
export async function pageOfLines(
  prisma: DatabaseClient,
  shopId: string,
  filter: ShipmentFilter,
  page: { after?: ShipmentCursor | undefined; before?: ShipmentCursor | undefined; limit: number },
): Promise<LinePage> {
  const p = SqlParams.for(prisma);
  const backwards = page.before !== undefined;
  const cursor = page.before ?? page.after;
  const order = backwards ? 'ASC' : 'DESC';
  const parcels: Array<ParcelGroup | null> = filter.parcel?.length ? [...filter.parcel] : [null];
  const syncs: Array<SyncState | null> = filter.sync?.length ? [...filter.sync] : [null];
  const pairs = filter.cells ?? parcels.flatMap((parcel) => syncs.map((sync) => ({ parcel, sync })));
  const ranges: string[] = [];
  for (const { parcel, sync } of pairs) {
    {
      const where = lineConditions(p, shopId, filter, parcel, sync);
      if (cursor) {
        where.push(
          `(l."createdAt", l."id") ${backwards ? '>' : '<'} (${p.time(cursor.createdAt)}, ${p.text(cursor.id)})`,
        );
      }
      ranges.push(
        `SELECT * FROM (SELECT l."id", l."createdAt" FROM "TrackingLine" AS l WHERE ${where.join(' AND ')} ORDER BY l."createdAt" ${order}, l."id" ${order} LIMIT ${p.int(page.limit + 1)}) AS r${ranges.length}`,
      );
    }
  }
  const sql =
    ranges.length === 1
      ? ranges[0]!
      : `SELECT * FROM (${ranges.join(' UNION ALL ')}) AS u ORDER BY "createdAt" ${order}, "id" ${order} LIMIT ${p.int(page.limit + 1)}`;
  const keys = await queryRows<{ id: string; createdAt: unknown }>(prisma, sql, p);
  const more = keys.length > page.limit;
  const ids = keys.slice(0, page.limit).map((k) => k.id);
  if (ids.length === 0) return { lines: [], more: false };
  const rows = await prisma.trackingLine.findMany({ where: { id: { in: ids } }, include: { tracker: true } });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const lines = ids.map((id) => byId.get(id)).filter((l): l is LineWithTracker => l !== undefined);
  if (backwards) lines.reverse();
  return { lines, more };
}

/** How many visible lines each (parcel group, sync state) pair holds, for the filter's search and days. */
export interface ShipmentCountCell {
  parcelGroup: ParcelGroup;
  syncState: SyncState;
  count: number;
}

/**
 * The list's counts for every (parcel group, sync state) pair, with the filter's search and days but not
 * its parcel and sync filters (the caller applies those, so each facet can ignore its own). Without a
 * search: a sum over the ShipmentCount rollup's rows of those days (a few per day); with one: a grouped
 * count of the search's matches.
 */
export async function shipmentCounts(
  prisma: DatabaseClient,
  shopId: string,
  filter: Pick<ShipmentFilter, 'search' | 'from' | 'to'>,
): Promise<ShipmentCountCell[]> {
  const p = SqlParams.for(prisma);
  let sql: string;
  if (filter.search) {
    const where = lineConditions(p, shopId, filter, null, null);
    sql = `SELECT l."parcelGroup" AS "parcelGroup", l."syncState" AS "syncState", COUNT(*) AS "count" FROM "TrackingLine" AS l WHERE ${where.join(' AND ')} GROUP BY l."parcelGroup", l."syncState"`;
  } else {
    // The rollup and its pending deltas (not yet folded in by the worker), read in one statement.
    const part = (table: string, measure: string) => {
      const where = [`c."shopId" = ${p.text(shopId)}`];
      if (filter.from) where.push(`c."day" >= ${p.text(filter.from)}`);
      if (filter.to) where.push(`c."day" <= ${p.text(filter.to)}`);
      return `SELECT c."parcelGroup", c."syncState", c."${measure}" AS "n" FROM "${table}" AS c WHERE ${where.join(' AND ')}`;
    };
    sql = `SELECT u."parcelGroup" AS "parcelGroup", u."syncState" AS "syncState", SUM(u."n") AS "count" FROM (${part('ShipmentCount', 'count')} UNION ALL ${part('ShipmentCountDelta', 'delta')}) AS u GROUP BY u."parcelGroup", u."syncState"`;
  }
  const rows = await queryRows<{ parcelGroup: ParcelGroup; syncState: SyncState; count: unknown }>(
    prisma,
    sql,
    p,
  );
  return rows
    .map((r) => ({ parcelGroup: r.parcelGroup, syncState: r.syncState, count: countOf(r.count) }))
    .filter((r) => r.count > 0);
}

/**
 * The orders (of those given) whose every wanted parcel is delivered: lines still wanted, a tracker being
 * removed is not one of the order's parcels, a line waiting for its carrier is not delivered. One grouped
 * read on (shopId, orderId).
 */
export async function ordersAllDelivered(
  prisma: DatabaseClient,
  shopId: string,
  orderIds: readonly string[],
): Promise<Set<string>> {
  if (orderIds.length === 0) return new Set();
  const p = SqlParams.for(prisma);
  const sql = `SELECT l."orderId" AS "orderId" FROM "TrackingLine" AS l LEFT JOIN "Tracker" AS t ON t."id" = l."trackerId"
    WHERE l."shopId" = ${p.text(shopId)} AND l."orderId" IN ${p.texts(orderIds)} AND l."active" AND (t."id" IS NULL OR t."desired" <> 'removed')
    GROUP BY l."orderId" HAVING SUM(CASE WHEN t."status" = 'delivered' THEN 0 ELSE 1 END) = 0`;
  const rows = await queryRows<{ orderId: string }>(prisma, sql, p);
  return new Set(rows.map((r) => r.orderId));
}

/** The newest-first position of a line, for a cursor. */
export function cursorOf(line: Pick<TrackingLine, 'createdAt' | 'id'>): ShipmentCursor {
  return { createdAt: dateOf(line.createdAt), id: line.id };
}
