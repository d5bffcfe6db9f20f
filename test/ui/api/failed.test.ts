import { randomUUID } from 'node:crypto';
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
    expect(res.body.counts).toEqual({ trackers: 2, deliveries: 1 });
    expect(res.body.next).toEqual({ trackers: null, deliveries: null });
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

describe('paging the failed lists', () => {
  const minute = 60_000;
  let many: TestShop;
  const trackerIds: string[] = [];
  const deliveryIds: string[] = [];

  beforeAll(async () => {
    many = await api.connectedShop('failed-many');
    const base = Date.parse('2026-11-20T10:00:00Z');
    // 120 failed or dead trackers: times shared by pairs (ties are ordered by id), 4 without a time. Not
    // wanted and not at the service, so a retry settles them without a call.
    const rows = Array.from({ length: 120 }, (_, i) => ({
      id: randomUUID(),
      shopId: many.id,
      trackingNumber: `1ZMANY${String(i).padStart(8, '0')}`,
      provider: 'ups',
      orderKey: String(9_000 + i),
      desired: 'removed',
      remote: 'absent',
      syncState: i % 3 === 0 ? 'dead' : 'failed',
      lastErrorReason: 'unknown',
      lastErrorAt: i < 4 ? null : new Date(base - Math.floor(i / 2) * minute),
    }));
    await prisma.tracker.createMany({ data: rows });
    trackerIds.push(...rows.map((r) => r.id));
    for (let i = 0; i < 55; i++) {
      const delivery = await createDelivery(prisma, `{"id":${i}}`, {
        shopDomain: many.domain,
        state: 'failed',
      });
      deliveryIds.push(delivery.id);
    }
  });

  /** Every page of a list, following `next`. */
  type Row = { id: string; at?: string | null };
  async function allPages(first: { rows: Row[]; next: string | null }, path: string, key: string) {
    const pages = [first.rows];
    let next = first.next;
    while (next) {
      const res = await api.as(many.domain).get(`${path}?after=${encodeURIComponent(next)}`);
      expect(res.status).toBe(200);
      pages.push(res.body[key]);
      next = res.body.next;
    }
    return pages;
  }

  it('gives 50 a page, newest failure first, with the counts of all; the cursors reach every row once', async () => {
    const first = (await api.as(many.domain).get('/failed')).body;
    expect(first.counts).toEqual({ trackers: 120, deliveries: 55 });
    expect(first.trackers).toHaveLength(50);
    expect(first.deliveries).toHaveLength(50);

    const trackerPages = await allPages(
      { rows: first.trackers, next: first.next.trackers },
      '/failed/trackers',
      'trackers',
    );
    expect(trackerPages.map((p) => p.length)).toEqual([50, 50, 20]);
    const trackers = trackerPages.flat() as Array<{ id: string; at: string | null }>;
    expect(new Set(trackers.map((t) => t.id))).toEqual(new Set(trackerIds));
    // Newest failure first, ties by id (descending), those without a time last.
    const timed = trackers.filter((t) => t.at !== null);
    expect(timed).toHaveLength(116);
    expect(trackers.slice(116).every((t) => t.at === null)).toBe(true);
    const key = (t: { at: string | null; id: string }) => `${t.at} ${t.id}`;
    expect(timed.map(key)).toEqual(timed.map(key).sort().reverse());

    const deliveryPages = await allPages(
      { rows: first.deliveries, next: first.next.deliveries },
      '/failed/deliveries',
      'deliveries',
    );
    expect(deliveryPages.map((p) => p.length)).toEqual([50, 5]);
    expect(new Set(deliveryPages.flat().map((d) => d.id))).toEqual(new Set(deliveryIds));

    // Another shop's cursor-less pages see none of these.
    const other = (await api.as(shop.domain).get('/failed')).body;
    expect(other.trackers.map((t: { id: string }) => t.id)).not.toContain(trackerIds[0]);
  });

  it('refuses a cursor it did not make', async () => {
    for (const after of ['nonsense', Buffer.from('{"at":"yesterday","id":"x"}').toString('base64url')]) {
      const res = await api.as(many.domain).get(`/failed/trackers?after=${after}`);
      expect(res.status, after).toBe(400);
      expect(res.body.issues[0].field).toBe('after');
    }
  });

  it('Retry all sends every failed tracker and delivery of the shop round, however many', async () => {
    const res = await api.as(many.domain).post('/failed/retry', {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ retriedTrackers: 120, retriedDeliveries: 55 });
    expect(
      await prisma.tracker.count({ where: { shopId: many.id, syncState: { in: ['failed', 'dead'] } } }),
    ).toBe(0);
  });
});
