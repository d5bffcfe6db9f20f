import type { DatabaseClient } from '../../db/client.js';
import { countOf, queryRows, SqlParams } from '../../db/sql.js';
import type { ParcelGroup } from '../status-table.js';

/**
 * The delivery analytics' queries: sums over the DeliveryCount rollup (kept by triggers on Tracker:
 * src/shipments/rollups.ts) for a shop and a range of UTC days. A 90-day answer reads at most a few rows
 * per day, carrier, group and transit tenth, whatever the shop's size, and stays exact after retention
 * deleted the trackers it counted.
 */

export interface DeliverySums {
  provider: string;
  parcelGroup: ParcelGroup;
  shipments: number;
  /** Delivered shipments with a transit time, and the sum of those times in seconds. */
  transitCount: number;
  transitSeconds: number;
  onTimeMeasured: number;
  onTime: number;
  exceptions: number;
  failedAttempts: number;
}

const columns = `"provider", "parcelGroup", "transitTenths", "shipments", "transitSeconds", "onTimeMeasured", "onTime", "exceptions", "failedAttempts"`;

/** The shop's rollup rows of those days and its pending deltas (not yet folded in by the worker). */
function rollupRows(p: SqlParams, shopId: string, days: { from: string; to: string }): string {
  const part = (table: string) =>
    `SELECT ${columns} FROM "${table}" WHERE "shopId" = ${p.text(shopId)} AND "day" >= ${p.text(days.from)} AND "day" <= ${p.text(days.to)}`;
  return `${part('DeliveryCount')} UNION ALL ${part('DeliveryCountDelta')}`;
}

/** The sums per carrier and parcel group over the days `from`..`to` (YYYY-MM-DD, inclusive). */
export async function deliverySums(
  prisma: DatabaseClient,
  shopId: string,
  days: { from: string; to: string },
): Promise<DeliverySums[]> {
  const p = SqlParams.for(prisma);
  const sql = `SELECT d."provider" AS "provider", d."parcelGroup" AS "parcelGroup", SUM(d."shipments") AS "shipments",
      SUM(CASE WHEN d."transitTenths" >= 0 THEN d."shipments" ELSE 0 END) AS "transitCount",
      SUM(d."transitSeconds") AS "transitSeconds", SUM(d."onTimeMeasured") AS "onTimeMeasured",
      SUM(d."onTime") AS "onTime", SUM(d."exceptions") AS "exceptions", SUM(d."failedAttempts") AS "failedAttempts"
    FROM (${rollupRows(p, shopId, days)}) AS d
    GROUP BY d."provider", d."parcelGroup"`;
  const rows = await queryRows<Record<string, unknown>>(prisma, sql, p);
  return rows
    .map((r) => ({
      provider: String(r.provider),
      parcelGroup: r.parcelGroup as ParcelGroup,
      shipments: countOf(r.shipments),
      transitCount: countOf(r.transitCount),
      transitSeconds: countOf(r.transitSeconds),
      onTimeMeasured: countOf(r.onTimeMeasured),
      onTime: countOf(r.onTime),
      exceptions: countOf(r.exceptions),
      failedAttempts: countOf(r.failedAttempts),
    }))
    .filter((r) => r.shipments !== 0);
}

/**
 * The 90th percentile (nearest rank) of the transit times, in tenths of a day, per carrier and over all
 * carriers (provider null), computed in SQL over the rollup's transit histogram: the smallest tenth whose
 * running count reaches 90 % of the carrier's delivered shipments (cum × 10 ≥ total × 9, in integers).
 */
export async function transitP90Tenths(
  prisma: DatabaseClient,
  shopId: string,
  days: { from: string; to: string },
): Promise<Map<string | null, number>> {
  const p = SqlParams.for(prisma);
  const sql = `SELECT "provider", MIN("tenths") AS "tenths" FROM (
      SELECT "provider", "tenths",
        SUM("n") OVER (PARTITION BY "provider" ORDER BY "tenths") AS "cum",
        SUM("n") OVER (PARTITION BY "provider") AS "total"
      FROM (
        SELECT d."provider" AS "provider", d."transitTenths" AS "tenths", SUM(d."shipments") AS "n"
        FROM (${rollupRows(p, shopId, days)}) AS d WHERE d."transitTenths" >= 0 GROUP BY d."provider", d."transitTenths"
        UNION ALL
        SELECT '' AS "provider", d."transitTenths" AS "tenths", SUM(d."shipments") AS "n"
        FROM (${rollupRows(p, shopId, days)}) AS d WHERE d."transitTenths" >= 0 GROUP BY d."transitTenths"
      ) AS h WHERE "n" > 0
    ) AS c WHERE "cum" * 10 >= "total" * 9 GROUP BY "provider"`;
  const rows = await queryRows<{ provider: string; tenths: unknown }>(prisma, sql, p);
  // The empty provider stands for all carriers ('' is never a carrier's slug).
  return new Map(rows.map((r) => [r.provider === '' ? null : r.provider, countOf(r.tenths)]));
}
