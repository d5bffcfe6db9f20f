import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/app.js';
import { clientAddress, signedProxyQuery } from '../helpers/proxy.js';
import { addShop, type ScenarioShop } from '../helpers/scenario.js';
import { fixture } from '../helpers/webhooks.js';

/**
 * The shoppers' page keeps data fresh cheaply: a stale order is read with one by-order-id call for all
 * its parcels, shared by lookups at the same moment, stored like a poll; a failing or slow service leaves
 * the page answering from stored data.
 */

let app: TestApp;
let shop: ScenarioShop;

beforeAll(async () => {
  app = await startTestApp({ connect: false });
  shop = await addShop(app, 'proxy-refresh');
  await shop.send('fulfillments/create', fixture('fulfillments-create.dhl-two-parcels'));
  await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));
  await shop.settled();
});
afterEach(async () => {
  await app.emulator.control.setFaults({});
});
afterAll(async () => {
  await app?.close();
});

const lookup = () =>
  fetch(
    `${app.url}/proxy?${signedProxyQuery({ shop: shop.domain, order: '1002', email: 'm.keller@example.de' }, TEST_SECRET)}`,
    { headers: { 'x-forwarded-for': clientAddress() } },
  );

/** The order's data as if read long ago. */
async function makeStale(): Promise<void> {
  await app.database.prisma.tracker.updateMany({
    where: { shopId: shop.id },
    data: { statusCheckedAt: null },
  });
  await app.emulator.control.clearCalls();
}

const byOrderCalls = async () => (await shop.calls('by-order-id')).length;

describe('refreshing an order for the tracking page', () => {
  it('twelve lookups at once of a stale order make one by-order-id call for both parcels, stored like a poll', async () => {
    await makeStale();
    const pages = await Promise.all(Array.from({ length: 12 }, () => lookup()));
    expect(pages.every((p) => p.status === 200)).toBe(true);
    expect(await byOrderCalls()).toBe(1);
    expect(await shop.calls('get')).toHaveLength(0);
    const rows = await shop.rows();
    const dhl = rows.filter((r) => r.trackingNumber.startsWith('123456789'));
    expect(dhl).toHaveLength(2);
    expect(dhl.every((r) => r.statusCheckedAt !== null && r.status !== null)).toBe(true);
    // Only the order looked up was read.
    expect(rows.find((r) => r.trackingNumber === '1Z999AA10123456784')?.statusCheckedAt).toBeNull();
    // Fresh now: the next lookups call nothing.
    await lookup();
    await lookup();
    expect(await byOrderCalls()).toBe(1);
  });

  it('what the listing leaves out (the estimated delivery) keeps its stored value, and the page shows it', async () => {
    await makeStale();
    await app.database.prisma.tracker.updateMany({
      where: { shopId: shop.id, trackingNumber: { startsWith: '123456789' } },
      data: { estimatedDelivery: '2026-12-03', status: null },
    });
    const page = await lookup();
    expect(await byOrderCalls()).toBe(1);
    expect(await shop.calls('get')).toHaveLength(0);
    const dhl = (await shop.rows()).filter((r) => r.trackingNumber.startsWith('123456789'));
    expect(dhl.every((r) => r.status !== null && r.estimatedDelivery === '2026-12-03')).toBe(true);
    expect(await page.text()).toContain('Arriving Thursday, 3 December');
  });

  it('an order whose parcels are all final (delivered, returned) makes no call, however stale', async () => {
    await makeStale();
    const dhl = { shopId: shop.id, trackingNumber: { startsWith: '123456789' } };
    await app.database.prisma.tracker.updateMany({ where: dhl, data: { status: 'delivered' } });
    const [first] = await app.database.prisma.tracker.findMany({ where: dhl, orderBy: { id: 'asc' } });
    await app.database.prisma.tracker.update({ where: { id: first!.id }, data: { status: 'returned' } });
    const pages = await Promise.all([lookup(), lookup()]);
    expect(pages.map((p) => p.status)).toEqual([200, 200]);
    expect(await pages[0]!.text()).toContain('<h2>Order #1002</h2>');
    expect(await shop.calls()).toEqual([]);
    // Nothing was read, so nothing was stored.
    const rows = (await shop.rows()).filter((r) => r.trackingNumber.startsWith('123456789'));
    expect(rows.every((r) => r.statusCheckedAt === null)).toBe(true);
  });

  it('an order with one parcel still under way is read again, all its parcels with one call', async () => {
    await makeStale();
    const dhl = { shopId: shop.id, trackingNumber: { startsWith: '123456789' } };
    const [first] = await app.database.prisma.tracker.findMany({ where: dhl, orderBy: { id: 'asc' } });
    await app.database.prisma.tracker.updateMany({ where: dhl, data: { status: 'delivered' } });
    await app.database.prisma.tracker.update({ where: { id: first!.id }, data: { status: 'in_transit' } });
    const page = await lookup();
    expect(page.status).toBe(200);
    expect(await byOrderCalls()).toBe(1);
    expect(await shop.calls('get')).toHaveLength(0);
    const rows = (await shop.rows()).filter((r) => r.trackingNumber.startsWith('123456789'));
    expect(rows.every((r) => r.statusCheckedAt !== null)).toBe(true);
  });

  it('a failing service: the page answers from stored data, and the order is not asked again at once', async () => {
    await makeStale();
    await app.emulator.control.setFaults({ errorRate: 1, operations: ['by-order-id'] });
    const page = await lookup();
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h2>Order #1002</h2>');
    const calls = await byOrderCalls();
    expect(calls).toBeGreaterThanOrEqual(1);
    await lookup();
    expect(await byOrderCalls()).toBe(calls);
  });

  it('a slow service: the page waits for it no longer than its bound, then shows stored data', async () => {
    // Another order (#1001), so the failure above does not keep it from being asked.
    await app.database.prisma.tracker.updateMany({
      where: { shopId: shop.id },
      data: { statusCheckedAt: null },
    });
    await app.emulator.control.setFaults({ latencyMs: 6_000, operations: ['by-order-id'] });
    const started = performance.now();
    const page = await fetch(
      `${app.url}/proxy?${signedProxyQuery({ shop: shop.domain, tracking: '1Z999AA10123456784' }, TEST_SECRET)}`,
    );
    const took = performance.now() - started;
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<dd>1Z999AA10123456784');
    // It did wait (the 2 s bound), and no longer.
    expect(took).toBeGreaterThanOrEqual(1_900);
    expect(took).toBeLessThan(4_500);
  });
});
