import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/db/client.js';
import { createDelivery } from '../../helpers/factories.js';
import { type PageApiHarness, startPageApi, type TestShop } from './harness.js';

/**
 * Two shops with the same kinds of data. With shop A's identity every read returns only A's rows, and no
 * write reaches B, even when the request names B's ids or B's carrier names.
 */

let api: PageApiHarness;
let prisma: DatabaseClient;
let a: TestShop;
let b: TestShop;

async function seed(shop: TestShop, prefix: string, orderBase: number, carrier: string) {
  await api.fulfil(shop.domain, {
    orderId: orderBase + 1,
    name: `#${orderBase + 1}.1`,
    trackingNumbers: [`1Z${prefix}00000001`],
    carrier: 'UPS',
  });
  await api.fulfil(shop.domain, {
    orderId: orderBase + 2,
    name: `#${orderBase + 2}.1`,
    trackingNumbers: [`${prefix}-WAIT-1`],
    carrier,
  });
  await api.fulfil(shop.domain, {
    orderId: orderBase + 3,
    name: `#${orderBase + 3}.1`,
    trackingNumbers: [`3S${prefix}0000001`],
    carrier: 'PostNL',
    destination: { zip: null, country_code: 'NL' },
  });
  await createDelivery(prisma, '{"unusable":true}', { shopDomain: shop.domain, state: 'failed' });
  await api.settled(shop.domain);
}

/** Everything of shop B, to compare before and after A's requests. */
async function snapshot(shop: TestShop) {
  return {
    shop: await prisma.shop.findUniqueOrThrow({ where: { id: shop.id } }),
    trackers: await prisma.tracker.findMany({ where: { shopId: shop.id }, orderBy: { id: 'asc' } }),
    lines: await prisma.trackingLine.findMany({ where: { shopId: shop.id }, orderBy: { id: 'asc' } }),
    mappings: await prisma.carrierMapping.findMany({ where: { shopId: shop.id } }),
    deliveries: await prisma.webhookDelivery.findMany({
      where: { shopDomain: shop.domain },
      orderBy: { id: 'asc' },
    }),
  };
}

let bBefore: Awaited<ReturnType<typeof snapshot>>;

beforeAll(async () => {
  api = await startPageApi();
  prisma = api.app.database.prisma;
  a = await api.connectedShop('iso-a');
  b = await api.connectedShop('iso-b');
  await seed(a, 'AAA', 1000, 'Alpha Couriers');
  await seed(b, 'BBB', 2000, 'Beta Couriers');
  await api.as(b.domain).put('/settings', { orderIdSource: 'name', deleteOnCancel: false });
  bBefore = await snapshot(b);
});
afterAll(async () => {
  api?.expectNoKeyLeaked();
  await api?.close();
});

describe("reads with shop A's identity", () => {
  it('GET /shop is A', async () => {
    const res = await api.as(a.domain).get('/shop');
    expect(res.body.domain).toBe(a.domain);
    expect(res.body.connection.appName).toBe(a.appName);
    expect(res.body.settings.orderIdSource).toBe('id');
  });

  it("GET /carriers/seen shows only A's carrier names", async () => {
    const res = await api.as(a.domain).get('/carriers/seen');
    expect(res.body.carriers.map((c: { name: string }) => c.name)).toEqual([
      'Alpha Couriers',
      'PostNL',
      'UPS',
    ]);
    expect(res.body.carriers[0]).toMatchObject({ waiting: 1, shipments: 1 });
  });

  it("GET /shipments lists only A's orders; B's numbers and orders are not found", async () => {
    const res = await api.as(a.domain).get('/shipments');
    expect(res.body.total).toBe(3);
    const numbers = res.body.rows.map((r: { trackingNumber: string }) => r.trackingNumber);
    expect(numbers.sort()).toEqual(['1ZAAA00000001', '3SAAA0000001', 'AAA-WAIT-1']);
    for (const search of ['1ZBBB00000001', 'BBB', '#2001', '2002']) {
      const found = await api.as(a.domain).get(`/shipments?search=${encodeURIComponent(search)}`);
      expect(found.body, search).toMatchObject({ rows: [], total: 0 });
    }
    const csv = await api.as(a.domain).get('/shipments.csv');
    expect(csv.text.trimEnd().split('\r\n')).toHaveLength(4);
    expect(csv.text).not.toContain('BBB');
  });

  it('GET /shipments/:id answers 404 for every tracker of B', async () => {
    const bTrackers = await prisma.tracker.findMany({ where: { shopId: b.id } });
    expect(bTrackers.length).toBe(2);
    for (const t of bTrackers) {
      const res = await api.as(a.domain).get(`/shipments/${t.id}`);
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('BBB');
    }
  });

  it("GET /overview and GET /analytics count only A's", async () => {
    const overview = await api.as(a.domain).get('/overview');
    const health = Object.fromEntries(
      overview.body.health.map((h: { key: string; count: number }) => [h.key, h.count]),
    );
    expect(health).toMatchObject({ failed_trackers: 1, waiting_carrier: 1 });
    const analytics = await api.as(a.domain).get('/analytics?days=90');
    expect(analytics.body.total.shipments).toBe(2);
  });

  it("GET /failed lists only A's failed trackers and deliveries", async () => {
    const res = await api.as(a.domain).get('/failed');
    expect(res.body.trackers.map((t: { trackingNumber: string }) => t.trackingNumber)).toEqual([
      '3SAAA0000001',
    ]);
    const aDeliveries = await prisma.webhookDelivery.findMany({
      where: { shopDomain: a.domain, state: 'failed' },
    });
    expect(res.body.deliveries.map((d: { id: string }) => d.id)).toEqual(aDeliveries.map((d) => d.id));
  });
});

describe("writes with shop A's identity never change B", () => {
  it('settings, connection, a mapping of B’s carrier name, retries of B’s ids', async () => {
    expect((await api.as(a.domain).put('/settings', { createOnFulfillment: false })).status).toBe(200);
    expect((await api.as(a.domain).put('/connection', { appName: a.appName, apiKey: a.apiKey })).status).toBe(
      200,
    );

    // B's carrier name, mapped by A: only A's mapping (A has no such lines).
    const mapped = await api.as(a.domain).put('/carriers/mapping', { name: 'Beta Couriers', slug: 'ups' });
    expect(mapped.body).toEqual({ remapped: 0, stillWaiting: 0 });
    expect(await prisma.carrierMapping.count({ where: { shopId: a.id } })).toBe(1);

    // B's failed tracker and delivery, named by A: nothing counts.
    const bFailed = bBefore.trackers.filter((t) => t.syncState === 'failed').map((t) => t.id);
    const bDeliveries = bBefore.deliveries.filter((d) => d.state === 'failed').map((d) => d.id);
    expect(bFailed).toHaveLength(1);
    expect(bDeliveries).toHaveLength(1);
    const named = await api
      .as(a.domain)
      .post('/failed/retry', { trackerIds: bFailed, deliveryIds: bDeliveries });
    expect(named.body).toEqual({ retriedTrackers: 0, retriedDeliveries: 0 });

    // All of A's: A's only.
    const all = await api.as(a.domain).post('/failed/retry', {});
    expect(all.body).toEqual({ retriedTrackers: 1, retriedDeliveries: 1 });
    await api.settled(a.domain);

    expect(await snapshot(b)).toEqual(bBefore);
    // And B still sees its own as before.
    const seen = await api.as(b.domain).get('/carriers/seen');
    expect(seen.body.carriers[0]).toMatchObject({ name: 'Beta Couriers', mappedTo: null, waiting: 1 });
    expect((await api.as(b.domain).get('/shop')).body.settings).toEqual({
      createOnFulfillment: true,
      deleteOnCancel: false,
      orderIdSource: 'name',
      postFulfillmentEvents: true,
      showOrderDelivered: true,
      linkToTrackingPage: false,
      pushSafetyPollHours: 24,
    });
  });

  it("A's mapping of its own carrier releases A's line only", async () => {
    const res = await api.as(a.domain).put('/carriers/mapping', { name: 'Alpha Couriers', slug: 'ups' });
    expect(res.body).toEqual({ remapped: 1, stillWaiting: 0 });
    await api.settled(a.domain);
    expect((await api.app.emulator.control.trackers(a.appName)).map((t) => t.tracking_number).sort()).toEqual(
      ['1ZAAA00000001', 'AAA-WAIT-1'],
    );
    expect(await snapshot(b)).toEqual(bBefore);
  });
});
