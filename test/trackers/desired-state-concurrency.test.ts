import { describe, expect, it } from 'vitest';
import { createCarrierMatcher } from '../../src/carriers/match.js';
import type { DatabaseClient } from '../../src/db/client.js';
import type { Shop } from '../../src/generated/sqlite/client.js';
import { applyFulfillment, applyOrderCancelled } from '../../src/trackers/desired-state.js';
import { type FulfillmentPayload, orderCancelledPayload } from '../../src/trackers/fulfillment-payload.js';
import { defaultTestProvider, useOtherConnection, useTestDatabase } from '../helpers/database.js';
import { createShop, fulfillment } from '../helpers/factories.js';

/**
 * Two workers applying store events of one shop at the same moment, each in its own transaction on its own
 * connection. Only PostgreSQL runs such transactions truly side by side; SQLite has a single writer (and
 * two connections in one test process would just wait on each other), so this runs on PostgreSQL.
 */

const rounds = 20;
const matcher = createCarrierMatcher([]);

describe.runIf(defaultTestProvider() === 'postgresql')('concurrent store events (PostgreSQL)', () => {
  const db = useTestDatabase();
  const second = useOtherConnection(db);

  const applyOn = (prisma: DatabaseClient, shop: Shop, payload: FulfillmentPayload) =>
    prisma.$transaction((tx) => applyFulfillment(tx, shop, payload, { matcher, overrides: new Map() }));

  const wanted = async (shop: Shop) =>
    (await db.prisma.tracker.findMany({ where: { shopId: shop.id, desired: 'active' } }))
      .map((t) => t.trackingNumber)
      .sort();

  it('an older update applied at the same time as a newer one never wins', async () => {
    for (let round = 0; round < rounds; round++) {
      const shop = await createShop(db.prisma);
      const newer = fulfillment({ updatedAt: '2026-11-18T11:00:00Z', trackingNumbers: ['NEW'] });
      const older = fulfillment({ updatedAt: '2026-11-18T10:00:00Z', trackingNumbers: ['OLD'] });
      await Promise.all([applyOn(db.prisma, shop, newer), applyOn(second.prisma, shop, older)]);
      expect(await wanted(shop)).toEqual(['NEW']);
      const row = await db.prisma.fulfillment.findFirstOrThrow({ where: { shopId: shop.id } });
      expect(row.sourceUpdatedAt).toEqual(new Date('2026-11-18T11:00:00Z'));
    }
  });

  it('a fulfilment applied at the same time as its order’s cancellation makes no tracker', async () => {
    for (let round = 0; round < rounds; round++) {
      const shop = await createShop(db.prisma);
      const cancel = orderCancelledPayload.parse({ id: 100, cancelled_at: '2026-11-19T00:00:00Z' });
      await Promise.all([
        db.prisma.$transaction((tx) => applyOrderCancelled(tx, shop, cancel)),
        applyOn(second.prisma, shop, fulfillment({ orderId: 100, trackingNumbers: ['A1'] })),
      ]);
      expect(await wanted(shop)).toEqual([]);
    }
  });
});
