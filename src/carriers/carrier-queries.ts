import type { DatabaseClient } from '../db/client.js';
import { countOf, queryRows, SqlParams } from '../db/sql.js';

/**
 * The carrier names a shop's lines carry, with how many lines each and how many of them wait for a carrier
 * mapping: read from the CarrierCount rollup and the deltas not yet folded into it (src/shipments/rollups.ts),
 * one statement on the (shopId, carrierKey, …) keys, so its cost is the shop's number of carrier names, not
 * its number of lines. One row per carrier (the normalised name, `carrierKey`), shown under the spelling
 * with the most lines. Paged by carrier key (a cursor, not an offset): a shop has tens of names.
 */

export interface SeenCarrierRow {
  /** normaliseCarrierName(name): what mappings are keyed by. */
  key: string;
  /** The spelling the store sent most often for this carrier. */
  name: string;
  /** The shop's lines (parcels) with this carrier. */
  shipments: number;
  /** Wanted lines of this carrier still waiting for a carrier mapping (no tracker yet). */
  waiting: number;
}

export const seenCarriersPageMax = 500;
/** Spellings read at most per page: a page of keys with a few spellings each. */
const spellingsPerPage = 4 * seenCarriersPageMax;

interface Row {
  key: string;
  name: string;
  lines: bigint | number;
  waiting: bigint | number | null;
}

/** The shop's carriers with a key after `after` (exclusive; '' for the first page), in key order. */
export async function seenCarriers(
  prisma: DatabaseClient,
  shopId: string,
  page: { after?: string; limit?: number } = {},
): Promise<{ carriers: SeenCarrierRow[]; next: string | null }> {
  const after = page.after ?? '';
  const limit = Math.min(Math.max(1, page.limit ?? seenCarriersPageMax), seenCarriersPageMax);
  const rows = await prisma.$queryRaw<Row[]>`
    SELECT "c"."key", "c"."name", SUM("c"."lines") AS "lines", SUM("c"."waiting") AS "waiting"
    FROM (
      SELECT "carrierKey" AS "key", "carrierName" AS "name", "lines", "waiting" FROM "CarrierCount"
      WHERE "shopId" = ${shopId} AND "carrierKey" > ${after}
      UNION ALL
      SELECT "carrierKey", "carrierName", "lines", "waiting" FROM "CarrierCountDelta"
      WHERE "shopId" = ${shopId} AND "carrierKey" > ${after}
    ) AS "c"
    GROUP BY "c"."key", "c"."name"
    HAVING SUM("c"."lines") > 0
    ORDER BY "c"."key", "c"."name"
    LIMIT ${spellingsPerPage + 1}`;

  // A key whose spellings the row limit may have cut is left to the next page.
  let keys = [...new Set(rows.map((r) => r.key))];
  if (rows.length > spellingsPerPage && keys.length > 1) keys = keys.slice(0, -1);
  const shown = keys.slice(0, limit);
  const byKey = new Map<string, SeenCarrierRow & { most: number }>();
  for (const row of rows) {
    if (!shown.includes(row.key)) continue;
    const lines = Number(row.lines);
    const waiting = Number(row.waiting ?? 0);
    const known = byKey.get(row.key);
    if (!known) {
      byKey.set(row.key, { key: row.key, name: row.name, shipments: lines, waiting, most: lines });
      continue;
    }
    known.shipments += lines;
    known.waiting += waiting;
    if (lines > known.most) Object.assign(known, { name: row.name, most: lines });
  }
  const carriers = [...byKey.values()].map(({ most: _most, ...carrier }) => carrier);
  const more = keys.length > limit || (rows.length > spellingsPerPage && shown.length === keys.length);
  return { carriers, next: more ? shown[shown.length - 1]! : null };
}

/**
 * Per carrier key, the shop's tracked lines the tracking service cannot follow because of their carrier
 * (`codes`: the parcel model's statuses whose action is a carrier mapping: invalid_carrier…): one grouped
 * read of the shop's not_followed lines through (shopId, parcelGroup, createdAt, id).
 */
export async function carrierNotFollowed(
  prisma: DatabaseClient,
  shopId: string,
  keys: readonly string[],
  codes: readonly string[],
): Promise<Map<string, number>> {
  if (keys.length === 0 || codes.length === 0) return new Map();
  const p = SqlParams.for(prisma);
  const sql = `SELECT l."carrierKey" AS "key", COUNT(*) AS "n"
    FROM "TrackingLine" AS l JOIN "Tracker" AS t ON t."id" = l."trackerId"
    WHERE l."shopId" = ${p.text(shopId)} AND l."parcelGroup" = 'not_followed' AND l."active"
      AND t."desired" = 'active' AND t."status" IN ${p.texts(codes)} AND l."carrierKey" IN ${p.texts(keys)}
    GROUP BY l."carrierKey"`;
  const rows = await queryRows<{ key: string; n: unknown }>(prisma, sql, p);
  return new Map(rows.map((r) => [r.key, countOf(r.n)]));
}
