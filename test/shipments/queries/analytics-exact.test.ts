import { beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/db/client.js';
import { deliveryAnalytics, percentile } from '../../../src/ui/api/analytics.js';
import { createCarrierRepository } from '../../../src/carriers/carrier-repository.js';
import { createShopRepository } from '../../../src/shops/shop-repository.js';
import { useTestDatabase } from '../../helpers/database.js';
import { createShop, testKeyring } from '../../helpers/factories.js';

/**
 * The analytics of a shop well above the old 20 000-tracker cap equal direct counts of its rows: the
 * rollup (kept by triggers while the rows were written) loses nothing and caps nothing.
 */

const db = useTestDatabase({ timeout: 120_000 });
let prisma: DatabaseClient;
const trackers = 30_000;
const now = new Date('2026-11-24T15:00:00.000Z');

beforeAll(async () => {
  prisma = db.prisma;
});

/**
 * `trackers` rows over 95 days, written in one statement as the app would have them: every 7th
 * removed, statuses spread, transit times and on-time facts on the delivered ones.
 */
function seedSql(provider: 'sqlite' | 'postgresql', shopId: string): string {
  const series =
    provider === 'postgresql'
      ? `generate_series(0, ${trackers - 1}) AS g(i)`
      : `(WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < ${trackers - 1}) SELECT i FROM s) AS g`;
  const created =
    provider === 'postgresql'
      ? `TIMESTAMP '2026-11-24 14:00:00' - (i % 95) * INTERVAL '1 day' - (i % 1440) * INTERVAL '1 minute'`
      : `strftime('%Y-%m-%dT%H:%M:%S.000+00:00', '2026-11-24 14:00:00', '-' || (i % 95) || ' days', '-' || (i % 1440) || ' minutes')`;
  const bool = (cond: string) =>
    provider === 'postgresql' ? `(${cond})` : `CASE WHEN ${cond} THEN 1 ELSE 0 END`;
  const nullableBool = (cond: string) =>
    provider === 'postgresql'
      ? `CASE WHEN i % 5 < 3 AND i % 3 = 0 THEN (${cond}) END`
      : `CASE WHEN i % 5 < 3 AND i % 3 = 0 THEN (CASE WHEN ${cond} THEN 1 ELSE 0 END) END`;
  const id = provider === 'postgresql' ? `'t' || i` : `'t' || i`;
  return `INSERT INTO "Tracker" ("id", "shopId", "trackingNumber", "provider", "orderKey", "desired", "remote", "syncState",
      "status", "statusDetail", "createdAt", "updatedAt", "transitSeconds", "deliveredOnTime", "hadException", "hadFailedAttempt")
    SELECT ${id}, '${shopId}', 'N' || i, CASE i % 3 WHEN 0 THEN 'ups' WHEN 1 THEN 'dhl' ELSE 'usps' END, 'o' || i,
      CASE WHEN i % 7 = 0 THEN 'removed' ELSE 'active' END, 'present', 'synced',
      CASE WHEN i % 5 < 3 THEN 'delivered' WHEN i % 5 = 3 THEN 'in_transit' ELSE CASE WHEN i % 2 = 0 THEN 'exception' ELSE 'failure' END END,
      CASE WHEN i % 5 = 3 AND i % 4 = 0 THEN 'out_for_delivery' END,
      ${created}, ${created},
      CASE WHEN i % 5 < 3 THEN 3600 * (20 + (i * 7919) % 200) END,
      ${nullableBool('i % 2 = 0')},
      ${bool('i % 5 = 4 AND i % 2 = 0 OR i % 11 = 0')},
      ${bool('i % 5 = 4 AND i % 2 = 1 OR i % 13 = 0')}
    FROM ${series}`;
}

describe('analytics of a shop of 30 000 trackers', () => {
  it('equal direct counts of the rows, for 7, 30 and 90 days', async () => {
    const shop = await createShop(prisma);
    await prisma.$executeRawUnsafe(seedSql(db.provider, shop.id));
    const deps = {
      prisma,
      shops: createShopRepository(prisma, testKeyring()),
      carriers: createCarrierRepository(prisma),
    };
    const rows = await prisma.tracker.findMany({
      where: { shopId: shop.id, desired: 'active' },
      select: {
        provider: true,
        status: true,
        createdAt: true,
        transitSeconds: true,
        deliveredOnTime: true,
        hadException: true,
        hadFailedAttempt: true,
      },
    });
    expect(rows.length).toBeGreaterThan(20_000);
    for (const days of [7, 30, 90]) {
      const from = Date.parse('2026-11-24T00:00:00Z') - (days - 1) * 86_400_000;
      const inWindow = rows.filter((r) => r.createdAt.getTime() >= from);
      const answer = await deliveryAnalytics(deps, shop.domain, days, now);
      const transit = inWindow.flatMap((r) => (r.transitSeconds === null ? [] : [r.transitSeconds]));
      const tenths = transit.map((s) => Math.round(s / 8640)).sort((a, b) => a - b);
      const measured = inWindow.filter((r) => r.deliveredOnTime !== null);
      expect(answer.total, `${days} days`).toEqual({
        shipments: inWindow.length,
        delivered: inWindow.filter((r) => r.status === 'delivered').length,
        avgTransitDays: Math.round((transit.reduce((a, b) => a + b, 0) / transit.length / 86_400) * 10) / 10,
        p90TransitDays: percentile(tenths, 90)! / 10,
        onTime: {
          measured: measured.length,
          onTime: measured.filter((r) => r.deliveredOnTime).length,
          rate: measured.filter((r) => r.deliveredOnTime).length / measured.length,
        },
        exceptions: inWindow.filter((r) => r.hadException).length,
        failedAttempts: inWindow.filter((r) => r.hadFailedAttempt).length,
      });
      expect(answer.total.shipments).toBeGreaterThan(days === 90 ? 20_000 : 0);
      expect(answer.carriers.reduce((n, c) => n + c.shipments, 0)).toBe(inWindow.length);
      expect(answer.byStatus.failed_attempt).toBe(inWindow.filter((r) => r.status === 'failure').length);
    }
  }, 120_000);
});
