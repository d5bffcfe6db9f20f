import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_SECRET, type TestApp, waitFor } from '../helpers/app.js';
import { installShop } from '../helpers/browser.js';
import { type FakeAdminGraphql, startFakeAdminGraphql, upsOrder } from '../helpers/fake-admin-graphql.js';
import { clientAddress, signedProxyQuery } from '../helpers/proxy.js';
import { deliver, fixture } from '../helpers/webhooks.js';

/**
 * A logged-in customer (the platform's signed `logged_in_customer_id`) sees their recent orders on the
 * tracking page without typing anything: which orders are theirs is asked of the (fake) store's Admin
 * GraphQL API, the parcels are the app's own.
 */

let app: TestApp;
let fake: FakeAdminGraphql;
const shop = 'proxy-customer.myshopify.com';
let shopId: string;

beforeAll(async () => {
  [app, fake] = await Promise.all([startTestApp({ connect: false }), startFakeAdminGraphql()]);
  shopId = (await app.database.prisma.shop.create({ data: { domain: shop } })).id;
  await installShop(app, shop);
  // The UPS fixture is order 6120000000001 (#1001) of customer 777; #1003 of theirs is not shipped yet;
  // #1002 is someone else's.
  await deliver(app.url, {
    topic: 'fulfillments/create',
    shop,
    body: fixture('fulfillments-create.ups'),
    secret: TEST_SECRET,
  });
  await waitFor(
    'the fulfilment applied',
    async () => (await app.database.prisma.trackingLine.count({ where: { shopId } })) === 1,
  );
  fake.setOrders(shop, [
    { ...upsOrder(1, []), legacyResourceId: '6120000000001', name: '#1001', customerId: '777' },
    { ...upsOrder(2, []), legacyResourceId: '6120000000002', name: '#1002', customerId: '888' },
    { ...upsOrder(3, []), legacyResourceId: '6120000000003', name: '#1003', customerId: '777' },
  ]);
});
afterAll(async () => {
  await fake?.close();
  await app?.close();
});

async function get(params: Record<string, string>) {
  const query = signedProxyQuery({ shop, path_prefix: '/apps/track', ...params }, TEST_SECRET);
  const res = await fetch(`${app.url}/proxy?${query}`, { headers: { 'x-forwarded-for': clientAddress() } });
  return { status: res.status, body: await res.text() };
}

const customerCalls = () => fake.requests.filter((r) => r.shop === shop && r.operation === 'customerOrders');
const lookups = async () =>
  (await app.database.prisma.shop.findUniqueOrThrow({ where: { id: shopId } })).trackingPageLookups;

describe('GET /proxy for a logged-in customer', () => {
  it('shows their recent orders, newest first, each with its parcels, above the lookup forms', async () => {
    const before = await lookups();
    const page = await get({ logged_in_customer_id: '777' });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<h2>Your recent orders</h2>');
    const newer = page.body.indexOf('<h3>Order #1003</h3>');
    const older = page.body.indexOf('<h3>Order #1001</h3>');
    expect(newer).toBeGreaterThan(0);
    expect(older).toBeGreaterThan(newer);
    expect(page.body).toContain('<dd>1Z999AA10123456784');
    expect(page.body.slice(newer, older)).toContain('We found your order. It has not shipped yet');
    expect(page.body).not.toContain('#1002');
    expect(page.body.indexOf('<form')).toBeGreaterThan(older);
    // What was asked: that customer's orders, by the store's own filter.
    const call = customerCalls().at(-1)!;
    expect(call.variables).toEqual({ query: 'customer_id:777' });
    expect(await lookups()).toBe(before + 1);
  });

  it('asks the store once a minute per customer, not on every page view', async () => {
    const calls = customerCalls().length;
    await get({ logged_in_customer_id: '777' });
    await get({ logged_in_customer_id: '777' });
    expect(customerCalls()).toHaveLength(calls);
  });

  it('in the store’s language', async () => {
    const page = await get({ logged_in_customer_id: '777', locale: 'de' });
    expect(page.body).toContain('<h2>Ihre letzten Bestellungen</h2>');
    expect(page.body).toContain('<h3>Bestellung #1001</h3>');
  });

  it('a customer with no orders, a malformed id, or a store that cannot answer: the lookup form only', async () => {
    const none = await get({ logged_in_customer_id: '999' });
    expect(none.status).toBe(200);
    expect(none.body).not.toContain('Your recent orders');
    expect(none.body).toContain('<form');

    const calls = customerCalls().length;
    const odd = await get({ logged_in_customer_id: '777 OR customer_id:888' });
    expect(odd.status).toBe(200);
    expect(odd.body).not.toContain('Your recent orders');
    expect(customerCalls()).toHaveLength(calls);

    fake.failNext(shop, { status: 500, body: { errors: 'Internal Server Error' } });
    const failed = await get({ logged_in_customer_id: '555' });
    expect(failed.status).toBe(200);
    expect(failed.body).not.toContain('Your recent orders');
    expect(failed.body).toContain('<form');
  });

  it('a lookup typed by a logged-in customer is answered as for anyone', async () => {
    const page = await get({ logged_in_customer_id: '777', tracking: '1Z999AA10123456784' });
    expect(page.body).not.toContain('Your recent orders');
    expect(page.body).toContain('<dd>1Z999AA10123456784');
  });

  it('after customers/redact the page finds their orders neither by order and e-mail nor from a kept answer', async () => {
    const byEmail = () => get({ order: '1001', email: 'jane.doe@example.com' });
    expect((await byEmail()).body).toContain('<h2>Order #1001</h2>');
    expect((await get({ logged_in_customer_id: '777' })).body).toContain('<h3>Order #1001</h3>');
    const calls = customerCalls().length;

    // The store erases the customer, then tells the app.
    fake.setOrders(shop, [
      { ...upsOrder(2, []), legacyResourceId: '6120000000002', name: '#1002', customerId: '888' },
    ]);
    await deliver(app.url, {
      topic: 'customers/redact',
      shop,
      body: {
        shop_domain: shop,
        customer: { id: 777, email: 'jane.doe@example.com' },
        orders_to_redact: [6120000000001],
      },
      secret: TEST_SECRET,
    });
    await waitFor(
      'the redact applied',
      async () =>
        (await app.database.prisma.complianceRequest.count({
          where: { shopDomain: shop, topic: 'customers/redact' },
        })) === 1,
    );
    const fulfillment = await app.database.prisma.fulfillment.findFirstOrThrow({ where: { shopId } });
    expect(fulfillment.customerEmailHash).toBeNull();
    expect((await byEmail()).body).toContain('ts-not-found');
    // The answer kept for a minute is not used: the store is asked again, and says nothing of #1001.
    const page = await get({ logged_in_customer_id: '777' });
    expect(customerCalls()).toHaveLength(calls + 1);
    expect(page.body).not.toContain('#1001');
  });
});
