import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/db/client.js';
import { waitFor } from '../../helpers/app.js';
import { createDelivery, createTracker } from '../../helpers/factories.js';
import { type PageApiHarness, startPageApi, type TestShop } from './harness.js';

let api: PageApiHarness;
let prisma: DatabaseClient;
let shop: TestShop;

beforeAll(async () => {
  api = await startPageApi();
  prisma = api.app.database.prisma;
  shop = await api.connectedShop('failed');
  // A carrier that needs a postal code the order lacks: the service refuses, the tracker fails.
  await api.fulfil(shop.domain, {
    orderId: 4001,
    name: '#4001.1',
    trackingNumbers: ['3SPOSTNL0000001'],
    carrier: 'PostNL',
    destination: { zip: null, country_code: 'NL' },
  });
  await api.settled(shop.domain);
});
afterAll(async () => {
  api?.expectNoKeyLeaked();
  await api?.close();
});

describe('GET /failed and POST /failed/retry', () => {
  it('lists failed and dead trackers with their reasons, and failed deliveries', async () => {
    const dead = await createTracker(prisma, shop.id, {
      trackingNumber: '1ZDEAD0000000001',
      syncState: 'dead',
      attempts: 10,
    });
    const delivery = await createDelivery(prisma, '{"not":"a fulfilment"}', {
      shopDomain: shop.domain,
      state: 'failed',
    });
    await prisma.webhookDelivery.update({
      where: { id: delivery.id },
      data: { error: 'body is not usable' },
    });

    const res = await api.as(shop.domain).get('/failed');
    expect(res.status).toBe(200);
    const failed = res.body.trackers.find(
      (t: { trackingNumber: string }) => t.trackingNumber === '3SPOSTNL0000001',
    );
    expect(failed).toEqual({
      id: expect.any(String),
      trackingNumber: '3SPOSTNL0000001',
      provider: 'postnl',
      orderName: '#4001',
      state: 'failed',
      reason: 'destination_required',
      message: expect.any(String),
      at: expect.stringMatching(/^\d{4}-/),
      attempts: expect.any(Number),
    });
    expect(res.body.trackers).toContainEqual(
      expect.objectContaining({ id: dead.id, state: 'dead', attempts: 10, orderName: null }),
    );
    expect(res.body.trackers).toHaveLength(2);
    expect(res.body.deliveries).toEqual([
      {
        id: delivery.id,
        topic: 'fulfillments/create',
        error: 'body is not usable',
        receivedAt: expect.any(String),
      },
    ]);
  });

  it('retries only the ids given', async () => {
    const listed = (await api.as(shop.domain).get('/failed')).body;
    const dead = listed.trackers.find((t: { state: string }) => t.state === 'dead');
    const res = await api.as(shop.domain).post('/failed/retry', { trackerIds: [dead.id] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ retriedTrackers: 1, retriedDeliveries: 0 });
    // The worker sends it round again: the number exists nowhere else, so it is created at the service.
    await api.settled(shop.domain);
    const row = await prisma.tracker.findUniqueOrThrow({ where: { id: dead.id } });
    expect(row.syncState).toBe('synced');
    const still = (await api.as(shop.domain).get('/failed')).body;
    expect(still.trackers.map((t: { id: string }) => t.id)).not.toContain(dead.id);
    expect(still.deliveries).toHaveLength(1);
  });

  it('retries everything of the shop without ids', async () => {
    const res = await api.as(shop.domain).post('/failed/retry', {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ retriedTrackers: 1, retriedDeliveries: 1 });
    // Neither cause is gone: the PostNL tracker fails again, the delivery too.
    await waitFor('the retried work to fail again', async () => {
      const body = (await api.as(shop.domain).get('/failed')).body;
      return body.trackers.length === 1 && body.deliveries.length === 1;
    });
    const empty = await api.as(shop.domain).post('/failed/retry');
    expect(empty.status).toBe(200);
  });

  it('refuses ids that are not a list of strings', async () => {
    for (const body of [{ trackerIds: 'abc' }, { deliveryIds: [1, 2] }, { trackerIds: [''] }]) {
      const res = await api.as(shop.domain).post('/failed/retry', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('invalid_input');
      expect(res.body.issues[0].field).toMatch(/^(trackerIds|deliveryIds)/);
    }
  });
});
