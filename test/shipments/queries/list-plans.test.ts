import { beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/db/client.js';
import { deliverySums, transitP90Tenths } from '../../../src/shipments/queries/analytics.js';
import {
  ordersAllDelivered,
  pageOfLines,
  shipmentCounts,
} from '../../../src/shipments/queries/shipment-list.js';
import { compactRollups } from '../../../src/shipments/queries/rollup-folds.js';
import { defaultTestProvider, useTestDatabase } from '../../helpers/database.js';
import { createShop } from '../../helpers/factories.js';

/**
 * The plans of the shipments list's and the analytics' queries on a seeded shop
 * (PostgreSQL, after ANALYZE): each reads its rows through an index, never a sequential scan of the lines or
 * the trackers, and a page reads about a page of rows whatever the shop's size.
 */

const lines = 20_000;
let prisma: DatabaseClient;
let shopId: string;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** Runs each raw query the function makes under EXPLAIN ANALYZE first, and returns their plans. */
async function plansOf(run: (client: DatabaseClient) => Promise<unknown>): Promise<PlanNode[]> {
  const plans: PlanNode[] = [];
  const spy = new Proxy(prisma, {
    get(target, key, receiver) {
      if (key === '$queryRawUnsafe') {
        return async (sql: string, ...params: unknown[]) => {
          const [row] = await target.$queryRawUnsafe<Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>>(
            `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
            ...params,
          );
          plans.push(row!['QUERY PLAN'][0]!.Plan);
          return target.$queryRawUnsafe(sql, ...params);
        };
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  await run(spy);
  expect(plans.length).toBeGreaterThan(0);
  return plans;
}

function expectIndexOnly(plans: PlanNode[], maxRowsRead: number): void {
  for (const plan of plans) {
    const all = nodes(plan);
    const seqScans = all.filter(
      (n) => n['Node Type'] === 'Seq Scan' && ['TrackingLine', 'Tracker'].includes(n['Relation Name'] ?? ''),
    );
    expect(seqScans, JSON.stringify(plan)).toEqual([]);
    const read = all
      .filter((n) => /Scan/.test(n['Node Type']) && n['Relation Name'])
      .reduce((sum, n) => sum + (n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1), 0);
    expect(read, JSON.stringify(plan)).toBeLessThanOrEqual(maxRowsRead);
  }
}

describe.runIf(defaultTestProvider() === 'postgresql')('query plans on a seeded shop', () => {
  const db = useTestDatabase();

  beforeAll(async () => {
    prisma = db.prisma;
    const shop = await createShop(prisma);
    const other = await createShop(prisma);
    shopId = shop.id;
    for (const id of [shop.id, other.id]) {
      await prisma.$executeRawUnsafe(`INSERT INTO "Tracker" ("id", "shopId", "trackingNumber", "provider", "orderKey",
          "remote", "syncState", "status", "lastEventAt", "createdAt", "updatedAt", "transitSeconds")
        SELECT '${id}-t' || i, '${id}', 'TRK' || lpad(i::text, 8, '0'), CASE i % 3 WHEN 0 THEN 'ups' ELSE 'dhl' END, 'o' || (i / 2),
          'present', 'synced',
          CASE WHEN i % 50 = 0 THEN 'exception' WHEN i % 10 < 8 THEN 'delivered' ELSE 'in_transit' END,
          TIMESTAMP '2026-11-24 00:00:00' - (i % 90) * INTERVAL '1 day',
          TIMESTAMP '2026-11-24 00:00:00' - (i % 90) * INTERVAL '1 day' - (i % 1000) * INTERVAL '1 second',
          now(), CASE WHEN i % 10 < 8 THEN 86400 + i % 200000 END
        FROM generate_series(1, ${lines}) AS i`);
      await prisma.$executeRawUnsafe(`INSERT INTO "TrackingLine" ("id", "shopId", "fulfillmentId", "orderId", "orderName",
          "trackingNumber", "carrierName", "carrierKey", "trackerId", "createdAt", "updatedAt")
        SELECT '${id}-l' || i, '${id}', 'f' || i, 'o' || (i / 2), '#' || (1000 + i / 2), 'TRK' || lpad(i::text, 8, '0'),
          'UPS', 'ups', '${id}-t' || i,
          TIMESTAMP '2026-11-24 00:00:00' - (i % 90) * INTERVAL '1 day' - (i % 1000) * INTERVAL '1 second', now()
        FROM generate_series(1, ${lines}) AS i`);
    }
    // The worker folds the triggers' deltas into the rollups as they come.
    while ((await compactRollups(prisma)) > 0);
    await prisma.$executeRawUnsafe('ANALYZE');
  }, 180_000);

  it('the shipments list: first and later pages, each filter, a search, counts, delivered orders', async () => {
    const first = await pageOfLines(prisma, shopId, {}, { limit: 50 });
    expect(first.lines).toHaveLength(50);
    const later = first.lines.at(-1)!;
    for (const filter of [
      {},
      { parcel: ['exception' as const] },
      { sync: ['failed' as const, 'waiting_carrier' as const] },
      { from: '2026-10-01', to: '2026-10-31' },
      { parcel: ['delivered' as const], from: '2026-11-01' },
    ]) {
      expectIndexOnly(await plansOf((c) => pageOfLines(c, shopId, filter, { limit: 50 })), 200);
      expectIndexOnly(await plansOf((c) => pageOfLines(c, shopId, filter, { after: later, limit: 50 })), 200);
    }
    expectIndexOnly(
      await plansOf((c) => pageOfLines(c, shopId, { search: 'TRK0001234' }, { limit: 50 })),
      200,
    );
    expectIndexOnly(await plansOf((c) => pageOfLines(c, shopId, { search: '1500' }, { limit: 50 })), 200);
    expectIndexOnly(await plansOf((c) => shipmentCounts(c, shopId, {})), 10_000);
    expectIndexOnly(
      await plansOf((c) => shipmentCounts(c, shopId, { from: '2026-11-01', to: '2026-11-10' })),
      10_000,
    );
    expectIndexOnly(await plansOf((c) => shipmentCounts(c, shopId, { search: 'TRK000123' })), 200);
    expectIndexOnly(await plansOf((c) => ordersAllDelivered(c, shopId, ['o1', 'o2', 'o3'])), 50);
  });

  it('the analytics', async () => {
    const days = { from: '2026-08-27', to: '2026-11-24' };
    expectIndexOnly(await plansOf((c) => deliverySums(c, shopId, days)), 50_000);
    expectIndexOnly(await plansOf((c) => transitP90Tenths(c, shopId, days)), 100_000);
  });
});
