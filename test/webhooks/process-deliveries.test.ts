import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type CarrierRepository, createCarrierRepository } from '../../src/carriers/carrier-repository.js';
import { silentLogger } from '../../src/logger.js';
import { type DeliveryProcessorDeps, processDeliveries } from '../../src/webhooks/process-deliveries.js';
import { useOtherConnection, useTestDatabase } from '../helpers/database.js';
import { createDelivery, fulfillmentBody } from '../helpers/factories.js';
import { fixture } from '../helpers/webhooks.js';
import { storeHolding } from '../helpers/store-confirmer.js';
import { ensureShop } from '../../src/shops/shop-repository.js';

const SHOP = 'deliveries-shop.myshopify.com';

const db = useTestDatabase({ reset: true });
const second = useOtherConnection(db);
let carriers: CarrierRepository;

beforeAll(async () => {
  carriers = createCarrierRepository(db.prisma);
});
beforeEach(async () => {
  // Installed: deliveries for a shop that has not installed the app create nothing.
  await ensureShop(db.prisma, SHOP);
});
afterEach(() => {
  vi.restoreAllMocks();
});

function deps(overrides: Partial<DeliveryProcessorDeps> = {}): DeliveryProcessorDeps {
  return {
    prisma: db.prisma,
    carriers,
    logger: silentLogger,
    owner: 'worker-a',
    confirmFulfillments: storeHolding(),
    ...overrides,
  };
}

describe('processDeliveries', () => {
  it('applies a fulfilment in one go: desired state written, delivery processed and its body emptied', async () => {
    const delivery = await createDelivery(db.prisma, fixture('fulfillments-create.ups'));
    const stats = await processDeliveries(deps(), 10);
    expect(stats).toEqual({ claimed: 1, applied: 1, ignored: 0, rejected: 0, errored: 0 });

    const row = await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
    expect(row).toMatchObject({
      state: 'processed',
      payload: '',
      attempts: 1,
      error: null,
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    expect(row.processedAt).toBeInstanceOf(Date);

    const shop = await db.prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    expect(shop.pausedReason).toBe('not_connected'); // installed, not connected to the service yet
    expect(await db.prisma.fulfillment.count({ where: { shopId: shop.id } })).toBe(1);
    const trackers = await db.prisma.tracker.findMany({ where: { shopId: shop.id } });
    expect(trackers).toEqual([
      expect.objectContaining({
        trackingNumber: '1Z999AA10123456784',
        provider: 'ups',
        orderKey: '6120000000001',
        postalCode: '40003',
        destinationCountry: 'US',
        desired: 'active',
        remote: 'absent',
        syncState: 'pending',
      }),
    ]);
  });

  it('marks a body the use case cannot use as failed, keeps it and says why', async () => {
    const body = { ...fulfillmentBody(), id: 'not-a-number' };
    const delivery = await createDelivery(db.prisma, body);
    const stats = await processDeliveries(deps(), 10);
    expect(stats).toMatchObject({ claimed: 1, rejected: 1 });
    const row = await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
    expect(row.state).toBe('failed');
    expect(row.payload).toBe(JSON.stringify(body));
    expect(row.error).toMatch(/^body_not_of_topic: not a fulfillments\/create body \(id: /);
    expect(await db.prisma.tracker.count()).toBe(0);
  });

  it('marks a stored body that is not JSON as failed, kept', async () => {
    const delivery = await createDelivery(db.prisma, '{oops');
    expect(await processDeliveries(deps(), 10)).toMatchObject({ rejected: 1 });
    expect(await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({
      state: 'failed',
      payload: '{oops',
      error: 'stored body is not JSON',
    });
  });

  it('ignores a topic it does not handle: processed, body emptied, with the reason', async () => {
    const delivery = await createDelivery(db.prisma, { id: 1 }, { topic: 'products/update' });
    expect(await processDeliveries(deps(), 10)).toMatchObject({ claimed: 1, ignored: 1 });
    expect(await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({
      state: 'processed',
      payload: '',
      error: expect.stringMatching(/products\/update/),
    });
  });

  it('ignores an update older than the one applied (delivered out of order)', async () => {
    await createDelivery(
      db.prisma,
      fulfillmentBody({ updatedAt: '2026-11-18T12:00:00Z', trackingNumbers: ['NEW1'] }),
      {
        receivedAt: new Date(Date.now() - 2_000),
      },
    );
    await createDelivery(
      db.prisma,
      fulfillmentBody({ updatedAt: '2026-11-18T11:00:00Z', trackingNumbers: ['OLD1'] }),
      {
        topic: 'fulfillments/update',
      },
    );
    expect(await processDeliveries(deps(), 10)).toMatchObject({ claimed: 2, applied: 1, ignored: 1 });
    const active = await db.prisma.tracker.findMany({ where: { desired: 'active' } });
    expect(active.map((t) => t.trackingNumber)).toEqual(['NEW1']);
  });

  it('one pass with an update of a seen fulfilment beside a first-seen one: only the new one is asked, both apply', async () => {
    await createDelivery(db.prisma, fulfillmentBody({ id: 5001, trackingNumbers: ['SEEN1'] }));
    const store = storeHolding({ [SHOP]: ['5001', '5002'] });
    expect(await processDeliveries(deps({ confirmFulfillments: store }), 10)).toMatchObject({ applied: 1 });
    // The correction of 5001 and a new fulfilment 5002 claimed together.
    await createDelivery(
      db.prisma,
      fulfillmentBody({ id: 5001, updatedAt: '2026-11-19T12:00:00Z', trackingNumbers: ['SEEN2'] }),
      { topic: 'fulfillments/update' },
    );
    await createDelivery(db.prisma, fulfillmentBody({ id: 5002, trackingNumbers: ['NEW2'] }));
    expect(await processDeliveries(deps({ confirmFulfillments: store }), 10)).toMatchObject({
      claimed: 2,
      applied: 2,
      rejected: 0,
    });
    expect(store.asked).toEqual([
      { shop: SHOP, ids: ['5001'] },
      { shop: SHOP, ids: ['5002'] },
    ]);
    const active = await db.prisma.tracker.findMany({ where: { desired: 'active' } });
    expect(active.map((t) => t.trackingNumber).sort()).toEqual(['NEW2', 'SEEN2']);
    expect(await db.prisma.webhookDelivery.count({ where: { state: 'failed' } })).toBe(0);
  });
  it('takes the oldest due deliveries first, at most `limit`, and leaves ones not yet due', async () => {
    const old = await createDelivery(db.prisma, fulfillmentBody({ id: 1 }), {
      receivedAt: new Date(Date.now() - 3_000),
    });
    const mid = await createDelivery(db.prisma, fulfillmentBody({ id: 2 }), {
      receivedAt: new Date(Date.now() - 2_000),
    });
    const later = await createDelivery(db.prisma, fulfillmentBody({ id: 3 }), {
      nextAttemptAt: new Date(Date.now() + 60_000),
      receivedAt: new Date(Date.now() - 4_000),
    });
    expect(await processDeliveries(deps(), 1)).toMatchObject({ claimed: 1, applied: 1 });
    const state = async (id: string) =>
      (await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id } })).state;
    expect(await state(old.id)).toBe('processed');
    expect(await state(mid.id)).toBe('pending');
    expect(await processDeliveries(deps(), 10)).toMatchObject({ claimed: 1 });
    expect(await state(mid.id)).toBe('processed');
    expect(await state(later.id)).toBe('pending');
  });

  it('does not take a delivery another worker holds a live lease on', async () => {
    const delivery = await createDelivery(db.prisma, fulfillmentBody(), {
      leaseOwner: 'worker-b:token',
      leaseExpiresAt: new Date(Date.now() + 60_000),
    });
    expect(await processDeliveries(deps(), 10)).toMatchObject({ claimed: 0 });
    expect(await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({
      state: 'pending',
      leaseOwner: 'worker-b:token',
    });
  });

  it('takes over a delivery whose lease has expired (its holder died)', async () => {
    const delivery = await createDelivery(db.prisma, fulfillmentBody(), {
      leaseOwner: 'worker-b:token',
      leaseExpiresAt: new Date(Date.now() - 1),
    });
    expect(await processDeliveries(deps(), 10)).toMatchObject({ claimed: 1, applied: 1 });
    expect(await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({
      state: 'processed',
      leaseOwner: null,
    });
  });

  it('discards its work when its lease was taken meanwhile: the transaction rolls back', async () => {
    const delivery = await createDelivery(db.prisma, fixture('fulfillments-create.ups'));
    const stealing: CarrierRepository = {
      ...carriers,
      matcher: async () => {
        // Another worker took the delivery over between our claim and our write.
        await db.prisma.webhookDelivery.update({
          where: { id: delivery.id },
          data: { leaseOwner: 'worker-b:token', leaseExpiresAt: new Date(Date.now() + 60_000) },
        });
        return carriers.matcher();
      },
    };
    expect(await processDeliveries(deps({ carriers: stealing }), 10)).toMatchObject({
      claimed: 1,
      errored: 1,
    });
    expect(await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({
      state: 'pending',
      attempts: 0,
      leaseOwner: 'worker-b:token',
      payload: JSON.stringify(fixture('fulfillments-create.ups')),
    });
    // The shop's row (made before the transaction, paused as not connected) is all that remains.
    expect(await db.prisma.shop.findMany({ select: { pausedReason: true } })).toEqual([
      { pausedReason: 'not_connected' },
    ]);
    expect(await db.prisma.fulfillment.count()).toBe(0);
    expect(await db.prisma.trackingLine.count()).toBe(0);
    expect(await db.prisma.tracker.count()).toBe(0);
  });

  it('retries an unexpected error later with backoff, then gives up as failed', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const delivery = await createDelivery(db.prisma, fulfillmentBody());
    const broken: CarrierRepository = {
      ...carriers,
      matcher: async () => {
        throw new Error('carrier cache unavailable');
      },
    };
    const before = Date.now();
    const backoff = { baseDelayMs: 60_000, maxDelayMs: 60_000, maxAttempts: 2 };
    expect(await processDeliveries(deps({ carriers: broken, backoff }), 10)).toMatchObject({ errored: 1 });
    let row = await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
    expect(row).toMatchObject({
      state: 'pending',
      attempts: 1,
      error: 'carrier cache unavailable',
      leaseOwner: null,
    });
    expect(row.payload).not.toBe('');
    expect(row.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(before + 30_000);

    // Not due yet: nothing is taken.
    expect(await processDeliveries(deps({ carriers: broken, backoff }), 10)).toMatchObject({ claimed: 0 });

    await db.prisma.webhookDelivery.update({
      where: { id: delivery.id },
      data: { nextAttemptAt: new Date(0) },
    });
    expect(await processDeliveries(deps({ carriers: broken, backoff }), 10)).toMatchObject({ errored: 1 });
    row = await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
    expect(row).toMatchObject({ state: 'failed', attempts: 2 });

    // A failed delivery is never taken again.
    expect(await processDeliveries(deps(), 10)).toMatchObject({ claimed: 0 });
  });

  it('re-applying a delivery (a crash after the use case, before the mark) changes nothing', async () => {
    const body = fixture('fulfillments-create.dhl-two-parcels');
    await createDelivery(db.prisma, body);
    await processDeliveries(deps(), 10);
    const before = await db.prisma.tracker.findMany({ orderBy: { trackingNumber: 'asc' } });
    await createDelivery(db.prisma, body); // same body, recorded again (another event id)
    expect(await processDeliveries(deps(), 10)).toMatchObject({ applied: 1 });
    const after = await db.prisma.tracker.findMany({ orderBy: { trackingNumber: 'asc' } });
    expect(after).toEqual(before);
    expect(await db.prisma.trackingLine.count()).toBe(2);
  });

  it('two workers on two connections process every delivery exactly once', async () => {
    const count = 12;
    for (let i = 0; i < count; i++) {
      await createDelivery(db.prisma, fulfillmentBody({ id: 1000 + i, trackingNumbers: [`PAR${i}`] }));
    }
    const totals = { claimed: 0, applied: 0 };
    for (let round = 0; round < 10; round++) {
      const a = () => processDeliveries(deps({ owner: 'worker-a' }), 4);
      const b = () => processDeliveries(deps({ owner: 'worker-b', prisma: second.prisma }), 4);
      // PostgreSQL: both at once. SQLite: two connections in one process cannot both write at once (one
      // waits in SQLite's busy handler, which blocks the thread the other's open transaction needs), so
      // they take turns, as two processes do at the file lock.
      const results = db.provider === 'postgresql' ? await Promise.all([a(), b()]) : [await a(), await b()];
      for (const r of results) {
        totals.claimed += r.claimed;
        totals.applied += r.applied;
        expect(r.errored).toBe(0);
      }
      if ((await db.prisma.webhookDelivery.count({ where: { state: 'pending' } })) === 0) break;
    }
    expect(totals).toEqual({ claimed: count, applied: count });
    expect(await db.prisma.webhookDelivery.count({ where: { state: 'processed', attempts: 1 } })).toBe(count);
    expect(await db.prisma.tracker.count({ where: { desired: 'active' } })).toBe(count);
  });

  it('applies orders/cancelled: the order’s trackers are no longer wanted', async () => {
    await createDelivery(db.prisma, fixture('fulfillments-create.dhl-two-parcels'), {
      receivedAt: new Date(Date.now() - 2_000),
    });
    await createDelivery(db.prisma, fixture('orders-cancelled'), { topic: 'orders/cancelled' });
    expect(await processDeliveries(deps(), 10)).toMatchObject({ applied: 2 });
    const trackers = await db.prisma.tracker.findMany();
    expect(trackers).toHaveLength(2);
    expect(trackers.every((t) => t.desired === 'removed' && t.syncState === 'synced')).toBe(true);
    expect(await db.prisma.cancelledOrder.count()).toBe(1);
  });
});
