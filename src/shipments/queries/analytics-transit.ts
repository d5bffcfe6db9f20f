import { z } from 'zod';
import type { DatabaseClient } from '../../db/client.js';
import { queryRows, SqlParams } from '../../db/sql.js';
import { parcelGroupStatuses } from '../status-table.js';

/**
 * The transit statistics' queries (src/shipments/estimates.ts): which (shop, carrier, destination country)
 * keys are due a fresh figure, the median and 90th percentile of one key's transit times, worked out in SQL
 * by the same statement on SQLite and PostgreSQL, the writes of a key's row, and its read for a prediction.
 * A key's delivered parcels are its trackers with a delivery time (Tracker.deliveredAt) and a transit time
 * (Tracker.transitSeconds), written with every status read (src/shipments/delivery-facts.ts).
 */

/** One key of the statistics; an unknown destination country is ''. */
export interface TransitKey {
  shopId: string;
  provider: string;
  destinationCountry: string;
}

export interface TransitFigures {
  samples: number;
  medianSeconds: number;
  p90Seconds: number;
}

/** The delivered group's status codes (a tracker has delivery facts only in it). */
const delivered = parcelGroupStatuses.delivered.map((code) => `'${code}'`).join(', ');

/** A count or a transit time as the drivers return it (PostgreSQL: bigint for COUNT and ROW_NUMBER). */
const whole = z.union([z.number(), z.bigint()]).transform(Number);
const keyRow = z.object({ shopId: z.string(), provider: z.string(), destinationCountry: z.string() });
const figuresRow = z.object({ samples: whole, median: whole.nullable(), p90: whole.nullable() });

/**
 * Keys with a row computed before `before`, the oldest first: one range of TransitStat's computedAt
 * index.
 */
export async function staleTransitKeys(
  prisma: DatabaseClient,
  before: Date,
  limit: number,
): Promise<TransitKey[]> {
  if (limit <= 0) return [];
  const p = SqlParams.for(prisma);
  const sql = `SELECT s."shopId" AS "shopId", s."provider" AS "provider", s."destinationCountry" AS "destinationCountry"
    FROM "TransitStat" AS s WHERE s."computedAt" < ${p.time(before)}
    ORDER BY s."computedAt", s."shopId", s."provider", s."destinationCountry" LIMIT ${p.int(limit)}`;
  return z.array(keyRow).parse(await queryRows(prisma, sql, p));
}

/**
 * A key that has just delivered a parcel: written once as due (computed at the epoch, no samples), so the
 * next pass computes it. Keys are found this way, never by reading the deliveries of every shop.
 */
export async function noteTransitKey(prisma: DatabaseClient, key: TransitKey): Promise<void> {
  const p = SqlParams.for(prisma);
  const values = [
    p.text(key.shopId),
    p.text(key.provider),
    p.text(key.destinationCountry),
    p.time(new Date(0)),
  ];
  await prisma.$executeRawUnsafe(
    `INSERT INTO "TransitStat" ("shopId", "provider", "destinationCountry", "samples", "medianSeconds", "p90Seconds", "computedAt")
      VALUES (${values[0]}, ${values[1]}, ${values[2]}, 0, 0, 0, ${values[3]})
      ON CONFLICT ("shopId", "provider", "destinationCountry") DO NOTHING`,
    ...p.values,
  );
}

/**
 * The key's parcels delivered since `since`: how many, and the median and 90th percentile of their
 * transit times by nearest rank (the ⌈n/2⌉-th and ⌈9n/10⌉-th smallest, as the analytics' p90), ranked in
 * SQL by a window over the key's rows. Null medians when it has none.
 */
export async function transitFigures(
  prisma: DatabaseClient,
  key: TransitKey,
  since: Date,
): Promise<TransitFigures | null> {
  const p = SqlParams.for(prisma);
  // Parameters in the order they appear (SQLite's are positional).
  const shop = p.text(key.shopId);
  const provider = p.text(key.provider);
  // '' stands for an unknown country: a tracker with none, or an empty one.
  const country =
    key.destinationCountry === ''
      ? `(t."destinationCountry" IS NULL OR t."destinationCountry" = '')`
      : `t."destinationCountry" = ${p.text(key.destinationCountry)}`;
  const window = p.time(since);
  const sql = `SELECT COUNT(*) AS "samples",
      MIN(CASE WHEN r."n" = (r."total" + 1) / 2 THEN r."s" END) AS "median",
      MIN(CASE WHEN r."n" = (9 * r."total" + 9) / 10 THEN r."s" END) AS "p90"
    FROM (
      SELECT t."transitSeconds" AS "s", ROW_NUMBER() OVER (ORDER BY t."transitSeconds") AS "n", COUNT(*) OVER () AS "total"
      FROM "Tracker" AS t
      WHERE t."shopId" = ${shop} AND t."status" IN (${delivered}) AND t."provider" = ${provider}
        AND ${country} AND t."deliveredAt" >= ${window} AND t."transitSeconds" IS NOT NULL
    ) AS r`;
  const [row] = z.array(figuresRow).parse(await queryRows(prisma, sql, p));
  if (!row || row.median === null || row.p90 === null) return null;
  return { samples: row.samples, medianSeconds: row.median, p90Seconds: row.p90 };
}

/** The key's median transit and its sample count (one primary-key read of TransitStat); null: no row. */
export function transitStatOf(
  prisma: DatabaseClient,
  key: TransitKey,
): Promise<{ medianSeconds: number; samples: number } | null> {
  return prisma.transitStat.findUnique({
    where: { shopId_provider_destinationCountry: key },
    select: { medianSeconds: true, samples: true },
  });
}

/** Writes the key's figures (a new row or the one there: two passes at once write the same). */
export async function saveTransitStat(
  prisma: DatabaseClient,
  key: TransitKey,
  figures: TransitFigures,
  computedAt: Date,
): Promise<void> {
  const p = SqlParams.for(prisma);
  const values = [
    p.text(key.shopId),
    p.text(key.provider),
    p.text(key.destinationCountry),
    p.int(figures.samples),
    p.int(figures.medianSeconds),
    p.int(figures.p90Seconds),
    p.time(computedAt),
  ];
  await prisma.$executeRawUnsafe(
    `INSERT INTO "TransitStat" ("shopId", "provider", "destinationCountry", "samples", "medianSeconds", "p90Seconds", "computedAt")
      VALUES (${values.join(', ')})
      ON CONFLICT ("shopId", "provider", "destinationCountry") DO UPDATE SET "samples" = excluded."samples",
        "medianSeconds" = excluded."medianSeconds", "p90Seconds" = excluded."p90Seconds", "computedAt" = excluded."computedAt"`,
    ...p.values,
  );
}

/** Removes the key's row (no delivered parcel left in the window). */
export async function removeTransitStat(prisma: DatabaseClient, key: TransitKey): Promise<number> {
  const { count } = await prisma.transitStat.deleteMany({ where: key });
  return count;
}
