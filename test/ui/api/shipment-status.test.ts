import type { ShipmentListRow } from '../../../src/ui/api/shipment-list.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/db/client.js';
import type { Tracker } from '../../../src/generated/sqlite/client.js';
import { createTracker, type TrackerOverrides } from '../../helpers/factories.js';
import { type PageApiHarness, startPageApi, uniqueName } from './harness.js';

/**
 * What the page shows of the statuses the poller stores on trackers: the list's status columns and the
 * order's "Delivered" badge, the store writes that failed, and the stored status in a shipment's detail. Rows are written directly, for shops that are not
 * connected: the worker leaves them alone, so each stays as seeded.
 */

let api: PageApiHarness;
let prisma: DatabaseClient;

const day = 86_400_000;
const hour = 3_600_000;
const ago = (ms: number) => new Date(Date.now() - ms);

beforeAll(async () => {
  api = await startPageApi();
  prisma = api.app.database.prisma;
});
afterAll(async () => {
  api?.expectNoKeyLeaked();
  await api?.close();
});

interface SeedShop {
  domain: string;
  id: string;
}

/** A shop seen by the page but never connected. */
async function newShop(name: string, settings: Record<string, unknown> = {}): Promise<SeedShop> {
  const domain = `${uniqueName(name)}.myshopify.com`;
  await api.as(domain).get('/shop');
  if (Object.keys(settings).length > 0) {
    const res = await api.as(domain).put('/settings', settings);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  const row = await prisma.shop.findUniqueOrThrow({ where: { domain } });
  return { domain, id: row.id };
}

/** A tracker held by the service (active, synced) with its store line. */
async function parcel(
  shop: SeedShop,
  order: string,
  number: string,
  overrides: TrackerOverrides = {},
  line: { active?: boolean; carrierName?: string } = {},
): Promise<Tracker> {
  const tracker = await createTracker(prisma, shop.id, {
    trackingNumber: number,
    desired: 'active',
    remote: 'present',
    syncState: 'synced',
    syncedAt: ago(1 * hour),
    nextPollAt: null,
    ...overrides,
  });
  await prisma.trackingLine.create({
    data: {
      shopId: shop.id,
      fulfillmentId: `f-${number}`,
      orderId: order,
      orderName: `#${order}`,
      trackingNumber: number,
      carrierName: line.carrierName ?? 'UPS',
      carrierKey: (line.carrierName ?? 'UPS').toLowerCase(),
      active: line.active ?? overrides.desired !== 'removed',
      trackerId: tracker.id,
    },
  });
  return tracker;
}

/** A line waiting for its carrier to be mapped (no tracker). */
async function waitingLine(shop: SeedShop, order: string, number: string) {
  await prisma.trackingLine.create({
    data: {
      shopId: shop.id,
      fulfillmentId: `f-${number}`,
      orderId: order,
      orderName: `#${order}`,
      trackingNumber: number,
      carrierName: 'Speedy',
      carrierKey: 'speedy',
    },
  });
}

function storeEvent(
  shop: SeedShop,
  tracker: Tracker,
  data: { status: string; state: string; happenedAt: Date; error?: string | null; message?: string },
) {
  return prisma.storeFulfillmentEvent.create({
    data: {
      shopId: shop.id,
      trackerId: tracker.id,
      fulfillmentId: `5500${tracker.trackingNumber.length}`,
      status: data.status,
      state: data.state,
      happenedAt: data.happenedAt,
      message: data.message ?? null,
      error: data.error ?? null,
    },
  });
}

interface ListedOrder {
  orderId: string;
  delivered: boolean;
  trackers: ShipmentListRow[];
}

/** The list's rows grouped by order, oldest line first within an order. */
async function orders(domain: string): Promise<Map<string, ListedOrder>> {
  const res = await api.as(domain).get('/shipments');
  expect(res.status).toBe(200);
  const byOrder = new Map<string, ListedOrder>();
  for (const row of [...(res.body.rows as ShipmentListRow[])].reverse()) {
    const order = byOrder.get(row.orderId) ?? {
      orderId: row.orderId,
      delivered: row.orderDelivered,
      trackers: [],
    };
    order.trackers.push(row);
    byOrder.set(row.orderId, order);
  }
  return byOrder;
}

async function refused(domain: string) {
  const res = await api.as(domain).get('/store-writes/refused');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { failed: number; writes: Array<Record<string, unknown>>; next: string | null };
}

describe('GET /shipments: the stored status of each tracker', () => {
  it('shows the status in words, the estimated delivery and the last event; no status yet: none', async () => {
    const shop = await newShop('status-list');
    const checked = ago(10 * 60_000);
    const lastEventAt = ago(3 * hour);
    await parcel(shop, '10', 'S-TRANSIT', {
      status: 'in_transit',
      statusDetail: 'arrived_at_facility',
      estimatedDelivery: '2026-11-24',
      lastEventAt,
      lastEventMessage: 'Arrived at facility',
      lastEventLocation: 'Louisville, KY, US',
      statusCheckedAt: checked,
    });
    await parcel(shop, '11', 'S-OFD', { status: 'in_transit', statusDetail: 'out_for_delivery' });
    await parcel(shop, '12', 'S-LABEL', { status: 'pre_transit' });
    await parcel(shop, '13', 'S-FAIL', { status: 'failure' });
    await parcel(shop, '14', 'S-RTS', { status: 'return_to_sender' });
    await parcel(shop, '15', 'S-ODD', { status: 'held_at_customs' });
    await parcel(shop, '16', 'S-NEW', { remote: 'absent', syncState: 'pending', syncedAt: null });

    const listed = await orders(shop.domain);
    const row = (order: string) => listed.get(order)!.trackers[0]!;
    expect(row('10')).toMatchObject({
      sync: { state: 'tracked' },
      parcel: {
        group: 'in_transit',
        code: 'in_transit',
        detail: 'arrived_at_facility',
        label: 'In transit',
        tone: 'transit',
        action: null,
      },
      estimatedDelivery: '2026-11-24',
      lastEvent: {
        at: lastEventAt.toISOString(),
        message: 'Arrived at facility',
        location: 'Louisville, KY, US',
      },
      statusCheckedAt: checked.toISOString(),
    });
    expect(row('11').parcel).toMatchObject({
      group: 'out_for_delivery',
      label: 'Out for delivery',
      tone: 'transit',
    });
    expect(row('12').parcel).toMatchObject({
      group: 'info_received',
      label: 'Label created',
      tone: 'pending',
    });
    expect(row('13').parcel).toMatchObject({
      group: 'failed_attempt',
      label: 'Delivery attempt failed',
      tone: 'exception',
    });
    expect(row('14').parcel).toMatchObject({ group: 'exception', label: 'Returned', tone: 'exception' });
    expect(row('15').parcel).toMatchObject({
      group: 'in_transit',
      code: 'held_at_customs',
      label: 'Held at customs',
    });
    // Not read yet: no scan, and the sync column says the tracker is being created.
    expect(row('16')).toMatchObject({
      sync: { state: 'syncing' },
      parcel: { group: 'not_scanned', code: null, label: 'No scan yet' },
      lastEvent: null,
      estimatedDelivery: null,
    });
  });
});

describe('GET /shipments: the order "Delivered" badge', () => {
  let shop: SeedShop;

  beforeAll(async () => {
    shop = await newShop('delivered');
    const delivered = { status: 'delivered', lastEventAt: ago(2 * day) };
    // Both parcels delivered.
    await parcel(shop, '20', 'D-20-A', delivered);
    await parcel(shop, '20', 'D-20-B', delivered);
    // One still moving.
    await parcel(shop, '21', 'D-21-A', delivered);
    await parcel(shop, '21', 'D-21-B', { status: 'out_for_delivery' });
    // One parcel's fulfilment was cancelled (its tracker is being removed): not one of the order's parcels.
    await parcel(shop, '22', 'D-22-A', delivered);
    await parcel(shop, '22', 'D-22-X', { desired: 'removed', status: 'in_transit' });
    // One parcel waiting for its carrier: it has no status, so the order is not delivered.
    await parcel(shop, '23', 'D-23-A', delivered);
    await waitingLine(shop, '23', 'D-23-WAIT');
    // A parcel never read.
    await parcel(shop, '24', 'D-24-A', delivered);
    await parcel(shop, '24', 'D-24-B', {});
  });

  it('an order whose every wanted parcel is delivered is delivered; any other is not', async () => {
    const listed = await orders(shop.domain);
    expect(Object.fromEntries([...listed].map(([id, o]) => [id, o.delivered]))).toEqual({
      '20': true,
      '21': false,
      '22': true,
      '23': false,
      '24': false,
    });
  });

  it('with showOrderDelivered off no order is shown delivered; on again, they are', async () => {
    const off = await api.as(shop.domain).put('/settings', { showOrderDelivered: false });
    expect(off.body.settings.showOrderDelivered).toBe(false);
    const listed = await orders(shop.domain);
    expect([...listed.values()].every((o) => !o.delivered)).toBe(true);
    // The parcels' own statuses are still shown.
    expect(listed.get('20')!.trackers.map((t) => t.parcel.label)).toEqual(['Delivered', 'Delivered']);

    await api.as(shop.domain).put('/settings', { showOrderDelivered: true });
    expect((await orders(shop.domain)).get('20')!.delivered).toBe(true);
  });
});

describe('GET /store-writes/refused', () => {
  it('counts the status changes the store refused and lists the newest few with their error', async () => {
    const writes = await newShop('store-writes');
    const tracker = await parcel(writes, '60', 'W-1', { status: 'in_transit', lastEventAt: ago(hour) });
    const base = Date.now() - day;
    for (let i = 0; i < 7; i++) {
      const row = await storeEvent(writes, tracker, {
        status: i % 2 ? 'IN_TRANSIT' : 'OUT_FOR_DELIVERY',
        state: 'failed',
        happenedAt: new Date(base + i * 60_000),
        error: `Fulfillment not found (${i})`,
      });
      await prisma.storeFulfillmentEvent.update({
        where: { id: row.id },
        data: { updatedAt: new Date(base + i * 60_000) },
      });
    }
    await storeEvent(writes, tracker, {
      status: 'LABEL_PRINTED',
      state: 'sent',
      happenedAt: new Date(base - hour),
    });
    await storeEvent(writes, tracker, { status: 'DELIVERED', state: 'pending', happenedAt: new Date() });

    const body = await refused(writes.domain);
    expect(body.failed).toBe(7);
    expect(body.writes.map((w) => w.error)).toEqual([
      'Fulfillment not found (6)',
      'Fulfillment not found (5)',
      'Fulfillment not found (4)',
      'Fulfillment not found (3)',
      'Fulfillment not found (2)',
      'Fulfillment not found (1)',
      'Fulfillment not found (0)',
    ]);
    expect(body.writes[0]).toMatchObject({
      trackerId: tracker.id,
      trackingNumber: 'W-1',
      orderName: '#60',
      status: 'OUT_FOR_DELIVERY',
      happenedAt: new Date(base + 6 * 60_000).toISOString(),
    });

    // Nothing failed: a count of 0 and an empty list.
    expect(await refused((await newShop('store-writes-none')).domain)).toMatchObject({
      failed: 0,
      writes: [],
      next: null,
    });
  });
});

describe("another shop's shipments and store writes are never shown", () => {
  it("A's store writes, shipments and detail hold none of B's rows", async () => {
    const a = await newShop('iso-status-a');
    const b = await newShop('iso-status-b');
    const aLate = await parcel(a, '70', 'A-LATE', { status: 'in_transit', lastEventAt: ago(10 * day) });
    const bLate = await parcel(b, '70', 'B-LATE', { status: 'in_transit', lastEventAt: ago(10 * day) });
    await parcel(b, '71', 'B-EXC', { status: 'failure', lastEventAt: ago(hour) });
    await storeEvent(b, bLate, {
      status: 'IN_TRANSIT',
      state: 'failed',
      happenedAt: ago(day),
      error: 'B only',
    });
    await storeEvent(a, aLate, { status: 'IN_TRANSIT', state: 'sent', happenedAt: ago(10 * day) });
    // The same tracking number in both shops (one per shop and provider).
    await parcel(b, '72', 'A-LATE', { status: 'failure', lastEventAt: ago(hour) });

    expect(await refused(a.domain)).toMatchObject({ failed: 0, writes: [] });
    expect((await refused(b.domain)).failed).toBe(1);

    const detail = await api.as(a.domain).get(`/shipments/${aLate.id}`);
    expect(detail.body.storeEvents).toHaveLength(1);
    expect(detail.body.storeEvents[0]).toMatchObject({ state: 'sent' });
    expect(JSON.stringify(detail.body)).not.toContain('B only');
    expect((await api.as(a.domain).get(`/shipments/${bLate.id}`)).status).toBe(404);

    const listed = await orders(a.domain);
    expect([...listed.values()].flatMap((o) => o.trackers.map((t) => t.trackingNumber))).toEqual(['A-LATE']);
    expect(listed.get('70')!.trackers[0]!.parcel.code).toBe('in_transit');
  });
});

describe('GET /shipments/:trackerId with a stored status', () => {
  it('includes the stored status and events, and the updates written to the store', async () => {
    const shop = await newShop('detail-stored');
    const events = [
      {
        at: '2026-11-18T15:00:00.000Z',
        status: 'pre_transit',
        statusDetail: 'label_created',
        message: 'Label created',
        location: null,
      },
      {
        at: '2026-11-19T09:30:00.000Z',
        status: 'in_transit',
        statusDetail: 'picked_up',
        message: 'Picked up',
        location: 'Louisville, KY, US',
      },
      { at: null, status: 'in_transit', statusDetail: null, message: 'Scan without a time', location: null },
    ];
    const checkedAt = ago(20 * 60_000);
    const tracker = await parcel(shop, '80', '1ZSTORED000000080', {
      status: 'in_transit',
      statusDetail: 'picked_up',
      estimatedDelivery: '2026-11-22',
      lastEventAt: new Date('2026-11-19T09:30:00.000Z'),
      lastEventMessage: 'Picked up',
      lastEventLocation: 'Louisville, KY, US',
      events: JSON.stringify(events),
      statusCheckedAt: checkedAt,
    });
    await storeEvent(shop, tracker, {
      status: 'LABEL_PRINTED',
      state: 'sent',
      happenedAt: new Date('2026-11-18T15:00:00.000Z'),
      message: 'Label created',
    });
    await storeEvent(shop, tracker, {
      status: 'CARRIER_PICKED_UP',
      state: 'failed',
      happenedAt: new Date('2026-11-19T09:30:00.000Z'),
      error: 'Fulfillment is cancelled',
    });

    const res = await api.as(shop.domain).get(`/shipments/${tracker.id}`);
    expect(res.status).toBe(200);
    // The shop has no key: the live read cannot happen, the stored status still answers.
    expect(res.body.error).toMatchObject({ reason: 'not_connected' });
    expect(res.body.shipment).toBeNull();
    expect(res.body.tracker).toMatchObject({
      id: tracker.id,
      orderName: '#80',
      status: { code: 'in_transit', label: 'Picked up', tone: 'transit' },
      estimatedDelivery: '2026-11-22',
    });
    expect(res.body.stored).toEqual({
      status: {
        code: 'in_transit',
        detail: 'picked_up',
        group: 'in_transit',
        label: 'Picked up',
        tone: 'transit',
        advice: null,
        action: null,
      },
      estimatedDelivery: '2026-11-22',
      lastEventAt: '2026-11-19T09:30:00.000Z',
      lastEventMessage: 'Picked up',
      lastEventLocation: 'Louisville, KY, US',
      checkedAt: checkedAt.toISOString(),
      events,
    });
    expect(res.body.storeEvents).toEqual([
      {
        id: expect.any(String),
        fulfillmentId: expect.any(String),
        status: 'CARRIER_PICKED_UP',
        happenedAt: '2026-11-19T09:30:00.000Z',
        message: null,
        state: 'failed',
        error: 'Fulfillment is cancelled',
        attempts: 0,
        updatedAt: expect.any(String),
      },
      expect.objectContaining({
        status: 'LABEL_PRINTED',
        state: 'sent',
        error: null,
        message: 'Label created',
      }),
    ]);
  });

  it('unreadable stored events are left out rather than failing the detail', async () => {
    const shop = await newShop('detail-bad-json');
    const broken = await parcel(shop, '81', 'BROKEN-JSON', { status: 'in_transit', events: '{not json' });
    const odd = await parcel(shop, '82', 'ODD-JSON', {
      status: 'in_transit',
      events: JSON.stringify([null, 7, { message: 'Only a message', at: 'not a date' }]),
    });
    const first = await api.as(shop.domain).get(`/shipments/${broken.id}`);
    expect(first.status).toBe(200);
    expect(first.body.stored.events).toEqual([]);
    const second = await api.as(shop.domain).get(`/shipments/${odd.id}`);
    expect(second.body.stored.events).toEqual([
      { at: null, status: 'unknown', statusDetail: null, message: 'Only a message', location: null },
    ]);
  });
});
