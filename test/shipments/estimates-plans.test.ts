import { beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/db/client.js';
import { noteDelivered, refreshTransitStats } from '../../src/shipments/estimates.js';
import { staleTransitKeys, transitFigures } from '../../src/shipments/queries/analytics-transit.js';
import { useTestDatabase } from '../helpers/database.js';
import { createShop } from '../helpers/factories.js';

/**
 * The plans of the transit statistics' queries on seeded data (after ANALYZE), on both databases, printed
 * for the record: the stale keys are one range of TransitStat's computedAt index, a key's figures are read
 * through a Tracker index of its shop (never a scan of the table), and the search for new keys reads the
 * window's delivered trackers of every shop (no index on deliveredAt: a scan of Tracker).
 */

const trackers = 20_000;
const now = new Date('2026-11-24T12:00:00.000Z');
const db = useTestDatabase();
let prisma: DatabaseClient;
let shopId: string;

/** `trackers` rows per shop over 120 days: 5 in 7 delivered, four carriers, five countries (one unknown). */
function seedSql(provider: 'sqlite' | 'postgresql', shop: string): string {
  const series =
    provider === 'postgresql'
      ? `generate_series(1, ${trackers}) AS g(i)`
      : `(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${trackers}) SELECT i FROM s) AS g`;
  const deliveredAt =
    provider === 'postgresql'
      ? `TIMESTAMP '2026-11-24 00:00:00' - (i % 120) * INTERVAL '1 day'`
      : `strftime('%Y-%m-%dT%H:%M:%S.000+00:00', '2026-11-24 00:00:00', '-' || (i % 120) || ' days')`;
  const time = provider === 'postgresql' ? `now()` : `strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now')`;
  return `INSERT INTO "Tracker" ("id", "shopId", "trackingNumber", "provider", "orderKey", "destinationCountry",
      "remote", "syncState", "status", "deliveredAt", "transitSeconds", "createdAt", "updatedAt")
    SELECT '${shop}-' || i, '${shop}', 'P' || i, CASE i % 4 WHEN 0 THEN 'ups' WHEN 1 THEN 'dhl' WHEN 2 THEN 'usps' ELSE 'fedex' END,
      'o' || i, CASE i % 5 WHEN 0 THEN 'US' WHEN 1 THEN 'DE' WHEN 2 THEN 'FR' WHEN 3 THEN 'GB' END, 'present', 'synced',
      CASE WHEN i % 7 < 5 THEN 'delivered' ELSE 'in_transit' END,
      CASE WHEN i % 7 < 5 THEN ${deliveredAt} END,
      CASE WHEN i % 7 < 5 THEN 86400 + (i * 7919) % 400000 END,
      ${time}, ${time}
    FROM ${series}`;
}

/** Runs each raw read the function makes under EXPLAIN (QUERY PLAN) first; returns the plans as text. */
async function plansOf(run: (client: DatabaseClient) => Promise<unknown>): Promise<string[]> {
  const plans: string[] = [];
  const spy = new Proxy(prisma, {
    get(target, key, receiver) {
      if (key === '$queryRawUnsafe') {
        return async (sql: string, ...params: unknown[]) => {
          const explain = db.provider === 'postgresql' ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN';
          const rows = await target.$queryRawUnsafe<Array<Record<string, unknown>>>(
            `${explain} ${sql}`,
            ...params,
          );
          plans.push(rows.map((r) => String(r['QUERY PLAN'] ?? r.detail)).join('\n'));
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

/** A read of a whole table (or a whole index of it): SQLite's `SCAN t`, PostgreSQL's `Seq Scan on "Tracker"`. */
function scans(plan: string, table: 'Tracker' | 'TransitStat', alias: string): boolean {
  return db.provider === 'postgresql'
    ? new RegExp(`Seq Scan on "?${table}"?`).test(plan)
    : new RegExp(`SCAN ${alias}\\b`).test(plan);
}

/** `rows` TransitStat rows of other shops, computed at spread times (a realistic table for the planner). */
function statsSql(provider: 'sqlite' | 'postgresql', rows: number): string {
  const series =
    provider === 'postgresql'
      ? `generate_series(1, ${rows}) AS g(i)`
      : `(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${rows}) SELECT i FROM s) AS g`;
  const computedAt =
    provider === 'postgresql'
      ? `TIMESTAMP '2026-11-24 00:00:00' - (i % 1440) * INTERVAL '1 minute'`
      : `strftime('%Y-%m-%dT%H:%M:%S.000+00:00', '2026-11-24 00:00:00', '-' || (i % 1440) || ' minutes')`;
  return `INSERT INTO "TransitStat" ("shopId", "provider", "destinationCountry", "samples", "medianSeconds", "p90Seconds", "computedAt")
    SELECT 'elsewhere-' || (i / 20), 'p' || (i % 20), 'US', 40, 86400, 172800, ${computedAt} FROM ${series}`;
}

describe('transit statistics: query plans on seeded data', () => {
  beforeAll(async () => {
    prisma = db.prisma;
    const shop = await createShop(prisma);
    const other = await createShop(prisma);
    shopId = shop.id;
    for (const id of [shop.id, other.id]) await prisma.$executeRawUnsafe(seedSql(db.provider, id));
    // Every key of both shops made known as delivered reads make them, then computed.
    const keys = await prisma.tracker.findMany({
      where: { status: 'delivered' },
      distinct: ['shopId', 'provider', 'destinationCountry'],
      select: { shopId: true, provider: true, destinationCountry: true },
    });
    for (const key of keys) await noteDelivered(prisma, key);
    while ((await refreshTransitStats(prisma, { batch: 500, now })).saved > 0);
    await prisma.$executeRawUnsafe(statsSql(db.provider, 5_000));
    await prisma.$executeRawUnsafe('ANALYZE');
  }, 180_000);

  it('stale keys by the computedAt index; a key’s figures by a range of the window', async () => {
    expect(await prisma.transitStat.count({ where: { shopId } })).toBe(4 * 5);
    const since = new Date(now.getTime() - 90 * 86_400_000);
    const [stale] = await plansOf((c) => staleTransitKeys(c, new Date(now.getTime() + 1), 10));
    const [figures] = await plansOf((c) =>
      transitFigures(c, { shopId, provider: 'ups', destinationCountry: 'DE' }, since),
    );
    const [unknown] = await plansOf((c) =>
      transitFigures(c, { shopId, provider: 'ups', destinationCountry: '' }, since),
    );
    console.log(
      `transit statistics plans (${db.provider}):\n--- stale keys\n${stale}\n--- a key's figures\n${figures}\n--- the unknown country's figures\n${unknown}`,
    );
    expect(stale).toMatch(/TransitStat_computedAt_idx/);
    expect(figures).toMatch(/Tracker_shopId_provider_destinationCountry_deliveredAt_idx/);
    expect(scans(figures!, 'Tracker', 't')).toBe(false);
    expect(scans(unknown!, 'Tracker', 't')).toBe(false);
  });
});
