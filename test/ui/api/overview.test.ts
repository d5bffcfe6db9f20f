import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/db/client.js';
import type { Overview } from '../../../src/ui/api/overview.js';
import { createDelivery, createTracker } from '../../helpers/factories.js';
import { type PageApiHarness, startPageApi, uniqueName } from './harness.js';

/**
 * GET /overview: every health count is the count of the list it links to, so the Overview can never
 * say "all written" beside refused writes, or "no tracker yet" beside a listed one.
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

async function overviewOf(domain: string): Promise<Overview> {
  const res = await api.as(domain).get('/overview');
  expect(res.status).toBe(200);
  return res.body as Overview;
}

const healthOf = (o: Overview) => Object.fromEntries(o.health.map((h) => [h.key, h]));

describe('GET /overview', () => {
  it('a new shop: the setup guide with nothing done, every health line at zero', async () => {
    const domain = `${uniqueName('new')}.myshopify.com`;
    const overview = await overviewOf(domain);
    expect(overview.setup.done).toBe(false);
    expect(overview.setup.steps.map((s) => [s.key, s.done])).toEqual([
      ['connect', false],
      ['carriers', true],
      ['first_tracker', false],
    ]);
    expect(overview.health.every((h) => h.count === 0 && h.tone === 'success')).toBe(true);
    expect(overview.connection).toMatchObject({ hasApiKey: false, paused: { reason: 'not_connected' } });
    expect(overview.trackingPage).toEqual({
      url: `https://${domain}/apps/track`,
      lookups: 0,
      links: { on: false, set: 0, waiting: 0, failed: 0, problem: null },
    });
  });

  it('says how far the tracking-page links are set, with the store’s latest reason', async () => {
    const domain = `${uniqueName('links')}.myshopify.com`;
    await api.as(domain).get('/shop');
    const { id: shopId } = await prisma.shop.update({
      where: { domain },
      data: { linkToTrackingPage: true },
    });
    const row = (fulfillmentId: string, state: string, extra: object = {}) =>
      prisma.storeTrackingLink.create({
        data: { shopId, fulfillmentId, wanted: 'store', state, ...extra },
      });
    await row('1', 'sent', { applied: 'store' });
    await row('2', 'sent', { applied: 'store' });
    // Not due for an hour: the app's worker leaves it as it is.
    await row('3', 'pending', { error: 'Throttled', nextAttemptAt: new Date(Date.now() + 3_600_000) });
    await row('4', 'failed', { error: 'Fulfillment does not exist.' });
    // A row from when the setting was off does not count.
    await prisma.storeTrackingLink.create({
      data: { shopId, fulfillmentId: '5', wanted: 'carrier', state: 'failed', error: 'old' },
    });
    expect((await overviewOf(domain)).trackingPage.links).toEqual({
      on: true,
      set: 2,
      waiting: 1,
      failed: 1,
      problem: 'Fulfillment does not exist.',
    });
  });

  it('counts each problem by the list it links to', async () => {
    const domain = `${uniqueName('problems')}.myshopify.com`;
    await api.as(domain).get('/shop');
    const { id } = await prisma.shop.findUniqueOrThrow({ where: { domain } });
    const failedA = await createTracker(prisma, id, {
      syncState: 'failed',
      lastErrorReason: 'destination_required',
    });
    await createTracker(prisma, id, { syncState: 'dead' });
    for (const [i, number] of ['W1', 'W2'].entries()) {
      await prisma.trackingLine.create({
        data: {
          shopId: id,
          fulfillmentId: `f-w${i}`,
          orderId: `w${i}`,
          trackingNumber: number,
          carrierName: 'Speedy',
        },
      });
    }
    for (let i = 0; i < 3; i++) {
      await prisma.storeFulfillmentEvent.create({
        data: {
          shopId: id,
          trackerId: failedA.id,
          fulfillmentId: 'f-1',
          status: 'IN_TRANSIT',
          happenedAt: new Date(Date.now() - i * 60_000),
          state: 'failed',
          error: 'The store refused the event',
        },
      });
    }
    await createDelivery(prisma, { id: 1 }, { shopDomain: domain, state: 'failed' });

    const overview = await overviewOf(domain);
    const health = healthOf(overview);
    const failed = (await api.as(domain).get('/failed')).body;
    const refused = (await api.as(domain).get('/store-writes/refused')).body;
    const waiting = (await api.as(domain).get('/shipments?sync=waiting_carrier')).body;
    expect(health.failed_trackers).toMatchObject({
      count: failed.trackers.length,
      tone: 'critical',
      page: 'activity',
    });
    expect(failed.trackers).toHaveLength(2);
    expect(health.failed_deliveries).toMatchObject({ count: failed.deliveries.length, tone: 'critical' });
    expect(failed.deliveries).toHaveLength(1);
    expect(health.store_writes_refused).toMatchObject({
      count: refused.failed,
      tone: 'warning',
    });
    expect(refused.failed).toBe(3);
    // Open shipment problems are counted in `problems` (the Needs attention page's list), not as a health line.
    expect(health.needs_attention).toBeUndefined();
    expect(health.waiting_carrier).toMatchObject({
      count: waiting.total,
      page: 'shipments',
      filter: { sync: 'waiting_carrier' },
    });
    expect(waiting.total).toBe(2);
    expect(overview.setup.steps.find((s) => s.key === 'first_tracker')!.done).toBe(true);
    expect(overview.setup.steps.find((s) => s.key === 'carriers')!.done).toBe(false);
  });

  it('a connected shop with trackers has its setup done', async () => {
    const shop = await api.connectedShop('connected');
    await api.fulfil(shop.domain, { trackingNumbers: ['1ZOVERVIEW0000001'], carrier: 'UPS' });
    await api.settled(shop.domain);
    const overview = await overviewOf(shop.domain);
    expect(overview.setup).toMatchObject({ done: true });
    expect(overview.connection).toMatchObject({ hasApiKey: true, paused: null, appName: shop.appName });
  });

  it('counts the open shipment problems by kind (snoozed ones left out) and forecasts the balance', async () => {
    const domain = `${uniqueName('problems')}.myshopify.com`;
    const first = await overviewOf(domain);
    expect(first.problems).toMatchObject({ total: 0, byKind: { stalled: 0, on_hold: 0 } });
    expect(first.balance).toBeNull();

    const shop = await prisma.shop.findUniqueOrThrow({ where: { domain } });
    const trackers = [];
    for (let i = 0; i < 3; i++) trackers.push(await createTracker(prisma, shop.id, { remote: 'present' }));
    const since = new Date('2026-11-20T10:00:00Z');
    await prisma.shipmentProblem.createMany({
      data: [
        { shopId: shop.id, trackerId: trackers[0]!.id, kind: 'stalled', since },
        { shopId: shop.id, trackerId: trackers[1]!.id, kind: 'on_hold', since },
        // Snoozed to a day ahead, and one closed: neither counted.
        {
          shopId: shop.id,
          trackerId: trackers[2]!.id,
          kind: 'on_hold',
          since,
          snoozedUntil: new Date(Date.now() + 86_400_000),
        },
        {
          shopId: shop.id,
          trackerId: trackers[2]!.id,
          kind: 'stalled',
          since,
          closedAt: new Date(),
          closedReason: 'moved',
        },
      ],
    });
    // 28 parcels taken in the last 14 days (the rollup the forecast reads): 2 a day; 5 left lasts 2 days.
    const today = new Date().toISOString().slice(0, 10);
    await prisma.shipmentCount.create({
      data: { shopId: shop.id, day: today, parcelGroup: 'in_transit', syncState: 'synced', count: 28 },
    });
    await prisma.shop.update({ where: { id: shop.id }, data: { trackersBalance: 5 } });
    const overview = await overviewOf(domain);
    expect(overview.problems).toMatchObject({ total: 2, byKind: { stalled: 1, on_hold: 1, returning: 0 } });
    expect(overview.balance).toEqual({ perDay: 2, daysLeft: 2, warn: true });
    // A balance that lasts longer than the shop's warning days is not warned about.
    await prisma.shop.update({ where: { id: shop.id }, data: { trackersBalance: 500 } });
    expect((await overviewOf(domain)).balance).toEqual({ perDay: 2, daysLeft: 250, warn: false });
  });
});
