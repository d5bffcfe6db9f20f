import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BackfillDeps,
  latestBackfill,
  ordersSearch,
  runBackfillStep,
  startBackfill,
  toFulfillmentPayload,
} from '../../src/jobs/backfill.js';
import { silentLogger } from '../../src/logger.js';
import { startTestApp, type TestApp, waitFor } from '../helpers/app.js';
import { installShop } from '../helpers/browser.js';
import {
  type FakeAdminGraphql,
  startFakeAdminGraphql,
  upsNumber,
  upsOrder,
} from '../helpers/fake-admin-graphql.js';
import { addShop, countByNumber, numbersOf, type ScenarioShop } from '../helpers/scenario.js';

/**
 * Backfill over the real app (worker with the library's Admin GraphQL client), a fake Admin GraphQL server
 * on 127.0.0.1 (reached through the library's swapped fetch) and the tracking-service emulator.
 */

let app: TestApp;
let fake: FakeAdminGraphql;

beforeAll(async () => {
  [app, fake] = await Promise.all([startTestApp({ connect: false }), startFakeAdminGraphql(2)]);
});
afterAll(async () => {
  await fake?.close();
  await app?.close();
});

/** A connected, installed shop whose store holds 5 orders (3 pages of 2), 7 tracking numbers. */
async function shopWithOrders(
  name: string,
  base: number,
): Promise<{ shop: ScenarioShop; numbers: string[] }> {
  const shop = await addShop(app, name);
  await installShop(app, shop.domain);
  const n = (i: number) => upsNumber(base + i);
  fake.setOrders(shop.domain, [
    upsOrder(base + 1, [[n(1)]]),
    upsOrder(base + 2, [[n(2), n(3)]]),
    upsOrder(base + 3, [[n(4)], [n(5)]]),
    upsOrder(base + 4, []),
    upsOrder(base + 5, [[n(6), n(7)]]),
  ]);
  return { shop, numbers: [1, 2, 3, 4, 5, 6, 7].map(n) };
}

async function backfillDone(shop: ScenarioShop, state: 'done' | 'failed' = 'done') {
  await waitFor(`backfill of ${shop.domain} ${state}`, async () => {
    const job = await latestBackfill(app.database.prisma, shop.id);
    return job?.state === state;
  });
  return (await latestBackfill(app.database.prisma, shop.id))!;
}

async function expectEachCreatedOnce(shop: ScenarioShop, numbers: string[]) {
  await shop.settled();
  expect(numbersOf(await shop.remote())).toEqual([...numbers].sort());
  const creates = countByNumber(await shop.calls('create'));
  expect([...creates.keys()].sort()).toEqual([...numbers].sort());
  for (const count of creates.values()) expect(count).toBe(1);
}

describe('backfill', () => {
  it('reads every page with the offline session and creates each fulfilment’s trackers exactly once', async () => {
    const { shop, numbers } = await shopWithOrders('bf-basic', 100);
    const started = await startBackfill(app.database.prisma, shop.id, 30);
    // One running job per shop: starting again returns it.
    expect((await startBackfill(app.database.prisma, shop.id, 30)).id).toBe(started.id);

    const job = await backfillDone(shop);
    expect(job).toMatchObject({ pagesDone: 3, fulfillmentsSeen: 5, trackersWanted: 7, error: null });
    expect(job.finishedAt).not.toBeNull();
    await expectEachCreatedOnce(shop, numbers);

    const calls = fake.calls.filter((c) => c.shop === shop.domain);
    expect(calls.map((c) => c.variables.cursor ?? null)).toEqual([null, 'c2', 'c4']);
    for (const call of calls) {
      expect(call.url).toBe('/admin/api/2026-10/graphql.json');
      expect(call.accessToken).toMatch(/^shpat_test_/);
      expect(call.variables.query).toBe(ordersSearch(30, started.startedAt));
      expect(call.variables.query).toMatch(/^created_at:>=\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('a second backfill, and fulfilments that also came by webhook, create no duplicate', async () => {
    const { shop, numbers } = await shopWithOrders('bf-twice', 200);
    // The first order's fulfilment arrives by webhook too, before the backfill.
    const order = upsOrder(201, [[upsNumber(201)]]);
    const f = order.fulfillments[0]!;
    await shop.send('fulfillments/create', {
      id: Number(f.legacyResourceId),
      order_id: Number(order.legacyResourceId),
      status: 'success',
      created_at: f.createdAt,
      updated_at: f.updatedAt,
      tracking_company: 'UPS',
      tracking_number: upsNumber(201),
      tracking_numbers: [upsNumber(201)],
      destination: { zip: '40003', country_code: 'US' },
      name: `${order.name}.1`,
    });
    await shop.settled();

    await startBackfill(app.database.prisma, shop.id, 30);
    await backfillDone(shop);
    await expectEachCreatedOnce(shop, numbers);

    const second = await startBackfill(app.database.prisma, shop.id, 30);
    expect(second.state).toBe('running');
    expect(second.cursor).toBeNull();
    await waitFor('the second backfill done', async () => {
      const job = await app.database.prisma.backfillJob.findUnique({ where: { id: second.id } });
      return job?.state === 'done';
    });
    await expectEachCreatedOnce(shop, numbers);
    expect(await app.database.prisma.trackingLine.count({ where: { shopId: shop.id } })).toBe(7);
  });

  it('an auth error marks the job failed with the reason; starting again resumes from the saved cursor', async () => {
    const { shop, numbers } = await shopWithOrders('bf-resume', 300);
    fake.failNext(shop.domain, { status: 401, body: { errors: '[API] Invalid API key or access token' } }, 1);
    const first = await startBackfill(app.database.prisma, shop.id, 7);
    const failed = await backfillDone(shop, 'failed');
    expect(failed).toMatchObject({ id: first.id, pagesDone: 1, cursor: 'c2', fulfillmentsSeen: 2 });
    expect(failed.error).toMatch(/401|Unauthorized|access token/i);

    const resumed = await startBackfill(app.database.prisma, shop.id, 7);
    expect(resumed).toMatchObject({ id: first.id, state: 'running', cursor: 'c2', error: null });
    const job = await backfillDone(shop);
    expect(job).toMatchObject({ pagesDone: 3, fulfillmentsSeen: 5, trackersWanted: 7 });
    await expectEachCreatedOnce(shop, numbers);

    const cursors = fake.calls.filter((c) => c.shop === shop.domain).map((c) => c.variables.cursor ?? null);
    // Page 1, the failed page 2, then page 2 again (not page 1) and page 3.
    expect(cursors).toEqual([null, 'c2', 'c2', 'c4']);
  });

  it('a step whose transaction fails saves nothing: the page is read again and applied once', async () => {
    const shop = await addShop(app, 'bf-crash');
    const orders = [upsOrder(401, [[upsNumber(401)]]), upsOrder(402, [[upsNumber(402)]])];
    let reads = 0;
    const deps: BackfillDeps = {
      prisma: app.database.prisma,
      carriers: app.runtime.context.carriers,
      logger: silentLogger,
      fetchPage: async (_shop, { cursor }) => {
        reads++;
        if (cursor === null) return { orders: [orders[0]!], hasNextPage: true, endCursor: 'x1' };
        return { orders: [orders[1]!], hasNextPage: false, endCursor: 'x2' };
      },
    };
    // Made by hand (not started): the worker leaves a job alone while it holds a live lease.
    const job = await app.database.prisma.backfillJob.create({
      data: { shopId: shop.id, days: 3, leaseOwner: 'test', leaseExpiresAt: new Date(Date.now() + 60_000) },
    });
    expect(await runBackfillStep(deps, job)).toBe('page');
    const afterFirst = await app.database.prisma.backfillJob.findUniqueOrThrow({ where: { id: job.id } });
    expect(afterFirst.cursor).toBe('x1');

    // Replaying the stale job (as a crashed step that never saved would) is refused and changes nothing.
    expect(await runBackfillStep(deps, job)).toBe('lost');
    expect(await app.database.prisma.backfillJob.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({
      cursor: 'x1',
      pagesDone: 1,
    });
    expect(await runBackfillStep(deps, afterFirst)).toBe('done');
    expect(reads).toBe(3);
    await shop.settled();
    expect(countByNumber(await shop.calls('create'))).toEqual(
      new Map([
        [upsNumber(401), 1],
        [upsNumber(402), 1],
      ]),
    );
  });

  it('names an imported fulfilment as the platform does (#3002.2), also where the answer leaves its name out', () => {
    // Issue 32: an import named the fulfilment by its order (#3002), a webhook #3002.1: one naming now.
    const order = upsOrder(2, [['C1'], ['C2']]);
    expect(order.fulfillments.map((f) => toFulfillmentPayload(order, f).fulfillmentName)).toEqual([
      '#3002.1',
      '#3002.2',
    ]);
    expect(toFulfillmentPayload(order, order.fulfillments[1]!).orderName).toBe('#3002');
  });

  it('maps a GraphQL fulfilment to the webhook payload shape', () => {
    const order = upsOrder(1, [[' A1 ', 'A1', 'B2']], {
      shippingAddress: { zip: ' 1011 AB ', countryCodeV2: 'nl' },
    });
    // The fulfilment's own name and the carrier's tracking page of a number, when the store gives them.
    const fulfillment = {
      ...order.fulfillments[0]!,
      name: '#3001.1',
      trackingInfo: order.fulfillments[0]!.trackingInfo.map((info, i) => ({
        ...info,
        url: i === 2 ? 'https://www.ups.com/track?tracknum=B2' : null,
      })),
    };
    expect(toFulfillmentPayload(order, fulfillment)).toEqual({
      fulfillmentId: '5300000000010',
      orderId: '6300000000001',
      orderName: '#3001',
      fulfillmentName: '#3001.1',
      customerEmail: null,
      trackingUrls: { B2: 'https://www.ups.com/track?tracknum=B2' },
      status: 'success',
      updatedAt: new Date('2026-11-18T10:21:43Z'),
      carrierName: 'UPS',
      trackingNumbers: ['A1', 'B2'],
      postalCode: '1011 AB',
      destinationCountry: 'NL',
      refusedNumbers: { overLimit: 0, malformed: 0 },
    });
  });

  it('a cancelled order’s fulfilments make no tracker', async () => {
    const shop = await addShop(app, 'bf-cancel');
    await installShop(app, shop.domain);
    fake.setOrders(shop.domain, [
      upsOrder(501, [[upsNumber(501)]], { cancelledAt: '2026-11-19T08:00:00Z' }),
      upsOrder(502, [[upsNumber(502)]]),
    ]);
    await startBackfill(app.database.prisma, shop.id, 10);
    await backfillDone(shop);
    await expectEachCreatedOnce(shop, [upsNumber(502)]);
  });
});
