import type { DatabaseClient } from '../db/client.js';

/**
 * The carrier names a shop's fulfilments used, grouped in SQL: one row per carrier (the normalised name,
 * `carrierKey`), never a row per line, so a shop with a million lines costs the app a few dozen rows.
 *
 * One statement, two aggregates over the shop's lines:
 *  - distinct fulfilments per carrier, from the (shopId, carrierKey, fulfillmentId) index alone (PostgreSQL:
 *    an index-only scan in key order, stopped after the page's last carrier);
 *  - per spelling of each carrier: when it was last written and how many wanted lines still wait for a
 *    carrier (no tracker), so the newest spelling can be shown.
 * Paged by carrier key (a cursor, not an offset): a shop has tens of names, a page holds hundreds.
 */

export interface SeenCarrierRow {
  /** normaliseCarrierName(name): what mappings are keyed by. */
  key: string;
  /** The newest raw name the store sent for this carrier. */
  name: string;
  /** Fulfilments whose lines carry this carrier. */
  fulfillments: number;
  /** Wanted lines of this carrier still waiting for a carrier mapping (no tracker yet). */
  waiting: number;
}

export const seenCarriersPageMax = 500;

interface Row {
  key: string;
  fulfillments: bigint | number;
  name: string | null;
  newestAt: Date | string | null;
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
    WITH "seen" AS (
      SELECT "d"."carrierKey" AS "key", COUNT(*) AS "fulfillments"
      FROM (
        SELECT DISTINCT "carrierKey", "fulfillmentId" FROM "TrackingLine"
        WHERE "shopId" = ${shopId} AND "carrierKey" > ${after}
      ) AS "d"
      GROUP BY "d"."carrierKey"
      ORDER BY "d"."carrierKey"
      LIMIT ${limit + 1}
    ),
    "spellings" AS (
      SELECT "carrierKey" AS "key", "carrierName" AS "name", MAX("updatedAt") AS "newestAt",
        SUM(CASE WHEN "active" AND "trackerId" IS NULL THEN 1 ELSE 0 END) AS "waiting"
      FROM "TrackingLine"
      WHERE "shopId" = ${shopId} AND "carrierKey" > ${after} AND "carrierName" IS NOT NULL
      GROUP BY "carrierKey", "carrierName"
    )
    SELECT "seen"."key", "seen"."fulfillments", "spellings"."name", "spellings"."newestAt",
      "spellings"."waiting"
    FROM "seen" JOIN "spellings" ON "spellings"."key" = "seen"."key"
    ORDER BY "seen"."key"`;

  const keys = [...new Set(rows.map((r) => r.key))];
  const shownKeys = new Set(keys.slice(0, limit));
  const byKey = new Map<string, SeenCarrierRow & { at: number }>();
  for (const row of rows) {
    if (row.name === null || !shownKeys.has(row.key)) continue;
    const at = row.newestAt === null ? 0 : new Date(row.newestAt).getTime();
    const known = byKey.get(row.key);
    if (!known) {
      byKey.set(row.key, {
        key: row.key,
        name: row.name,
        fulfillments: Number(row.fulfillments),
        waiting: Number(row.waiting ?? 0),
        at,
      });
      continue;
    }
    known.waiting += Number(row.waiting ?? 0);
    if (at > known.at) Object.assign(known, { name: row.name, at });
  }
  const carriers = [...byKey.values()].map(({ at: _at, ...carrier }) => carrier);
  return { carriers, next: keys.length > limit ? keys[limit - 1]! : null };
}
