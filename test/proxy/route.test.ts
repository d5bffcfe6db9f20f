import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_SECRET, type TestApp, waitFor } from '../helpers/app.js';
import { createTracker } from '../helpers/factories.js';
import { clientAddress, signedProxyQuery } from '../helpers/proxy.js';
import { deliver, fixture } from '../helpers/webhooks.js';
import { installShop } from '../helpers/install.js';
import { viewToken } from '../../src/proxy/view-link.js';

/**
 * GET /proxy against the real app: the shopper's tracking page through the store's app proxy. Requests
 * are signed here the way the platform signs them (test/helpers/proxy.ts).
 */

let app: TestApp;
let shopId: string;
const shop = 'proxy-page.myshopify.com';

beforeAll(async () => {
  app = await startTestApp({ connect: false });
  const row = await app.database.prisma.shop.create({ data: { domain: shop } });
  await installShop(app, shop);
  shopId = row.id;
  const tracker = await createTracker(app.database.prisma, shopId, {
    trackingNumber: '1ZPROXY0000000001',
    desired: 'active',
    remote: 'present',
    syncState: 'synced',
    status: 'delivered',
    estimatedDelivery: '2026-11-20',
    statusCheckedAt: new Date('2026-11-21T10:00:00Z'),
    lastErrorReason: 'internal-reason-never-shown',
    events: JSON.stringify([
      {
        at: '2026-11-18T09:00:00.000Z',
        status: 'in_transit',
        message: 'Picked up',
        location: 'Louisville, KY, US',
      },
      {
        at: '2026-11-20T15:30:00.000Z',
        status: 'delivered',
        message: 'Left at {{ shop.name }} {% render "x" %} <script>alert(1)</script>',
        location: null,
      },
    ]),
  });
  await app.database.prisma.trackingLine.create({
    data: {
      shopId,
      fulfillmentId: 'f-proxy',
      orderId: '1',
      orderName: '#1001',
      trackingNumber: tracker.trackingNumber,
      trackingUrl: 'https://www.ups.com/track?tracknum=1ZPROXY0000000001',
      carrierName: 'UPS',
      trackerId: tracker.id,
    },
  });
});
afterAll(async () => {
  await app?.close();
});

/** The UPS fixture through real intake: order #1001 of jane.doe@example.com. */
async function fulfilUpsOrder(): Promise<void> {
  await deliver(app.url, {
    topic: 'fulfillments/create',
    shop,
    body: fixture('fulfillments-create.ups'),
    secret: TEST_SECRET,
  });
  await waitFor(
    'the fulfilment applied',
    async () =>
      (await app.database.prisma.fulfillment.count({ where: { shopId, orderName: '#1001' } })) === 1,
  );
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

async function get(
  params: Record<string, string>,
  init: { headers?: Record<string, string>; secret?: string } = {},
) {
  const query = signedProxyQuery({ shop, path_prefix: '/apps/track', ...params }, init.secret ?? TEST_SECRET);
  const res = await fetch(`${app.url}/proxy?${query}`, {
    headers: { 'x-forwarded-for': clientAddress(), ...init.headers },
  });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text(), res };
}

describe('GET /proxy', () => {
  it('shows the lookup form as Liquid for the theme, posting back to the store’s proxy path', async () => {
    const page = await get({});
    expect(page.status).toBe(200);
    expect(page.type).toBe('application/liquid; charset=utf-8');
    expect(page.res.headers.get('cache-control')).toBe('no-store');
    expect(page.body).toContain('<form class="ts-form" method="get" action="/apps/track" role="search">');
    expect(page.body).toContain('<label for="ts-tracking">Tracking number</label>');
    expect(page.body).not.toContain('<script');
  });

  it('shows a parcel by its tracking number: status, carrier and its page, the history newest first', async () => {
    const page = await get({ tracking: ' 1zproxy0000000001 ' });
    expect(page.body).toContain('data-group="delivered"');
    expect(page.body).toMatch(/<h2 class="ts-head">Delivered on \w+day, \d+ \w+<\/h2>/);
    expect(page.body).toContain('<li class="ts-now" aria-current="step">Delivered</li>');
    // Delivered: its estimate is no longer shown (test/proxy/estimates.test.ts).
    expect(page.body).not.toContain('data-estimate');
    expect(page.body).toContain('<dd>UPS</dd>');
    expect(page.body).toContain('href="https://www.ups.com/track?tracknum=1ZPROXY0000000001"');
    expect(page.body.indexOf('Left at')).toBeLessThan(page.body.indexOf('Picked up'));
    expect(page.body).toContain('Louisville, KY, US');
    // Nothing internal.
    expect(page.body).not.toMatch(/internal-reason|syncState|lease|#1001/);
  });

  it('escapes what the carrier wrote for Liquid and HTML', async () => {
    const page = await get({ tracking: '1ZPROXY0000000001' });
    expect(page.body).toContain(
      'Left at &#123;&#123; shop.name &#125;&#125; &#123;% render &quot;x&quot; %&#125; &lt;script&gt;alert(1)&lt;/script&gt;',
    );
    expect(page.body).not.toMatch(/\{\{|\{%|<script>alert/);
    const typed = await get({ tracking: '{{ x }}<b>' });
    expect(typed.body).toContain('value="&#123;&#123; x &#125;&#125;&lt;b&gt;"');
    expect(typed.body).not.toMatch(/\{\{|<b>/);
  });

  it('an order number and its customer’s email show the order’s parcels; the email is kept only hashed', async () => {
    await fulfilUpsOrder();
    const row = await app.database.prisma.fulfillment.findFirstOrThrow({
      where: { shopId, orderName: '#1001' },
    });
    expect(row.customerEmailHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain('jane');
    for (const [order, email] of [
      ['1001', 'jane.doe@example.com'],
      ['#1001', ' Jane.Doe@Example.COM '],
    ] as const) {
      const page = await get({ order, email });
      expect(page.body).toContain('<h2>Order #1001</h2>');
      expect(page.body).toContain('<dd>1Z999AA10123456784');
      expect(page.body).not.toContain('example.com');
    }
  });

  it('a wrong email gets exactly the answer of an unknown order, in the same time', async () => {
    // (The order is there from the test above, or arrives now.)
    if ((await app.database.prisma.fulfillment.count({ where: { shopId, orderName: '#1001' } })) === 0)
      await fulfilUpsOrder();
    const wrong = await get({ order: '1001', email: 'someone@example.com' });
    const unknown = await get({ order: '9999', email: 'someone@example.com' });
    expect(wrong.status).toBe(200);
    expect(wrong.body.replace('value="1001"', 'value="9999"')).toBe(unknown.body);
    expect(wrong.body).toContain('We could not find a shipment with these details.');
    const timings = { wrong: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < 15; i++) {
      for (const [kind, order] of [
        ['wrong', '1001'],
        ['unknown', '9999'],
      ] as const) {
        const started = performance.now();
        await get({ order, email: 'someone@example.com' });
        timings[kind].push(performance.now() - started);
      }
    }
    const [a, b] = [median(timings.wrong), median(timings.unknown)];
    console.log(`proxy lookup medians: wrong email ${a.toFixed(1)} ms, unknown order ${b.toFixed(1)} ms`);
    expect(Math.abs(a - b)).toBeLessThan(Math.max(20, 0.5 * Math.min(a, b)));
  });

  it('an unknown number gets the same "not found" as any other miss', async () => {
    const unknown = await get({ tracking: 'NOPE123' });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toContain('We could not find a shipment with these details.');
  });

  it('speaks the store’s language where a translation exists, else English', async () => {
    expect((await get({ tracking: '1ZPROXY0000000001', locale: 'de' })).body).toContain('Zugestellt');
    const french = await get(
      { tracking: '1ZPROXY0000000001' },
      { headers: { 'accept-language': 'fr-CA,fr;q=0.9' } },
    );
    expect(french.body).toContain('Livré');
    expect((await get({ locale: 'nl' })).body).toContain('Volg je bestelling');
    expect((await get({ locale: 'es-MX' })).body).toContain('Sigue tu pedido');
    expect((await get({ locale: 'ko' })).body).toContain('Track your order');
  });

  it('answers a whole HTML document for direct links', async () => {
    const page = await get({ format: 'html', tracking: '1ZPROXY0000000001' });
    expect(page.type).toBe('text/html; charset=utf-8');
    expect(page.body.startsWith('<!doctype html>')).toBe(true);
    expect(page.body).toContain('<input type="hidden" name="format" value="html">');
  });

  it('refuses bad, missing and stale signatures (401), unknown and uninstalled shops (404), writing nothing', async () => {
    const before = await app.database.prisma.shop.count();
    expect((await get({}, { secret: 'not-the-secret' })).status).toBe(401);
    expect((await fetch(`${app.url}/proxy?shop=${shop}`)).status).toBe(401);
    const stale = signedProxyQuery({ shop }, TEST_SECRET, Math.floor(Date.now() / 1000) - 301);
    expect((await fetch(`${app.url}/proxy?${stale}`)).status).toBe(401);
    const stranger = signedProxyQuery({ shop: 'stranger.myshopify.com' }, TEST_SECRET);
    expect((await fetch(`${app.url}/proxy?${stranger}`)).status).toBe(404);
    const gone = await app.database.prisma.shop.create({
      data: { domain: 'gone-proxy.myshopify.com', uninstalledAt: new Date() },
    });
    const uninstalled = signedProxyQuery({ shop: gone.domain, tracking: 'X' }, TEST_SECRET);
    expect((await fetch(`${app.url}/proxy?${uninstalled}`)).status).toBe(404);
    expect(await app.database.prisma.shop.count()).toBe(before + 1);
  });

  it('counts the lookups it answers for the Overview (not a form shown, not a refused request)', async () => {
    const count = async () =>
      (await app.database.prisma.shop.findUniqueOrThrow({ where: { id: shopId } })).trackingPageLookups;
    const before = await count();
    await get({});
    await get({}, { secret: 'wrong' });
    expect(await count()).toBe(before);
    await get({ tracking: '1ZPROXY0000000001' });
    await get({ tracking: 'NOPE' });
    await get({ order: '5', email: 'a@b.example' });
    expect(await count()).toBe(before + 3);
  });

  it('holds back a visitor after its failed lookups (429 with Retry-After); found lookups and other visitors go on', async () => {
    const address = '203.0.113.77';
    const visitor = { headers: { 'x-forwarded-for': address } };
    // Found lookups never count: twenty in a row.
    for (let i = 0; i < 20; i++)
      expect((await get({ tracking: '1ZPROXY0000000001' }, visitor)).body).toContain('Delivered');
    // Five failures are the allowance; the sixth is answered and holds the visitor back.
    for (let i = 0; i < 6; i++) {
      const page = await get({ tracking: `LIMIT${i}` }, visitor);
      expect(page.status).toBe(200);
      expect(page.body).toContain('ts-not-found');
    }
    const held = await get({ tracking: '1ZPROXY0000000001' }, visitor);
    expect(held.status).toBe(429);
    expect(Number(held.res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await get({ tracking: 'LIMIT-OTHER' })).status).toBe(200);
    // Showing the form is not a lookup.
    expect((await get({}, visitor)).status).toBe(200);
  });

  it('a share link opens its view without the e-mail; a changed, expired or other shop’s link opens nothing and counts as a failure', async () => {
    const parcel = await get({ tracking: '1ZPROXY0000000001', format: 'html' });
    const href = /<a href="([^"]+)">Link to this page<\/a>/.exec(parcel.body)![1]!.replaceAll('&amp;', '&');
    const shared = new URL(href, 'http://x').searchParams;
    expect([...shared.keys()]).toEqual(['view', 'format']);
    const opened = await get(Object.fromEntries(shared));
    expect(opened.body).toContain('<dd>1ZPROXY0000000001');
    expect(opened.res.headers.get('content-security-policy')).toContain("script-src 'sha256-");
    // By order and e-mail: the order's link.
    await fulfilUpsOrder();
    const order = await get({ order: '#1001', email: 'Jane.Doe@example.com' });
    const orderView = /\?view=([\w.-]+)/.exec(order.body)![1]!;
    expect((await get({ view: orderView })).body).toContain('<h2>Order #1001</h2>');
    const address = '203.0.113.91';
    const visitor = { headers: { 'x-forwarded-for': address } };
    const view = shared.get('view')!;
    const refused = [
      `${view.slice(0, -2)}xx`,
      viewToken(
        TEST_SECRET,
        shopId,
        { kind: 'parcel', trackingNumber: '1ZPROXY0000000001' },
        Date.now() - 61 * 86_400_000,
      ),
      viewToken(
        TEST_SECRET,
        'another-shop-id',
        { kind: 'parcel', trackingNumber: '1ZPROXY0000000001' },
        Date.now(),
      ),
      viewToken(
        'another-secret',
        shopId,
        { kind: 'parcel', trackingNumber: '1ZPROXY0000000001' },
        Date.now(),
      ),
      viewToken(TEST_SECRET, shopId, { kind: 'parcel', trackingNumber: 'NOT-A-PARCEL' }, Date.now()),
    ];
    for (const token of refused) {
      const page = await get({ view: token }, visitor);
      expect(page.status).toBe(200);
      expect(page.body).toContain('This link has expired.');
      expect(page.body).not.toContain('1ZPROXY0000000001</dd>');
    }
    // Five failures are the allowance; the sixth holds the visitor back, whatever it asks next.
    expect((await get({ view: refused[0]! }, visitor)).status).toBe(200);
    expect((await get({ view }, visitor)).status).toBe(429);
  });

  it('shows a parcel’s items from the store’s order; a shop that refused the scope gets the rest of the page', async () => {
    const tracker = await createTracker(app.database.prisma, shopId, {
      trackingNumber: '1ZITEMS000000001',
      orderKey: '7700',
      remote: 'present',
      status: 'in_transit',
    });
    await app.database.prisma.trackingLine.create({
      data: {
        shopId,
        fulfillmentId: '8800',
        orderId: '7700',
        trackingNumber: tracker.trackingNumber,
        trackerId: tracker.id,
      },
    });
    app.store.setOrders(shop, [
      {
        legacyResourceId: '7700',
        name: '#1077',
        cancelledAt: null,
        shippingAddress: null,
        fulfillments: [
          {
            legacyResourceId: '8800',
            status: 'SUCCESS',
            createdAt: null,
            updatedAt: null,
            trackingInfo: [],
            lineItems: [{ title: 'Teapot', variantTitle: 'Blue', quantity: 1 }],
          },
        ],
      },
    ]);
    // Refused first (a refusal is not kept), then granted.
    app.store.denyScopes(shop, ['read_orders']);
    const refused = await get({ tracking: '1ZITEMS000000001' });
    expect(refused.status).toBe(200);
    expect(refused.body).toContain('<dd>1ZITEMS000000001');
    expect(refused.body).not.toContain('Teapot');
    app.store.denyScopes(shop, []);
    const shown = await get({ tracking: '1ZITEMS000000001' });
    expect(shown.body).toMatch(
      /<span class="ts-item">Teapot<\/span><span class="ts-place">Blue<\/span><span class="ts-place">Quantity: 1<\/span>/,
    );
  });
});
