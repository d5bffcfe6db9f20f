import type { ShipmentListRow } from '../../../src/ui/api/shipment-list.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/db/client.js';
import type { Tracker } from '../../../src/generated/sqlite/client.js';
import { createTracker, type TrackerOverrides } from '../../helpers/factories.js';
import { type PageApiHarness, startPageApi, uniqueName } from './harness.js';

/**
 * What the page shows of the statuses the poller stores on trackers: the list's status columns and the
 * order's "Delivered" badge, the "needs attention" list (late and exceptions, and store writes that
 * failed), and the stored status in a shipment's detail. Rows are written directly, for shops that are not
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
interface AttentionRow {
  trackingNumber: string;
  orderName: string | null;
  reason: string;
  label: string;
  daysQuiet: number;
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

async function attention(domain: string, query = '') {
  const res = await api.as(domain).get(`/shipments/attention${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    staleAfterDays: number;
    postFulfillmentEvents: boolean;
    shipments: AttentionRow[];
    nextCursor: string | null;
    total: number;
  };
}

const numbers = (rows: AttentionRow[]) => rows.map((r) => r.trackingNumber);

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

describe('GET /shipments/attention', () => {
  let shop: SeedShop;

  beforeAll(async () => {
    shop = await newShop('attention');
    // Late by the newest event, either side of the 5 days.
    await parcel(shop, '30', 'L-5D-OVER', {
      status: 'in_transit',
      lastEventAt: ago(5 * day + 10 * 60_000),
      lastEventMessage: 'Departed facility',
      lastEventLocation: 'Memphis, TN, US',
    });
    await parcel(shop, '31', 'L-5D-UNDER', { status: 'in_transit', lastEventAt: ago(5 * day - hour) });
    // Never an event: counted from when the service took it, else from its creation.
    await parcel(shop, '32', 'L-SYNCED', { status: 'pending', syncedAt: ago(8 * day) });
    await parcel(shop, '33', 'L-CREATED', { syncedAt: null, createdAt: ago(12 * day) });
    await parcel(shop, '34', 'L-FRESH', { syncedAt: ago(2 * day) });
    // Final statuses are never late, however quiet.
    await parcel(shop, '35', 'F-DELIVERED', { status: 'delivered', lastEventAt: ago(40 * day) });
    await parcel(shop, '36', 'F-CANCELLED', { status: 'cancelled', lastEventAt: ago(40 * day) });
    // Exceptions are listed at once, final or not.
    await parcel(shop, '37', 'E-FAILURE', {
      status: 'failure',
      statusDetail: 'address_issue',
      lastEventAt: ago(2 * hour),
      lastEventMessage: 'Address could not be found',
    });
    await parcel(shop, '38', 'E-RETURNED', { status: 'return_to_sender', lastEventAt: ago(20 * day) });
    // Not listed: no longer wanted, or not (yet) at the service.
    await parcel(shop, '39', 'N-REMOVED', {
      desired: 'removed',
      status: 'in_transit',
      lastEventAt: ago(30 * day),
    });
    await parcel(shop, '40', 'N-REMOVED-EXC', {
      desired: 'removed',
      status: 'failure',
      lastEventAt: ago(day),
    });
    await parcel(shop, '41', 'N-CREATING', {
      remote: 'absent',
      syncState: 'failed',
      syncedAt: null,
      createdAt: ago(30 * day),
    });
  });

  it('lists late shipments (no new event for staleAfterDays) and exceptions, newest problem first', async () => {
    const body = await attention(shop.domain);
    expect(body).toMatchObject({ staleAfterDays: 5, postFulfillmentEvents: true, nextCursor: null });
    expect(numbers(body.shipments)).toEqual([
      'E-FAILURE',
      'L-5D-OVER',
      'L-SYNCED',
      'L-CREATED',
      'E-RETURNED',
    ]);
    expect(body.total).toBe(5);

    const byNumber = new Map(body.shipments.map((s) => [s.trackingNumber, s]));
    expect(byNumber.get('L-5D-OVER')).toEqual({
      id: expect.any(String),
      trackingNumber: 'L-5D-OVER',
      provider: 'ups',
      carrierName: 'UPS',
      orderId: '30',
      orderName: '#30',
      reason: 'late',
      label: 'No scan for 5 days',
      status: {
        code: 'in_transit',
        detail: null,
        group: 'in_transit',
        label: 'In transit',
        tone: 'transit',
        advice: null,
        action: null,
      },
      lastEvent: { at: expect.any(String), message: 'Departed facility', location: 'Memphis, TN, US' },
      quietSince: expect.any(String),
      daysQuiet: 5,
    });
    expect(byNumber.get('L-SYNCED')).toMatchObject({
      reason: 'late',
      label: 'No scan for 8 days',
      daysQuiet: 8,
    });
    expect(byNumber.get('L-CREATED')).toMatchObject({
      reason: 'late',
      label: 'No scan for 12 days',
      status: null,
      lastEvent: null,
    });
    expect(byNumber.get('E-FAILURE')).toMatchObject({
      reason: 'exception',
      label: 'Delivery attempt failed',
      daysQuiet: 0,
      lastEvent: { message: 'Address could not be found' },
    });
    expect(byNumber.get('E-RETURNED')).toMatchObject({
      reason: 'exception',
      label: 'Returned',
      daysQuiet: 20,
    });
  });

  it("the shop's staleAfterDays moves the boundary", async () => {
    await api.as(shop.domain).put('/settings', { staleAfterDays: 4 });
    expect(numbers((await attention(shop.domain)).shipments)).toEqual([
      'E-FAILURE',
      'L-5D-UNDER',
      'L-5D-OVER',
      'L-SYNCED',
      'L-CREATED',
      'E-RETURNED',
    ]);
    await api.as(shop.domain).put('/settings', { staleAfterDays: 9 });
    const nine = await attention(shop.domain);
    expect(nine.staleAfterDays).toBe(9);
    expect(numbers(nine.shipments)).toEqual(['E-FAILURE', 'L-CREATED', 'E-RETURNED']);
    await api.as(shop.domain).put('/settings', { staleAfterDays: 1 });
    expect(numbers((await attention(shop.domain)).shipments)).toEqual([
      'E-FAILURE',
      'L-FRESH',
      'L-5D-UNDER',
      'L-5D-OVER',
      'L-SYNCED',
      'L-CREATED',
      'E-RETURNED',
    ]);
    await api.as(shop.domain).put('/settings', { staleAfterDays: 5 });
  });

  it('a shipment that turns delivered leaves the list; one whose event is new again leaves it too', async () => {
    const extra = await newShop('attention-moves');
    const quiet = await parcel(extra, '50', 'M-QUIET', { status: 'in_transit', lastEventAt: ago(7 * day) });
    const other = await parcel(extra, '51', 'M-OTHER', { status: 'in_transit', lastEventAt: ago(7 * day) });
    expect((await attention(extra.domain)).total).toBe(2);
    await prisma.tracker.update({
      where: { id: quiet.id },
      data: { status: 'delivered', lastEventAt: new Date() },
    });
    await prisma.tracker.update({ where: { id: other.id }, data: { lastEventAt: ago(hour) } });
    expect(await attention(extra.domain)).toMatchObject({ total: 0, shipments: [], nextCursor: null });
  });

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

    expect((await attention(writes.domain)).total).toBe(0);
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
    expect(await refused(shop.domain)).toMatchObject({ failed: 0, writes: [], next: null });
  });

  it('pages 100 at a time with the total', async () => {
    const many = await newShop('attention-many');
    const createdAt = ago(20 * day);
    await prisma.tracker.createMany({
      data: Array.from({ length: 105 }, (_, i) => ({
        shopId: many.id,
        trackingNumber: `MANY-${String(i).padStart(3, '0')}`,
        provider: 'ups',
        orderKey: `o-${i}`,
        desired: 'active',
        remote: 'present',
        syncState: 'synced',
        status: 'in_transit',
        lastEventAt: new Date(createdAt.getTime() + i * 60_000),
        createdAt,
      })),
    });
    const first = await attention(many.domain);
    expect(first).toMatchObject({ total: 105, nextCursor: expect.any(String) });
    expect(first.shipments).toHaveLength(100);
    expect(first.shipments[0]!.trackingNumber).toBe('MANY-104');
    // A new problem arriving meanwhile does not shift the next page (keyset, not offset).
    await prisma.tracker.create({
      data: {
        shopId: many.id,
        trackingNumber: 'MANY-NEW',
        provider: 'ups',
        orderKey: 'o-new',
        remote: 'present',
        syncState: 'synced',
        status: 'exception',
        lastEventAt: new Date(),
      },
    });
    const second = await attention(many.domain, `?after=${first.nextCursor}`);
    expect(second).toMatchObject({ total: 106, nextCursor: null });
    expect(numbers(second.shipments)).toEqual(['MANY-004', 'MANY-003', 'MANY-002', 'MANY-001', 'MANY-000']);
    // Shipments with no line yet: the order is the tracker's order key.
    expect(second.shipments[0]).toMatchObject({ orderId: 'o-4', orderName: null, carrierName: null });
  });

  it('refuses a position that is not one', async () => {
    for (const q of ['after=x', 'after=W10', `after=${'A'.repeat(300)}`]) {
      const res = await api.as(shop.domain).get(`/shipments/attention?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body).toEqual({
        error: 'invalid_input',
        issues: [{ field: 'after', message: expect.any(String) }],
      });
    }
  });

  it('an empty shop: nothing needs attention', async () => {
    const empty = await newShop('attention-empty');
    expect(await attention(empty.domain)).toEqual({
      staleAfterDays: 5,
      postFulfillmentEvents: true,
      shipments: [],
      nextCursor: null,
      total: 0,
    });
  });
});

describe("another shop's shipments and store writes are never shown", () => {
  it("A's attention list, shipments and detail hold none of B's rows", async () => {
    const a = await newShop('iso-status-a');
    const b = await newShop('iso-status-b', { staleAfterDays: 1 });
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

    const forA = await attention(a.domain);
    expect(numbers(forA.shipments)).toEqual(['A-LATE']);
    expect(forA.shipments[0]).toMatchObject({ reason: 'late', orderName: '#70' });
    expect(await refused(a.domain)).toMatchObject({ failed: 0, writes: [] });
    expect(forA.staleAfterDays).toBe(5);

    const forB = await attention(b.domain);
    expect(numbers(forB.shipments).sort()).toEqual(['A-LATE', 'B-EXC', 'B-LATE']);
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
