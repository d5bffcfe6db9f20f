import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/db/client.js';
import { createTracker, type TrackerOverrides } from '../../helpers/factories.js';
import { type PageApiHarness, startPageApi, type TestShop, uniqueName } from './harness.js';

let api: PageApiHarness;
let prisma: DatabaseClient;
let shop: TestShop;

interface Row {
  trackingNumber: string;
  sync: { state: string };
}

beforeAll(async () => {
  api = await startPageApi();
  prisma = api.app.database.prisma;
  shop = await api.connectedShop('shipments');
  await api.fulfil(shop.domain, {
    orderId: 3001,
    name: '#3001.1',
    trackingNumbers: ['1ZSHIP00000003001'],
    carrier: 'UPS',
  });
  await api.settled(shop.domain);
  await api.fulfil(shop.domain, {
    orderId: 3002,
    name: '#3002.1',
    trackingNumbers: ['1ZSHIP00000003002'],
    carrier: 'UPS',
  });
  await api.settled(shop.domain);
  await api.fulfil(shop.domain, {
    orderId: 3002,
    name: '#3002.2',
    trackingNumbers: ['SPEEDY-3002'],
    carrier: 'Speedy Parcels Ltd',
  });
  await api.settled(shop.domain);
});
afterAll(async () => {
  api?.expectNoKeyLeaked();
  await api?.close();
});

describe('GET /shipments/:trackerId', () => {
  it('shows the live status and the timeline from the service', async () => {
    const list = await api.as(shop.domain).get('/shipments?search=3001');
    const id = list.body.rows.find((r: { trackerId: string | null }) => r.trackerId).trackerId as string;

    const before = await api.as(shop.domain).get(`/shipments/${id}`);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      tracker: {
        id,
        trackingNumber: '1ZSHIP00000003001',
        provider: 'ups',
        carrierName: 'UPS',
        state: 'active',
        orderId: '3001',
        orderName: '#3001',
        lastError: null,
        lastErrorReason: null,
      },
      shipment: { status: expect.any(String), events: expect.any(Array) },
      error: null,
      // Never read by the poller yet, and nothing written to the store.
      stored: null,
      storeEvents: [],
    });

    await api.app.emulator.control.advanceClock(50 * 3600);
    const after = await api.as(shop.domain).get(`/shipments/${id}`);
    expect(after.status).toBe(200);
    expect(after.body.error).toBeNull();
    const { shipment } = after.body;
    expect(Object.keys(shipment).sort()).toEqual(
      ['estimatedDeliveryDate', 'events', 'lastEventTime', 'shippingService', 'status', 'statusView'].sort(),
    );
    expect(shipment.status).toBe('delivered');
    expect(shipment.statusView).toMatchObject({ code: 'delivered', label: 'Delivered', tone: 'delivered' });
    expect(shipment.events.length).toBeGreaterThanOrEqual(4);
    for (const event of shipment.events) {
      expect(Object.keys(event).sort()).toEqual([
        'datetime',
        'location',
        'message',
        'status',
        'statusDetail',
      ]);
      expect(event.datetime).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      expect(event.location === null || typeof event.location === 'string').toBe(true);
    }
    expect(shipment.events.some((e: { status: string }) => e.status === 'delivered')).toBe(true);
    expect(shipment.lastEventTime).toEqual(expect.any(String));

    // What the timeline read is stored as a poll stores it: the list says the same, and it is kept.
    const listed = await api.as(shop.domain).get('/shipments?search=1ZSHIP00000003001');
    expect(listed.body.rows[0].parcel).toMatchObject({
      group: 'delivered',
      code: 'delivered',
      label: 'Delivered',
    });
    const row = await prisma.tracker.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: 'delivered', statusCheckedAt: expect.any(Date) });
    expect(JSON.parse(row.events!)).toHaveLength(shipment.events.length);
    // A second look queues no store update twice.
    const queued = await prisma.storeFulfillmentEvent.count({ where: { trackerId: id } });
    await api.as(shop.domain).get(`/shipments/${id}`);
    expect(await prisma.storeFulfillmentEvent.count({ where: { trackerId: id } })).toBe(queued);
  });

  it('reports a failure of the service in `error`, not as a 500', async () => {
    const list = await api.as(shop.domain).get('/shipments?search=3002');
    const id = list.body.rows.find((r: { trackerId: string | null }) => r.trackerId).trackerId as string;
    const down = { operation: 'get', status: 503, body: { message: 'Service unavailable' } };
    await api.app.emulator.control.script([down, down, down]);
    const res = await api.as(shop.domain).get(`/shipments/${id}`);
    await api.app.emulator.control.clearScript();
    expect(res.status).toBe(200);
    expect(res.body.shipment).toBeNull();
    expect(res.body.error).toEqual({ reason: expect.any(String), message: expect.stringMatching(/503/) });
    expect(res.body.tracker.id).toBe(id);
  });

  it('answers 404 for an unknown id', async () => {
    const res = await api.as(shop.domain).get('/shipments/00000000-0000-0000-0000-000000000000');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found' });
  });
});

describe('sync states', () => {
  it('derives each sync state from desired, remote and sync state', async () => {
    // A shop not connected yet: the worker leaves its rows alone, so each stays in the state made here.
    const domain = `${uniqueName('states')}.myshopify.com`;
    await api.as(domain).get('/shop');
    const row = await prisma.shop.findUniqueOrThrow({ where: { domain } });
    const make = async (orderId: string, number: string, overrides: TrackerOverrides | null) => {
      const tracker = overrides
        ? await createTracker(prisma, row.id, { trackingNumber: number, ...overrides })
        : null;
      await prisma.trackingLine.create({
        data: {
          shopId: row.id,
          fulfillmentId: `f-${number}`,
          orderId,
          orderName: `#${orderId}`,
          trackingNumber: number,
          carrierName: tracker ? 'UPS' : 'Speedy',
          carrierKey: tracker ? 'ups' : 'speedy',
          active: !overrides || overrides.desired !== 'removed',
          trackerId: tracker?.id ?? null,
        },
      });
    };
    await make('1', 'N-CREATING', { desired: 'active', remote: 'absent', syncState: 'pending' });
    await make('1', 'N-UNKNOWN', { desired: 'active', remote: 'unknown', syncState: 'pending' });
    await make('2', 'N-ACTIVE', { desired: 'active', remote: 'present', syncState: 'synced' });
    await make('3', 'N-REMOVING', { desired: 'removed', remote: 'present', syncState: 'pending' });
    await make('3', 'N-REMOVED', { desired: 'removed', remote: 'absent', syncState: 'synced' });
    await make('4', 'N-FAILED', { desired: 'active', remote: 'absent', syncState: 'failed' });
    await make('4', 'N-DEAD', { desired: 'active', remote: 'unknown', syncState: 'dead' });
    await make('5', 'N-WAITING', null);

    const list = await api.as(domain).get('/shipments');
    const states = Object.fromEntries(list.body.rows.map((r: Row) => [r.trackingNumber, r.sync.state]));
    expect(states).toEqual({
      'N-CREATING': 'syncing',
      'N-UNKNOWN': 'syncing',
      'N-ACTIVE': 'tracked',
      'N-REMOVING': 'removing',
      'N-REMOVED': 'removed',
      'N-FAILED': 'failed',
      'N-DEAD': 'failed',
      'N-WAITING': 'waiting_carrier',
    });
  });

  it('a tracker of a shop with no key: the status cannot be read, and says why', async () => {
    const domain = `${uniqueName('nokey')}.myshopify.com`;
    await api.as(domain).get('/shop');
    const row = await prisma.shop.findUniqueOrThrow({ where: { domain } });
    const tracker = await createTracker(prisma, row.id, { trackingNumber: '1ZNOKEY000000001' });
    const res = await api.as(domain).get(`/shipments/${tracker.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      tracker: { id: tracker.id, state: 'creating', orderId: tracker.orderKey, orderName: null },
      shipment: null,
      error: { reason: 'not_connected', message: expect.any(String) },
    });
  });
});
