import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/db/client.js';
import type { ShipmentListRow, ShipmentsList } from '../../../src/ui/api/shipment-list.js';
import { parcelGroups, syncFilters } from '../../../src/ui/vocabulary.js';
import { createTracker, type TrackerOverrides } from '../../helpers/factories.js';
import { type PageApiHarness, startPageApi, uniqueName } from './harness.js';

/**
 * GET /shipments and GET /shipments.csv: one row per shipment, filters, and counts that are always the
 * number of rows their filter gives (the summary never contradicts the rows).
 */

let api: PageApiHarness;
let prisma: DatabaseClient;

beforeAll(async () => {
  api = await startPageApi();
  prisma = api.app.database.prisma;
});
afterAll(async () => {
  api?.expectNoKeyLeaked();
  await api?.close();
});

/** A shop that is not connected: the worker leaves its rows in the states made here. */
async function seededShop(name: string): Promise<{ domain: string; id: string }> {
  const domain = `${uniqueName(name)}.myshopify.com`;
  await api.as(domain).get('/shop');
  const { id } = await prisma.shop.findUniqueOrThrow({ where: { domain } });
  return { domain, id };
}

interface LineSeed {
  number: string;
  orderId: string;
  createdAt: Date;
  tracker: TrackerOverrides | null;
  active?: boolean;
  endedReason?: string | null;
  carrierName?: string;
}

async function seedLine(shopId: string, seed: LineSeed): Promise<void> {
  const tracker = seed.tracker
    ? await createTracker(prisma, shopId, { trackingNumber: seed.number, ...seed.tracker })
    : null;
  await prisma.trackingLine.create({
    data: {
      shopId,
      fulfillmentId: `f-${seed.orderId}`,
      fulfillmentName: `#${seed.orderId}.1`,
      orderId: seed.orderId,
      orderName: `#${seed.orderId}`,
      trackingNumber: seed.number,
      carrierName: seed.carrierName ?? (tracker ? 'UPS' : 'Speedy'),
      carrierKey: tracker ? 'ups' : 'speedy',
      active: seed.active ?? true,
      endedReason: seed.endedReason ?? null,
      trackerId: tracker?.id ?? null,
      createdAt: seed.createdAt,
    },
  });
}

const day = (d: number) => new Date(Date.UTC(2026, 10, d, 12));
const statuses: Array<[string | null, string | null]> = [
  [null, null],
  ['pending', null],
  ['pre_transit', 'label_created'],
  ['in_transit', null],
  ['in_transit', 'out_for_delivery'],
  ['in_transit', 'available_for_pickup'],
  ['in_transit', 'arrived_at_facility'],
  ['attempt_fail', null],
  ['exception', null],
  ['return_to_sender', null],
  ['delivered', null],
  ['cancelled', null],
  ['some_new_status', null],
];
const trackerStates: Array<Pick<TrackerOverrides, 'desired' | 'remote' | 'syncState'>> = [
  { desired: 'active', remote: 'present', syncState: 'synced' },
  { desired: 'active', remote: 'absent', syncState: 'pending' },
  { desired: 'active', remote: 'absent', syncState: 'failed' },
  { desired: 'active', remote: 'unknown', syncState: 'dead' },
  { desired: 'removed', remote: 'present', syncState: 'pending' },
  { desired: 'removed', remote: 'absent', syncState: 'synced' },
];
const endedReasons = [null, 'order_cancelled', 'fulfillment_cancelled', 'number_removed'];

/** 60 lines over every parcel status, sync state, ending and date, plus lines waiting for a carrier. */
async function seedMix(shopId: string): Promise<number> {
  let n = 0;
  for (let i = 0; i < 54; i++) {
    const [status, statusDetail] = statuses[i % statuses.length]!;
    const state = trackerStates[i % trackerStates.length]!;
    const removed = state.desired === 'removed';
    await seedLine(shopId, {
      number: `MIX${String(i).padStart(3, '0')}`,
      orderId: String(5000 + Math.floor(i / 2)),
      createdAt: day(1 + (i % 20)),
      tracker: { ...state, status, statusDetail, lastErrorReason: 'destination_required' },
      active: !removed,
      endedReason: removed ? endedReasons[i % endedReasons.length] : null,
    });
    n++;
  }
  for (let i = 0; i < 6; i++) {
    await seedLine(shopId, {
      number: `WAIT${i}`,
      orderId: String(6000 + i),
      createdAt: day(21 + i),
      tracker: null,
    });
    n++;
  }
  // Not shown: a line no longer wanted that never had a tracker.
  await seedLine(shopId, {
    number: 'GONE1',
    orderId: '7000',
    createdAt: day(2),
    tracker: null,
    active: false,
  });
  return n;
}

async function list(domain: string, query = ''): Promise<ShipmentsList> {
  const res = await api.as(domain).get(`/shipments${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body as ShipmentsList;
}

/** Every row the query gives, all pages (following nextCursor). */
async function allRows(domain: string, query: URLSearchParams): Promise<ShipmentListRow[]> {
  const rows: ShipmentListRow[] = [];
  for (;;) {
    const answer = await list(domain, `?${query}`);
    rows.push(...answer.rows);
    if (!answer.nextCursor) return rows;
    query.set('after', answer.nextCursor);
  }
}

describe('GET /shipments', () => {
  it('lists every shipment newest first, 50 a page, each once', async () => {
    const shop = await seededShop('list');
    const seeded = await seedMix(shop.id);
    const first = await list(shop.domain);
    expect(first).toMatchObject({ previousCursor: null, total: seeded });
    expect(first.nextCursor).toEqual(expect.any(String));
    expect(first.rows).toHaveLength(50);
    // The second page, then back: the same first page.
    const second = await list(shop.domain, `?after=${first.nextCursor}`);
    expect(second.rows).toHaveLength(seeded - 50);
    expect(second.nextCursor).toBeNull();
    const back = await list(shop.domain, `?before=${second.previousCursor}`);
    expect(back.rows.map((r) => r.key)).toEqual(first.rows.map((r) => r.key));
    expect(back.previousCursor).toBeNull();
    const rows = await allRows(shop.domain, new URLSearchParams());
    expect(rows).toHaveLength(seeded);
    expect(new Set(rows.map((r) => r.key)).size).toBe(seeded);
    const created = rows.map((r) => r.createdAt);
    expect(created).toEqual([...created].sort().reverse());
    expect(rows.map((r) => r.trackingNumber)).not.toContain('GONE1');
  });

  it('pages stay stable while new fulfilments arrive: the next page continues where the last one ended', async () => {
    const shop = await seededShop('stable');
    await seedMix(shop.id);
    const before = await allRows(shop.domain, new URLSearchParams());
    const first = await list(shop.domain);
    // New shipments arrive (newest first: they would push every row down an offset page).
    for (let i = 0; i < 7; i++)
      await seedLine(shop.id, {
        number: `NEW${i}`,
        orderId: String(8000 + i),
        createdAt: new Date(Date.UTC(2027, 0, 1, i)),
        tracker: null,
      });
    const second = await list(shop.domain, `?after=${first.nextCursor}`);
    expect(second.rows.map((r) => r.key)).toEqual(before.slice(50).map((r) => r.key));
    expect(second.total).toBe(before.length + 7);
    // Going back shows the newer rows that arrived since.
    const back = await list(shop.domain, `?before=${second.previousCursor}`);
    expect(back.rows.map((r) => r.key)).toEqual(first.rows.map((r) => r.key));
    expect(back.previousCursor).not.toBeNull();
  });

  it('every count beside a filter is the number of rows that filter lists, with and without other filters', async () => {
    const shop = await seededShop('counts');
    await seedMix(shop.id);
    for (const base of [
      new URLSearchParams(),
      new URLSearchParams({ from: '2026-11-05', to: '2026-11-15' }),
      new URLSearchParams({ search: '50' }),
    ]) {
      const unfiltered = await list(shop.domain, `?${base}`);
      let parcelSum = 0;
      for (const group of parcelGroups) {
        const rows = await allRows(
          shop.domain,
          new URLSearchParams({ ...Object.fromEntries(base), parcel: group }),
        );
        expect(rows.length, `${base} parcel=${group}`).toBe(unfiltered.counts.parcel[group]);
        expect(rows.every((r) => r.parcel.group === group)).toBe(true);
        parcelSum += rows.length;
      }
      expect(parcelSum).toBe(unfiltered.total);
      let syncSum = 0;
      for (const state of syncFilters) {
        const rows = await allRows(
          shop.domain,
          new URLSearchParams({ ...Object.fromEntries(base), sync: state }),
        );
        expect(rows.length, `${base} sync=${state}`).toBe(unfiltered.counts.sync[state]);
        if (state === 'problem') expect(rows.every((r) => r.sync.problem)).toBe(true);
        else {
          expect(rows.every((r) => r.sync.state === state)).toBe(true);
          syncSum += rows.length;
        }
      }
      expect(syncSum).toBe(unfiltered.total);
    }
    // A facet's counts keep the other facet's filter.
    const delivered = await list(shop.domain, '?parcel=delivered');
    const deliveredFailed = await allRows(
      shop.domain,
      new URLSearchParams({ parcel: 'delivered', sync: 'failed' }),
    );
    expect(delivered.counts.sync.failed).toBe(deliveredFailed.length);
  });

  it('says each row in plain words: parcel status and sync apart, a failure once with what to do', async () => {
    const shop = await seededShop('words');
    await seedLine(shop.id, {
      number: 'CANCELLED1',
      orderId: '1',
      createdAt: day(1),
      tracker: { desired: 'removed', remote: 'absent', syncState: 'synced', status: 'pre_transit' },
      active: false,
      endedReason: 'order_cancelled',
    });
    await seedLine(shop.id, {
      number: 'FAILED1',
      orderId: '2',
      createdAt: day(2),
      tracker: {
        desired: 'active',
        remote: 'absent',
        syncState: 'failed',
        lastErrorReason: 'destination_required',
      },
    });
    await seedLine(shop.id, {
      number: 'WAITING1',
      orderId: '3',
      createdAt: day(3),
      tracker: null,
      carrierName: 'Speedy Parcels',
    });
    const rows = Object.fromEntries((await list(shop.domain)).rows.map((r) => [r.trackingNumber, r]));
    // A cancelled line shows its cancellation (the parcel model's ended row), not the tracker's last
    // "Label created", and no estimate; it is filed under the ended row's group too (Ended), as its badge says.
    expect(rows.CANCELLED1).toMatchObject({
      parcel: { group: 'ended', label: 'Order cancelled', tone: 'ended' },
      estimatedDelivery: null,
      estimate: null,
      sync: {
        state: 'order_cancelled',
        label: 'Order cancelled — tracker removed',
        problem: false,
        action: null,
      },
    });
    expect(rows.FAILED1!.sync).toEqual({
      state: 'failed',
      label: 'Failed',
      problem: true,
      reason: 'The carrier needs the destination (postal code and country) and the order has none.',
      action: 'Add the shipping address to the order in your store, then retry.',
    });
    expect(rows.WAITING1).toMatchObject({
      trackerId: null,
      parcel: { group: 'not_scanned', label: 'No scan yet' },
      sync: { state: 'waiting_carrier', label: 'Waiting: map this carrier', problem: true },
    });
    expect(rows.WAITING1!.sync.action).toContain('Speedy Parcels');
  });

  it('refuses bad filters with the reason', async () => {
    const shop = await seededShop('bad');
    for (const [query, field] of [
      ['?from=2026-11-10&to=2026-11-01', 'from'],
      ['?parcel=lost', 'parcel'],
      ['?sync=whatever', 'sync'],
      ['?from=2026-13-40', 'from'],
      ['?after=bm90LWEtY3Vyc29y', 'after'],
      ['?after=x&before=y', 'after'],
    ] as const) {
      const res = await api.as(shop.domain).get(`/shipments${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.issues[0].field, query).toBe(field);
    }
  });

  it('keeps the fulfilment name and the carrier tracking page the store sent; a cancelled fulfilment says so', async () => {
    const shop = await api.connectedShop('intake');
    await api.fulfil(shop.domain, {
      id: 41,
      orderId: 9101,
      name: '#9101.1',
      trackingNumbers: ['1ZURL0000000000001', '1ZURL0000000000002'],
      trackingUrls: ['https://www.ups.com/track?tracknum=1ZURL0000000000001', 'javascript:alert(1)'],
      carrier: 'UPS',
    });
    await api.settled(shop.domain);
    const rows = Object.fromEntries((await list(shop.domain)).rows.map((r) => [r.trackingNumber, r]));
    expect(rows['1ZURL0000000000001']).toMatchObject({
      orderName: '#9101',
      fulfillmentName: '#9101.1',
      trackingUrl: 'https://www.ups.com/track?tracknum=1ZURL0000000000001',
      provider: 'ups',
      sync: { state: 'tracked' },
    });
    expect(rows['1ZURL0000000000002']!.trackingUrl).toBeNull();
  });
});

describe('GET /shipments.csv', () => {
  it('exports the rows the same filters list, in the same order, in the words of the page', async () => {
    const shop = await seededShop('csv');
    await seedMix(shop.id);
    await seedLine(shop.id, {
      number: '=HYPERLINK("http://x")',
      orderId: '9',
      createdAt: day(28),
      tracker: { desired: 'active', remote: 'present', syncState: 'synced', status: 'delivered' },
    });
    const res = await api.as(shop.domain).get('/shipments.csv?parcel=delivered');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="tracksync-shipments-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect(res.text.startsWith('\uFEFFOrder,Fulfilment,Tracking number,')).toBe(true);
    const lines = res.text
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    const rows = await allRows(shop.domain, new URLSearchParams({ parcel: 'delivered' }));
    expect(lines).toHaveLength(rows.length + 1);
    expect(lines[1]).toBe(
      `#9,#9.1,"'=HYPERLINK(""http://x"")",UPS,Delivered,,Tracked,,,,${rows[0]!.createdAt},`,
    );
    for (const [i, row] of rows.entries())
      expect(lines[i + 1]).toContain(row.trackingNumber.replace(/"/g, '""'));
  });

  it('exports a shop of more than one batch whole', async () => {
    const shop = await seededShop('csv-big');
    const now = Date.now();
    await prisma.trackingLine.createMany({
      data: Array.from({ length: 1234 }, (_, i) => ({
        shopId: shop.id,
        fulfillmentId: `f-${i}`,
        orderId: String(i),
        trackingNumber: `BIG${i}`,
        active: true,
        createdAt: new Date(now - (i % 7) * 1000),
      })),
    });
    const res = await api.as(shop.domain).get('/shipments.csv');
    const lines = res.text.trimEnd().split('\r\n');
    expect(lines).toHaveLength(1235);
    expect(new Set(lines.slice(1).map((l) => l.split(',')[2])).size).toBe(1234);
  });
});
