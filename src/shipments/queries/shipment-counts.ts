import type { DatabaseClient } from '../../db/client.js';
import { countOf, queryRows, SqlParams } from '../../db/sql.js';

/** The shipments rollup's figures (ShipmentCount and its pending deltas: src/shipments/rollups.ts). */

/** How many shipments the shop's rollup counts from the UTC day `fromDay` (YYYY-MM-DD) on. */
export async function shipmentsCountedSince(
  prisma: DatabaseClient,
  shopId: string,
  fromDay: string,
): Promise<number> {
  const p = SqlParams.for(prisma);
  const part = (table: string, measure: string) =>
    `SELECT c."${measure}" AS "n" FROM "${table}" AS c WHERE c."shopId" = ${p.text(shopId)} AND c."day" >= ${p.text(fromDay)}`;
  const [row] = await queryRows<{ total: unknown }>(
    prisma,
    `SELECT SUM(u."n") AS "total" FROM (${part('ShipmentCount', 'count')} UNION ALL ${part('ShipmentCountDelta', 'delta')}) AS u`,
    p,
  );
  return countOf(row?.total);
}
