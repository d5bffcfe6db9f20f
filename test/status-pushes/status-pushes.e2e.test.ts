import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensurePushToken, rotatePushToken } from '../../src/status-pushes/token.js';
import { startTestApp, TEST_SECRET, type TestApp, waitFor } from '../helpers/app.js';
import { installShop } from '../helpers/browser.js';
import { type FakeAdminGraphql, startFakeAdminGraphql } from '../helpers/fake-admin-graphql.js';
import { signedProxyQuery } from '../helpers/proxy.js';
import { addShop, numberedUpsFulfillment, type ScenarioShop } from '../helpers/scenario.js';
import { keepsEveryDetail, stepOffsetsSeconds } from '../shipments/lifecycle.js';

/**
 * The service's status pushes end to end: the emulator POSTs each new tracking event to the shop's push
 * URL, the app records it and its worker applies it like a poll (stored status, the store's fulfilment
 * event, the shoppers' page), within a second.
 */

let app: TestApp;
let fake: FakeAdminGraphql;
let n = 100;

beforeAll(async () => {
  [app, fake] = await Promise.all([startTestApp({ connect: false }), startFakeAdminGraphql()]);
});
afterEach(async () => {
  await app.emulator.control.setFaults({});
});
afterAll(async () => {
  await fake?.close();
  await app?.close();
});

const prisma = () => app.database.prisma;

interface PushShop {
  shop: ScenarioShop;
  url: string;
  trackingNumber: string;
  fulfillmentId: string;
  trackerId: string;
}

/** A shop with one UPS parcel created at the emulator, and its push URL registered there. */
async function pushShop(name: string): Promise<PushShop> {
  const shop = await addShop(app, name);
  await installShop(app, shop.domain);
  let body = numberedUpsFulfillment(++n);
  while (!keepsEveryDetail(body.tracking_number as string)) body = numberedUpsFulfillment(++n);
  await shop.send('fulfillments/create', body);
  await shop.settled();
  const tracker = await prisma().tracker.findFirstOrThrow({ where: { shopId: shop.id } });
  expect(tracker.remote).toBe('present');
  const url = `${app.url}/status-webhooks/${await ensurePushToken(prisma(), shop.id)}`;
  await app.emulator.control.patchAccount(shop.appName, { webhookUrl: url });
  return {
    shop,
    url,
    trackingNumber: body.tracking_number as string,
    fulfillmentId: String(body.id),
    trackerId: tracker.id,
  };
}

const pushCalls = async (appName: string) =>
  (await app.emulator.control.calls({ appName, operation: 'push' })) as Array<{
    at: string;
    httpStatus: number;
    body: { tracking_event_status: string; events: unknown[] };
  }>;

async function shopperPage(domain: string, trackingNumber: string): Promise<string> {
  const query = signedProxyQuery(
    { shop: domain, path_prefix: '/apps/track', tracking: trackingNumber },
    TEST_SECRET,
  );
  return (await fetch(`${app.url}/proxy?${query}`)).text();
}

describe('status pushes from the service', () => {
  it('a pushed event reaches the stored status, the store’s fulfilment event and the shopper’s page within a second', async () => {
    const s = await pushShop('push-fast');
    await app.emulator.control.advanceClock(stepOffsetsSeconds.labelCreated);
    await waitFor('the push answered 200', async () =>
      (await pushCalls(s.shop.appName)).some((c) => c.httpStatus === 200),
    );
    const pushedAt = Date.parse((await pushCalls(s.shop.appName))[0]!.at);

    await waitFor('the status stored', async () => {
      const tracker = await prisma().tracker.findUniqueOrThrow({ where: { id: s.trackerId } });
      return tracker.status === 'pre_transit';
    });
    await waitFor('the store’s fulfilment event written', async () =>
      fake.events(s.shop.domain, s.fulfillmentId).some((e) => e.status === 'LABEL_PRINTED'),
    );
    const page = await shopperPage(s.shop.domain, s.trackingNumber);
    const done = Date.now();
    expect(page).toContain('data-group="info_received"');
    expect(page).toContain('<p class="ts-status">Label created');
    console.log(`push → stored, store event and shopper page: ${done - pushedAt} ms`);
    expect(done - pushedAt).toBeLessThan(1_000);

    // The shop is in push mode now: the tracker's next read is the safety net's (a day at most).
    const shopRow = await prisma().shop.findUniqueOrThrow({ where: { id: s.shop.id } });
    expect(shopRow.lastStatusPushAt).not.toBeNull();
    const tracker = await prisma().tracker.findUniqueOrThrow({ where: { id: s.trackerId } });
    const inHours = (tracker.nextPollAt!.getTime() - Date.now()) / 3_600_000;
    expect(inHours).toBeGreaterThan(6);
    expect(inHours).toBeLessThanOrEqual(24);
  });

  it('duplicated and reordered pushes: one store event per status change, the newest state kept', async () => {
    const s = await pushShop('push-chaos');
    await app.emulator.control.setFaults({ pushDuplicateRate: 0.5, pushReorderRate: 0.5 });
    await app.emulator.control.advanceClock(stepOffsetsSeconds.delivered + 60);
    await waitFor(
      'every push delivered',
      async () => (await pushCalls(s.shop.appName)).filter((c) => c.httpStatus === 200).length >= 6,
      10_000,
    );
    await waitFor('delivered stored', async () => {
      const t = await prisma().tracker.findUniqueOrThrow({ where: { id: s.trackerId } });
      return t.status === 'delivered';
    });
    await waitFor(
      'no push pending',
      async () => (await prisma().statusPush.count({ where: { shopId: s.shop.id, state: 'pending' } })) === 0,
    );
    const calls = await pushCalls(s.shop.appName);
    const order = calls.map((c) => c.body.events.length);
    // Some came twice, some out of order (the emulator's faults), yet:
    expect(order.length).toBeGreaterThan(new Set(order).size);
    expect(order.some((count, i) => i > 0 && count < order[i - 1]!)).toBe(true);
    const rows = await prisma().statusPush.findMany({ where: { shopId: s.shop.id } });
    expect(rows).toHaveLength(new Set(order).size);
    const tracker = await prisma().tracker.findUniqueOrThrow({ where: { id: s.trackerId } });
    expect(JSON.parse(tracker.events!)).toHaveLength(Math.max(...order));
    const queued = await prisma().storeFulfillmentEvent.findMany({ where: { trackerId: s.trackerId } });
    expect(queued.map((e) => e.status).sort()).toEqual(
      ['CARRIER_PICKED_UP', 'DELIVERED', 'IN_TRANSIT', 'LABEL_PRINTED', 'OUT_FOR_DELIVERY'].sort(),
    );
  });
});

describe('refused pushes store nothing', () => {
  it('wrong key 401, unknown token 404, oversize 413, not a shipment 400', async () => {
    const s = await pushShop('push-refused');
    const before = await prisma().statusPush.count();
    const body = JSON.stringify({ tracking_number: s.trackingNumber, tracking_event_status: 'in_transit' });
    const post = (url: string, headers: Record<string, string>, payload: string = body) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: payload,
      });
    const key = s.shop.apiKey;

    expect((await post(s.url, {})).status).toBe(401);
    expect((await post(s.url, { 'service-api-key': `${key}x` })).status).toBe(401);
    expect(
      (await post(`${app.url}/status-webhooks/${'A'.repeat(32)}`, { 'service-api-key': key })).status,
    ).toBe(404);
    expect((await post(`${app.url}/status-webhooks/short`, { 'service-api-key': key })).status).toBe(404);
    const big = JSON.stringify({ tracking_number: s.trackingNumber, padding: 'x'.repeat(1_100_000) });
    const oversize = await post(s.url, { 'service-api-key': key }, big);
    expect(oversize.status).toBe(413);
    expect(await oversize.json()).toMatchObject({ error: 'too_large' });
    expect((await post(s.url, { 'service-api-key': key }, '{not json')).status).toBe(400);
    expect((await post(s.url, { 'service-api-key': key }, '{"events":[]}')).status).toBe(400);
    expect((await post(s.url, { 'service-api-key': key }, '[]')).status).toBe(400);
    expect(await prisma().statusPush.count()).toBe(before);

    // The real service's header is taken too, and a push for a number the shop does not have is
    // acknowledged, then dropped.
    const unknown = await post(
      s.url,
      { 'trackship-api-key': key },
      JSON.stringify({ tracking_number: 'NOT-OURS-1', tracking_event_status: 'in_transit', user_key: 'x' }),
    );
    expect(unknown.status).toBe(200);
    await waitFor(
      'dropped',
      async () =>
        (await prisma().statusPush.findFirst({ where: { shopId: s.shop.id, state: 'dropped' } })) !== null,
    );
  });

  it('token rotation: the old URL is refused at once, the new one works', async () => {
    const s = await pushShop('push-rotate');
    const token = await rotatePushToken(prisma(), s.shop.id);
    const fresh = `${app.url}/status-webhooks/${token}`;
    const body = JSON.stringify({
      tracking_number: s.trackingNumber,
      tracking_event_status: 'pending',
      events: [],
    });
    const headers = { 'content-type': 'application/json', 'service-api-key': s.shop.apiKey };
    expect((await fetch(s.url, { method: 'POST', headers, body })).status).toBe(404);
    expect((await fetch(fresh, { method: 'POST', headers, body })).status).toBe(200);
  });
});
