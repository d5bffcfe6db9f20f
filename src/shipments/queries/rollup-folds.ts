import type { DatabaseClient } from '../../db/client.js';
import { providerOf } from '../../db/provider-of.js';
import { deliveryMeasures } from '../rollups.js';

/**
 * Folding the rollups' deltas in (the triggers that append them: src/shipments/rollups.ts): the worker's
 * periodic statements.
 */

const q = (name: string) => `"${name}"`;

/** The rollups and their delta tables: key columns and what is summed. */
const rollups = [
  { table: 'ShipmentCount', key: ['shopId', 'day', 'parcelGroup', 'syncState'], sums: [['count', 'delta']] },
  {
    table: 'DeliveryCount',
    key: ['shopId', 'day', 'provider', 'parcelGroup', 'transitTenths'],
    sums: deliveryMeasures.map((m) => [m, m]),
  },
  {
    table: 'CarrierCount',
    key: ['shopId', 'carrierKey', 'carrierName'],
    sums: [
      ['lines', 'lines'],
      ['waiting', 'waiting'],
    ],
  },
] as const;

/**
 * Folds up to `batch` pending deltas of each rollup into it; returns how many were folded. PostgreSQL: one
 * statement per rollup that deletes the deltas it takes (SKIP LOCKED: two workers fold different rows) and
 * adds their sums, keys in order (two folds never wait on each other in a cycle). SQLite: the same in one
 * transaction, the deltas taken by rowid.
 */
export async function compactRollups(prisma: DatabaseClient, batch = 5000): Promise<number> {
  const provider = providerOf(prisma);
  let folded = 0;
  for (const r of rollups) {
    const key = r.key.map(q).join(', ');
    const target = r.sums.map(([to]) => q(to)).join(', ');
    const summed = r.sums.map(([, from]) => `SUM(${q(from)})`).join(', ');
    const update = r.sums.map(([to]) => `${q(to)} = "${r.table}".${q(to)} + excluded.${q(to)}`).join(', ');
    if (provider === 'postgresql') {
      const [row] = await prisma.$queryRawUnsafe<Array<{ n: unknown }>>(
        `WITH "moved" AS (
          DELETE FROM "${r.table}Delta" WHERE "id" IN (SELECT "id" FROM "${r.table}Delta" LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING *
        ), "added" AS (
          INSERT INTO "${r.table}" (${key}, ${target})
          SELECT ${key}, ${summed} FROM "moved" GROUP BY ${key} ORDER BY ${key}
          ON CONFLICT (${key}) DO UPDATE SET ${update}
          RETURNING 1
        )
        SELECT (SELECT COUNT(*) FROM "moved") AS "n"`,
        batch,
      );
      folded += Number(row?.n ?? 0);
    } else {
      // One batch transaction (no await between its statements, so it never holds the process's one
      // connection across event-loop turns): both statements take the same first `batch` rows by rowid.
      const upTo = `(SELECT MAX("rowid") FROM (SELECT "rowid" FROM "${r.table}Delta" ORDER BY "rowid" LIMIT ?))`;
      const [, deleted] = await prisma.$transaction([
        prisma.$executeRawUnsafe(
          `INSERT INTO "${r.table}" (${key}, ${target}) SELECT ${key}, ${summed} FROM "${r.table}Delta" WHERE "rowid" <= ${upTo} GROUP BY ${key} ORDER BY ${key} ON CONFLICT (${key}) DO UPDATE SET ${update}`,
          batch,
        ),
        prisma.$executeRawUnsafe(`DELETE FROM "${r.table}Delta" WHERE "rowid" <= ${upTo}`, batch),
      ]);
      folded += deleted;
    }
  }
  return folded;
}
