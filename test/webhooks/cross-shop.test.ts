import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Runtime, startRuntime } from '../../src/app/runtime.js';
import { silentLogger } from '../../src/logger.js';
import { startTestApp, TEST_SECRET, type TestApp, testConfig, waitFor } from '../helpers/app.js';
import { signedProxyQuery } from '../helpers/proxy.js';
import { addShop, numberedUpsFulfillment, type ScenarioShop } from '../helpers/scenario.js';
import { bearer, mintSessionToken } from '../helpers/session-token.js';
import { deliver, fixture } from '../helpers/webhooks.js';

/**
 * A fulfilment body names no shop, and the platform's signature does not cover the shop header: shop A's
 * signed body, sent again under shop B's header, must not become B's. The app confirms a fulfilment it has
 * not seen with the store itself (Admin API `nodes`, through the library, to the fake store) before
 * anything is written or any balance spent; deliveries for a domain that has not installed the app create
 * nothing. The app here is web only: a worker is started when the deliveries are in, so that one pass sees
 * them all (one store call per shop).
 */

let app: TestApp;
let worker: Runtime | null = null;
let a: ScenarioShop;
let b: ScenarioShop;
const ups = fixture('fulfillments-create.ups');
const upsId = String(ups.id);

beforeAll(async () => {
  app = await startTestApp({ connect: false, config: { role: 'web' } });
  [a, b] = [await addShop(app, 'shop-a'), await addShop(app, 'shop-b')];
  // Each store holds its own fulfilments only.
  app.store.setFulfillments(a.domain, [
    upsId,
    ...[1, 2, 3, 4, 5].map((n) => numberedUpsFulfillment(n).id as number),
  ]);
  app.store.setFulfillments(b.domain, []);
});
afterAll(async () => {
  await worker?.close();
  await app?.close();
});

async function startWorker(): Promise<void> {
  worker = await startRuntime(
    testConfig(app.database.url, app.emulator.baseUrl, { ...app.config, role: 'worker' }),
    {
      logger: silentLogger,
      migrate: false,
      idlePollMs: 25,
    },
  );
}

const nodesCalls = (shop: string) =>
  app.store.requests.filter((r) => r.operation === 'fulfillmentNodes' && r.shop === shop);

describe('a fulfilment is proven to belong to the shop before anything is applied', () => {
  it("A's body replayed under B's header: refused with the reason; B gets no tracker, no call, no order, no page", async () => {
    const send = (domain: string, body: unknown, eventId: string) =>
      deliver(app.url, { topic: 'fulfillments/create', shop: domain, body, secret: TEST_SECRET, eventId });
    expect((await send(a.domain, ups, 'a-ups')).status).toBe(200);
    expect((await send(b.domain, ups, 'b-replay')).status).toBe(200);
    for (let n = 1; n <= 5; n++)
      expect((await send(a.domain, numberedUpsFulfillment(n), `a-${n}`)).status).toBe(200);
    // A domain that never installed the app, and the body again under it.
    expect((await send('never-installed.myshopify.com', ups, 'stranger')).status).toBe(200);
    await startWorker();
    await a.settled();
    await waitFor(
      'every delivery handled',
      async () => (await app.database.prisma.webhookDelivery.count({ where: { state: 'pending' } })) === 0,
    );

    // A: six trackers at A's service account, confirmed with ONE store call for the six fulfilments.
    expect(await a.rows()).toHaveLength(6);
    expect(nodesCalls(a.domain)).toHaveLength(1);
    expect(nodesCalls(a.domain)[0]!.variables.ids).toHaveLength(6);

    // B: the delivery refused with the reason, its body kept for an operator; nothing else.
    const replay = await app.database.prisma.webhookDelivery.findFirstOrThrow({
      where: { eventId: 'b-replay' },
    });
    expect(replay.state).toBe('failed');
    expect(replay.error).toBe(
      `the store does not hold fulfilment ${upsId} (a body of another store?): nothing created`,
    );
    expect(replay.payload).not.toBe('');
    expect(await b.rows()).toEqual([]);
    expect(await b.calls('create')).toEqual([]);
    expect((await b.remote()).length).toBe(0);
    const bShop = await app.database.prisma.shop.findUniqueOrThrow({ where: { domain: b.domain } });
    expect(await app.database.prisma.trackingLine.count({ where: { shopId: bShop.id } })).toBe(0);
    expect(await app.database.prisma.fulfillment.count({ where: { shopId: bShop.id } })).toBe(0);
    // B's Shipments list and shoppers' page know nothing of A's order.
    const list = await fetch(`${app.url}/api/shipments`, {
      headers: bearer(
        mintSessionToken({ shop: b.domain, apiKey: app.config.shopify.apiKey, secret: TEST_SECRET }),
      ),
    });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { rows: unknown[] }).rows).toEqual([]);
    const page = await fetch(
      `${app.url}/proxy?${signedProxyQuery({ shop: b.domain, order: '1001', email: 'jane.doe@example.com' }, TEST_SECRET)}`,
    );
    expect(await page.text()).toContain('ts-not-found');

    // The stranger: no shop row; the delivery ignored, with the reason.
    expect(await app.database.prisma.shop.count({ where: { domain: 'never-installed.myshopify.com' } })).toBe(
      0,
    );
    const stranger = await app.database.prisma.webhookDelivery.findFirstOrThrow({
      where: { eventId: 'stranger' },
    });
    expect(stranger).toMatchObject({
      state: 'processed',
      error: 'the shop has not installed the app: nothing created',
    });
  });

  it('an update of a fulfilment seen before is not asked again; an uninstalled shop gets nothing', async () => {
    const before = nodesCalls(a.domain).length;
    const update = {
      ...ups,
      tracking_number: '1Z999AA10123456799',
      tracking_numbers: ['1Z999AA10123456799'],
    };
    await deliver(app.url, {
      topic: 'fulfillments/update',
      shop: a.domain,
      body: update,
      secret: TEST_SECRET,
    });
    await a.settled();
    expect((await a.rows()).map((r) => r.trackingNumber)).toContain('1Z999AA10123456799');
    expect(nodesCalls(a.domain)).toHaveLength(before);

    const bAsked = nodesCalls(b.domain).length;
    await app.database.prisma.shop.update({
      where: { domain: b.domain },
      data: { uninstalledAt: new Date() },
    });
    app.store.setFulfillments(b.domain, ['777']);
    await deliver(app.url, {
      topic: 'fulfillments/create',
      shop: b.domain,
      body: { ...ups, id: 777, admin_graphql_api_id: 'gid://shopify/Fulfillment/777' },
      secret: TEST_SECRET,
      eventId: 'b-uninstalled',
    });
    await waitFor(
      'the delivery handled',
      async () =>
        (await app.database.prisma.webhookDelivery.count({
          where: { eventId: 'b-uninstalled', state: 'processed' },
        })) === 1,
    );
    expect(await b.rows()).toEqual([]);
    expect(nodesCalls(b.domain)).toHaveLength(bAsked);
  });

  it('a store that cannot answer: the fulfilment waits and is applied once the store confirms it', async () => {
    app.store.setFulfillments(a.domain, [upsId, '888']);
    app.store.failEvents(a.domain, { kind: 'http', status: 503 }, { operation: 'fulfillmentNodes' });
    const body = {
      ...ups,
      id: 888,
      admin_graphql_api_id: 'gid://shopify/Fulfillment/888',
      tracking_number: '1ZWAIT0000000001',
      tracking_numbers: ['1ZWAIT0000000001'],
    };
    await deliver(app.url, {
      topic: 'fulfillments/create',
      shop: a.domain,
      body,
      secret: TEST_SECRET,
      eventId: 'a-wait',
    });
    await waitFor('the first try to fail', async () => {
      const row = await app.database.prisma.webhookDelivery.findFirst({ where: { eventId: 'a-wait' } });
      return (row?.attempts ?? 0) >= 1;
    });
    const waiting = await app.database.prisma.webhookDelivery.findFirstOrThrow({
      where: { eventId: 'a-wait' },
    });
    expect(waiting.error).toMatch(/^could not confirm the fulfilment with the store: /);
    // Tried again after its backoff: the store answers, the fulfilment is applied.
    await app.database.prisma.webhookDelivery.update({
      where: { id: waiting.id },
      data: { nextAttemptAt: new Date() },
    });
    await waitFor('the fulfilment applied', async () =>
      (await a.rows()).some((r) => r.trackingNumber === '1ZWAIT0000000001'),
    );
  });
});
