import { beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/db/client.js';
import { backfillDeliveryFacts, deliveryFactsKey } from '../../src/jobs/backfill-delivery-facts.js';
import { compactRollups } from '../../src/shipments/queries/rollup-folds.js';
import { useTestDatabase } from '../helpers/database.js';
import { createShop } from '../helpers/factories.js';

/** Trackers read before delivery facts were kept get them, a batch a pass, and the rollup follows. */

const db = useTestDatabase();
let prisma: DatabaseClient;

beforeAll(async () => {
  prisma = db.prisma;
});

const history = (deliveredAt: string) =>
  JSON.stringify([
    {
      at: '2026-11-10T08:00:00.000Z',
      status: 'in_transit',
      statusDetail: null,
      message: 'Picked up',
      location: null,
    },
    {
      at: '2026-11-11T09:00:00.000Z',
      status: 'exception',
      statusDetail: null,
      message: 'Delayed',
      location: null,
    },
    { at: deliveredAt, status: 'delivered', statusDetail: null, message: 'Delivered', location: null },
  ]);

describe('backfillDeliveryFacts', () => {
  it('works out the facts of every tracker read before, in batches, then stops for good', async () => {
    const shop = await createShop(prisma);
    for (let i = 0; i < 5; i++) {
      // Written as an old version of the app did: status and history, no facts.
      await prisma.tracker.create({
        data: {
          shopId: shop.id,
          trackingNumber: `OLD${i}`,
          provider: 'ups',
          orderKey: String(i),
          remote: 'present',
          syncState: 'synced',
          status: 'delivered',
          events: history(`2026-11-1${2 + i}T08:00:00.000Z`),
          estimatedDelivery: '2026-11-13',
          statusCheckedAt: new Date(),
        },
      });
    }
    await prisma.tracker.create({
      data: { shopId: shop.id, trackingNumber: 'NEW', provider: 'ups', orderKey: 'n', status: null },
    });
    const before = await prisma.deliveryCount.findMany({
      where: { shopId: shop.id, transitTenths: { gte: 0 } },
    });
    expect(before).toEqual([]);

    const seen: number[] = [];
    for (let pass = 0; pass < 10; pass++) {
      const n = await backfillDeliveryFacts(prisma, 2);
      seen.push(n);
      if (n === 0) break;
    }
    expect(seen).toEqual([2, 2, 1, 0]);
    expect((await prisma.appState.findUnique({ where: { key: deliveryFactsKey } }))?.value).toBe('done');

    const old = await prisma.tracker.findMany({
      where: { shopId: shop.id, status: 'delivered' },
      orderBy: { trackingNumber: 'asc' },
    });
    expect(old.map((t) => [t.transitSeconds, t.deliveredOnTime, t.hadException])).toEqual([
      [2 * 86_400, true, true],
      [3 * 86_400, true, true],
      [4 * 86_400, false, true],
      [5 * 86_400, false, true],
      [6 * 86_400, false, true],
    ]);
    await compactRollups(prisma);
    const transit = await prisma.deliveryCount.findMany({
      where: { shopId: shop.id, transitTenths: { gte: 0 } },
      orderBy: { transitTenths: 'asc' },
    });
    expect(transit.map((r) => [r.transitTenths, r.shipments, r.exceptions])).toEqual([
      [20, 1, 1],
      [30, 1, 1],
      [40, 1, 1],
      [50, 1, 1],
      [60, 1, 1],
    ]);
    expect(await backfillDeliveryFacts(prisma, 2)).toBe(0);
  });
});
