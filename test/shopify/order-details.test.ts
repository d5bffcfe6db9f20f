import { Session } from '@shopify/shopify-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shopifyStoreAdmin, type StoreAdmin } from '../../src/shopify/admin-graphql.js';
import { appScopes, createShopify } from '../../src/shopify/api.js';
import {
  createOrderDetails,
  itemsPerFulfillment,
  maxQueryCost,
  ORDER_DETAILS_QUERY,
  orderQueryCost,
  ordersPerCall,
  type OrderDetailsDeps,
} from '../../src/shopify/order-details.js';
import { silentLogger } from '../../src/logger.js';
import { captureLogger } from '../helpers/capture-logger.js';
import {
  type FakeAdminGraphql,
  type FakeLineItem,
  type FakeOrder,
  startFakeAdminGraphql,
  upsOrder,
} from '../helpers/fake-admin-graphql.js';

/**
 * The items of each parcel and the order's customer, read from the (fake) store's Admin GraphQL API over
 * real HTTP through the library, with each store's offline session (kept in the library's memory storage).
 */

let fake: FakeAdminGraphql;
let admin: StoreAdmin;
const shop = 'order-items.myshopify.com';
const deniedShop = 'no-orders-scope.myshopify.com';
const tokens = new Map<string, string>();

const order = (n: number) => String(6_120_000_000_000 + n);
const fulfillment = (n: number, i: number) => String(5_520_000_000_000 + n * 10 + i);
const calls = (domain = shop) =>
  fake.requests.filter((r) => r.shop === domain && r.operation === 'orderDetails');

const hoodie: FakeLineItem = {
  title: 'Hoodie',
  variantTitle: 'Blue / M',
  quantity: 2,
  image: { url: 'https://cdn.shopify.com/s/files/1/hoodie.jpg', altText: 'A blue hoodie' },
};
const mug: FakeLineItem = { title: 'Mug', variantTitle: 'Default Title', quantity: 1, image: null };

/** Order n: its fulfilments' items, one list per fulfilment. */
function orderWith(n: number, items: FakeLineItem[][], customerId: string | null = '777'): FakeOrder {
  const base = upsOrder(n, []);
  return {
    ...base,
    legacyResourceId: order(n),
    customerId,
    fulfillments: items.map((lineItems, i) => ({
      legacyResourceId: fulfillment(n, i),
      status: 'SUCCESS',
      createdAt: '2026-11-18T10:21:43Z',
      updatedAt: '2026-11-18T10:21:43Z',
      trackingInfo: [{ company: 'UPS', number: `1Z${n}${i}` }],
      lineItems,
    })),
  };
}

beforeAll(async () => {
  fake = await startFakeAdminGraphql();
  const shopify = createShopify({
    apiKey: 'test-api-key',
    apiSecret: 'test-secret',
    appUrl: 'http://127.0.0.1:3000',
  });
  for (const domain of [shop, deniedShop]) {
    const accessToken = `shpat_test_${domain.slice(0, 6)}`;
    tokens.set(domain, accessToken);
    await shopify.config.sessionStorage!.storeSession(
      new Session({
        id: shopify.api.session.getOfflineId(domain),
        shop: domain,
        state: 'installed',
        isOnline: false,
        scope: appScopes.join(','),
        accessToken,
      }),
    );
  }
  admin = shopifyStoreAdmin(shopify);
  const orders: FakeOrder[] = [
    orderWith(1, [
      [hoodie, mug],
      [
        {
          title: 'Poster',
          variantTitle: null,
          quantity: 3,
          image: { url: 'http://example.com/p.png', altText: 'x' },
        },
        {
          title: 'Card',
          variantTitle: 'Red',
          quantity: 1,
          image: { url: 'javascript:alert(1)', altText: null },
        },
        {
          title: 'Sticker\u0000 pack ',
          variantTitle: '  ',
          quantity: 5,
          image: { url: 'data:image/png;base64,AA==' },
        },
        { title: 'Refunded', variantTitle: null, quantity: null },
      ],
    ]),
    orderWith(2, [[mug]], '888'),
    orderWith(3, [[hoodie]], null),
    // Seven parcels: the first five with their items, the last two listed without.
    orderWith(
      4,
      Array.from({ length: 7 }, () => [mug]),
    ),
    ...Array.from({ length: 9 }, (_, i) => orderWith(10 + i, [[hoodie]])),
  ];
  fake.setOrders(shop, orders);
  fake.setOrders(deniedShop, [orderWith(1, [[hoodie]])]);
  fake.denyScopes(deniedShop, ['read_orders']);
});
afterAll(async () => {
  await fake?.close();
});

function details(deps: Partial<OrderDetailsDeps> = {}) {
  return createOrderDetails({ admin, logger: silentLogger, ...deps });
}

describe('the shape of the query', () => {
  it('never asks more than the API’s single-query cost, whatever the number of orders in a call', () => {
    expect(ordersPerCall).toBe(7);
    expect(itemsPerFulfillment(1)).toBe(50);
    expect(itemsPerFulfillment(5)).toBe(8);
    for (let n = 1; n <= ordersPerCall; n++) {
      expect(n * orderQueryCost(itemsPerFulfillment(n))).toBeLessThanOrEqual(maxQueryCost);
      expect(itemsPerFulfillment(n)).toBeGreaterThanOrEqual(5);
    }
  });

  it('one item more per parcel would be refused by the store (MAX_COST_EXCEEDED)', async () => {
    const ids = Array.from({ length: ordersPerCall }, (_, i) => `gid://shopify/Order/${order(10 + i)}`);
    const lineItems = itemsPerFulfillment(ordersPerCall) + 1;
    const fits = await admin.request(shop, ORDER_DETAILS_QUERY, {
      ids,
      lineItems: lineItems - 1,
      withCustomer: true,
    });
    expect(fits.ok).toBe(true);
    const result = await admin.request(shop, ORDER_DETAILS_QUERY, { ids, lineItems });
    expect(result).toMatchObject({ ok: false, kind: 'rejected', message: expect.stringMatching(/max cost/) });
  });
});

describe('createOrderDetails', () => {
  it('reads each parcel’s items: names, variants, quantities, https images; numeric ids for GIDs', async () => {
    const before = calls().length;
    const orders = await details().read(shop, [order(1)], { customer: true });
    expect(calls()).toHaveLength(before + 1);
    const call = calls().at(-1)!;
    expect(call.variables).toEqual({
      ids: [`gid://shopify/Order/${order(1)}`],
      lineItems: 50,
      withCustomer: true,
    });
    expect(call.query).toMatch(/url\(transform: \{ maxWidth: 160, maxHeight: 160 \}\)/);
    expect(call.accessToken).toBe(tokens.get(shop));

    expect([...orders!.keys()]).toEqual([order(1)]);
    const detail = orders!.get(order(1))!;
    expect(detail.orderId).toBe(order(1));
    expect(detail.customerId).toBe('777');
    expect([...detail.fulfillments.keys()]).toEqual([fulfillment(1, 0), fulfillment(1, 1)]);
    expect(detail.fulfillments.get(fulfillment(1, 0))).toEqual([
      {
        name: 'Hoodie',
        variant: 'Blue / M',
        quantity: 2,
        imageUrl: 'https://cdn.shopify.com/s/files/1/hoodie.jpg',
        imageAlt: 'A blue hoodie',
      },
      // A product's only variant is not named.
      { name: 'Mug', variant: null, quantity: 1, imageUrl: null, imageAlt: null },
    ]);
    // Only https images are kept (and their alt text with them); a line with no quantity is left out.
    expect(detail.fulfillments.get(fulfillment(1, 1))).toEqual([
      { name: 'Poster', variant: null, quantity: 3, imageUrl: null, imageAlt: null },
      { name: 'Card', variant: 'Red', quantity: 1, imageUrl: null, imageAlt: null },
      { name: 'Sticker  pack', variant: null, quantity: 5, imageUrl: null, imageAlt: null },
    ]);
  });

  it('reads several orders in one call; a guest’s order has no customer; unknown and odd ids are left out', async () => {
    const before = calls().length;
    const unknown = order(99);
    const orders = await details().read(shop, [order(2), order(3), unknown, 'not-an-id', order(2)], {
      customer: true,
    });
    expect(calls()).toHaveLength(before + 1);
    expect(calls().at(-1)!.variables).toEqual({
      ids: [order(2), order(3), unknown].map((id) => `gid://shopify/Order/${id}`),
      lineItems: itemsPerFulfillment(3),
      withCustomer: true,
    });
    expect([...orders!.keys()]).toEqual([order(2), order(3)]);
    expect(orders!.get(order(2))!.customerId).toBe('888');
    expect(orders!.get(order(3))!.customerId).toBeNull();
    expect(await details().read(shop, ['nope'])).toEqual(new Map());
    expect(calls()).toHaveLength(before + 1);
  });

  it('lists every parcel of an order, with items for its first five', async () => {
    const orders = await details().read(shop, [order(4)]);
    const parcels = orders!.get(order(4))!.fulfillments;
    expect(parcels.size).toBe(7);
    expect([...parcels.values()].map((items) => items.length)).toEqual([1, 1, 1, 1, 1, 0, 0]);
  });

  it('more orders than one call holds: calls of at most seven at once, each within the cost the API takes', async () => {
    const ids = Array.from({ length: 9 }, (_, i) => order(10 + i));
    const before = calls().length;
    const orders = await details().read(shop, ids);
    expect([...orders!.keys()]).toEqual(ids);
    const made = calls().slice(before);
    expect(made.map((c) => (c.variables.ids as string[]).length)).toEqual([7, 2]);
  });

  it('keeps answers a minute per shop and order, shared by reads at the same moment', async () => {
    let time = 5_000_000;
    const source = details({ now: () => time });
    const before = calls().length;
    const [a, b] = await Promise.all([source.read(shop, [order(1)]), source.read(shop, [order(1)])]);
    expect(a).toEqual(b);
    expect(calls()).toHaveLength(before + 1);
    // Within the minute: no call; one order kept, the other asked alone.
    time += 59_000;
    const both = await source.read(shop, [order(1), order(2)]);
    expect([...both!.keys()]).toEqual([order(1), order(2)]);
    expect(calls()).toHaveLength(before + 2);
    expect(calls().at(-1)!.variables.ids).toEqual([`gid://shopify/Order/${order(2)}`]);
    // An unknown order is an answer too.
    await source.read(shop, [order(98)]);
    await source.read(shop, [order(98)]);
    expect(calls()).toHaveLength(before + 3);
    time += 1_000;
    await source.read(shop, [order(1)]);
    expect(calls()).toHaveLength(before + 4);
  });

  it('a store that fails gives null, logged once without secrets, and is asked again next time', async () => {
    const log = captureLogger('info');
    const source = details({ logger: log.logger });
    fake.failNext(shop, { status: 500, body: { errors: 'Internal Server Error' } });
    const before = calls().length;
    expect(await source.read(shop, [order(1), order(2)])).toBeNull();
    expect(log.records).toHaveLength(1);
    expect(log.records[0]).toMatchObject({ level: 30, shop, kind: 'retry', orders: 2 });
    expect(await source.read(shop, [order(1), order(2)])).not.toBeNull();
    expect(calls()).toHaveLength(before + 2);
    expect(log.records).toHaveLength(1);
  });

  it('an answer in a shape not expected, or with errors, gives null', async () => {
    const log = captureLogger('info');
    const source = details({ logger: log.logger });
    fake.failNext(shop, {
      status: 200,
      body: { data: { nodes: [{ id: `gid://shopify/Order/${order(1)}`, customer: null, parcels: 'all' }] } },
    });
    expect(await source.read(shop, [order(1)])).toBeNull();
    // Another order than the one asked, at its place.
    fake.failNext(shop, {
      status: 200,
      body: {
        data: {
          nodes: [{ id: `gid://shopify/Order/${order(2)}`, customer: null, parcels: [], fulfillments: [] }],
        },
      },
    });
    expect(await source.read(shop, [order(1)])).toBeNull();
    // Data with errors: a partial answer.
    fake.failNext(shop, {
      status: 200,
      body: {
        data: { nodes: [null] },
        errors: [{ message: 'Internal error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
      },
    });
    expect(await source.read(shop, [order(1)])).toBeNull();
    expect(log.records.map((r) => r.kind)).toEqual(['unexpected_answer', 'unexpected_answer', 'retry']);
    expect(await source.read(shop, [order(1)])).not.toBeNull();
  });

  it('a shop whose token lacks read_orders: ACCESS_DENIED, no items, no throw, one info line', async () => {
    const log = captureLogger('debug');
    const before = calls(deniedShop).length;
    const orders = await details({ logger: log.logger }).read(deniedShop, [order(1)]);
    expect(orders).toBeNull();
    expect(calls(deniedShop)).toHaveLength(before + 1);
    expect(log.records).toHaveLength(1);
    expect(log.records[0]).toMatchObject({ level: 30, shop: deniedShop, kind: 'access', orders: 1 });
    expect(log.lines.join('\n')).not.toContain(tokens.get(deniedShop)!);
  });

  it('a slow store: null within waitMs; its answer, once in, is kept for the next read', async () => {
    const source = details({ waitMs: 100 });
    fake.failEvents(shop, { kind: 'slow', ms: 600 }, { operation: 'orderDetails' });
    const before = calls().length;
    const started = Date.now();
    expect(await source.read(shop, [order(2)], { customer: true })).toBeNull();
    expect(Date.now() - started).toBeLessThan(500);
    await new Promise((resolve) => setTimeout(resolve, 900));
    const orders = await source.read(shop, [order(2)], { customer: true });
    expect(orders!.get(order(2))!.customerId).toBe('888');
    expect(calls()).toHaveLength(before + 1);
  });

  it('asks whose order it is only when told to (protected customer data), and keeps the two answers apart', async () => {
    const source = details();
    const items = await source.read(shop, [order(2)]);
    expect(items!.get(order(2))!.customerId).toBeNull();
    expect(calls().at(-1)!.query).toContain('customer @include(if: $withCustomer)');
    expect(calls().at(-1)!.variables).toMatchObject({ withCustomer: false });
    const owned = await source.read(shop, [order(2)], { customer: true });
    expect(owned!.get(order(2))!.customerId).toBe('888');
    // Kept apart: a second read of each asks nothing more.
    const before = calls().length;
    await source.read(shop, [order(2)]);
    await source.read(shop, [order(2)], { customer: true });
    expect(calls()).toHaveLength(before);
    // An answer from before the shop's customers/redact is not used.
    await source.read(shop, [order(2)], { customer: true, notBefore: new Date(Date.now() + 1000) });
    expect(calls()).toHaveLength(before + 1);
  });
});
