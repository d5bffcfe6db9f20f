import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkViewToken } from '../../src/proxy/view-link.js';
import { orderStatusParcelsPath, type OrderStatusAnswer } from '../../src/proxy/order-status.js';
import {
  type ParcelsAnswer,
  parcelView,
  parseParcelsAnswer,
} from '../../extensions/order-status-tracking/src/view.js';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/app.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { createTracker, type TrackerOverrides } from '../helpers/factories.js';
import { installShop } from '../helpers/install.js';
import { mintSessionToken } from '../helpers/session-token.js';
import { upsOrder } from '../../tools/dev/fake-store-admin.js';

/**
 * GET /customer-account/parcels: the order status extension's data (extensions/order-status-tracking),
 * over real HTTP, with the stores' Admin API played by the local fake store (tools/dev/fake-store-admin.ts).
 * Only a session token the platform would make for this app, for a shop that installed it, with a logged-in
 * customer, gets that customer's fulfilment's parcels; every other request is refused with its status, and
 * another customer's fulfilment, an unknown one and a store that cannot say are one and the same 404.
 */

// The answer types of both sides agree (the extension reads what the app writes).
const _sameAnswer: ParcelsAnswer = {} as OrderStatusAnswer;

const API_KEY = 'test-api-key';
const shop = 'order-status.myshopify.com';
const otherShop = 'order-status-other.myshopify.com';
const goneShop = 'order-status-gone.myshopify.com';
const customer = '777';
const log = captureLogger('info');

let app: TestApp;
let shopId: string;
let otherShopId: string;

// The store's orders: 7001 (customer 777) with fulfilment 8001 (two parcels) and 8002 (delivered);
// 7002 (customer 888) with 8003; 7003 (customer 777) with 8004, whose store fails; 7004 a guest's (8005).
const fulfilment = (id: number) => `gid://shopify/Fulfillment/${id}`;

let seq = 0;
async function parcel(
  onShop: string,
  fulfillmentId: number,
  orderId: number,
  overrides: TrackerOverrides,
): Promise<string> {
  const trackingNumber = `1ZORDERSTATUS${String(++seq).padStart(5, '0')}`;
  const tracker = await createTracker(app.database.prisma, onShop, {
    trackingNumber,
    desired: 'active',
    remote: 'present',
    syncState: 'synced',
    statusCheckedAt: new Date(),
    nextPollAt: null,
    ...overrides,
  });
  await app.database.prisma.trackingLine.create({
    data: {
      shopId: onShop,
      fulfillmentId: String(fulfillmentId),
      orderId: String(orderId),
      orderName: `#${orderId}`,
      trackingNumber,
      carrierName: 'UPS',
      trackerId: tracker.id,
    },
  });
  return trackingNumber;
}

const events = (list: Array<[string, string, string, string | null]>) =>
  JSON.stringify(
    list.map(([at, status, message, location]) => ({ at, status, statusDetail: null, message, location })),
  );

let inTransit: string;
let second: string;
let delivered: string;

beforeAll(async () => {
  app = await startTestApp({ connect: false, runtime: { logger: log.logger } });
  const { prisma } = app.database;
  shopId = (await prisma.shop.create({ data: { domain: shop } })).id;
  otherShopId = (await prisma.shop.create({ data: { domain: otherShop } })).id;
  await prisma.shop.create({ data: { domain: goneShop, uninstalledAt: new Date() } });
  await Promise.all([installShop(app, shop), installShop(app, otherShop)]);

  inTransit = await parcel(shopId, 8001, 7001, {
    status: 'in_transit',
    estimatedDelivery: '2026-11-27',
    events: events([
      ['2026-11-24T09:00:00Z', 'info_received', 'Shipper created a label', null],
      ['2026-11-25T18:30:00Z', 'in_transit', 'Departed facility', 'Louisville, KY, US'],
    ]),
  });
  second = await parcel(shopId, 8001, 7001, { status: 'failure', statusDetail: 'failure' });
  delivered = await parcel(shopId, 8002, 7001, {
    status: 'delivered',
    estimatedDelivery: '2026-11-20',
    events: events([
      ['2026-11-18T09:00:00Z', 'in_transit', 'Picked up', null],
      ['2026-11-20T13:15:00Z', 'delivered', 'Delivered, front door', 'Berlin, DE'],
    ]),
  });
  await parcel(shopId, 8003, 7002, { status: 'in_transit' });
  await parcel(shopId, 8004, 7003, { status: 'in_transit' });
  await parcel(shopId, 8005, 7004, { status: 'in_transit' });
  // The same fulfilment id in another shop, which the token's shop must never see.
  await parcel(otherShopId, 8099, 7099, { status: 'in_transit' });

  const order = (id: number, customerId: string | null, fulfillments: number[]) => ({
    ...upsOrder(id, []),
    legacyResourceId: String(id),
    name: `#${id}`,
    customerId,
    fulfillments: fulfillments.map((f) => ({
      legacyResourceId: String(f),
      status: 'SUCCESS',
      createdAt: '2026-11-18T10:21:43Z',
      updatedAt: '2026-11-18T10:21:43Z',
      trackingInfo: [],
    })),
  });
  app.store.setOrders(shop, [
    order(7001, customer, [8001, 8002]),
    order(7002, '888', [8003]),
    order(7003, customer, [8004]),
    order(7004, null, [8005]),
  ]);
  app.store.setOrders(otherShop, [order(7099, customer, [8099])]);
});
afterAll(async () => {
  await app?.close();
});

interface TokenOptions {
  onShop?: string;
  secret?: string;
  expiresInSeconds?: number;
  notBeforeSeconds?: number;
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
}

/** A session token as the platform hands one to a customer account extension (its documented claims). */
function token(options: TokenOptions = {}): string {
  const onShop = options.onShop ?? shop;
  return mintSessionToken({
    shop: onShop,
    apiKey: API_KEY,
    secret: options.secret ?? TEST_SECRET,
    expiresInSeconds: options.expiresInSeconds ?? 300,
    notBeforeSeconds: options.notBeforeSeconds ?? 0,
    claims: {
      dest: onShop,
      iss: undefined,
      sid: undefined,
      sub: `gid://shopify/Customer/${customer}`,
      ...options.claims,
    },
    ...(options.header ? { header: options.header } : {}),
  });
}

async function get(fulfillment: string, bearer: string | null, locale = 'de') {
  const params = new URLSearchParams({ fulfillment, locale });
  const res = await fetch(`${app.url}${orderStatusParcelsPath}?${params}`, {
    headers: {
      Origin: 'https://extensions.shopifycdn.com',
      ...(bearer === null ? {} : { Authorization: `Bearer ${bearer}` }),
    },
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const orderCalls = () => app.store.requests.filter((r) => r.operation === 'orderDetails');

describe('a logged-in customer’s own fulfilment', () => {
  it('answers its parcels: step, trouble, estimate, latest event and a signed link to the tracking page', async () => {
    const calls = orderCalls().length;
    const res = await get(fulfilment(8001), token());
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('no-store');
    const answer = res.body as unknown as OrderStatusAnswer;
    expect(answer.parcels.map((p) => p.trackingNumber)).toEqual([inTransit, second]);
    const [first, failed] = answer.parcels;
    expect(first).toMatchObject({
      carrier: 'UPS',
      step: 'in_transit',
      stepIndex: 2,
      trouble: null,
      estimate: { date: '2026-11-27', predicted: false },
      deliveredAt: null,
      latestEvent: {
        at: '2026-11-25T18:30:00Z',
        message: 'Departed facility',
        location: 'Louisville, KY, US',
      },
    });
    expect(failed).toMatchObject({ step: 'out_for_delivery', stepIndex: 3, trouble: 'failed_attempt' });

    // The link opens that parcel's view on the store's tracking page, in the buyer's language.
    const url = new URL(first!.pageUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`https://${shop}/apps/track`);
    expect(url.searchParams.get('locale')).toBe('de');
    const view = checkViewToken(TEST_SECRET, shopId, url.searchParams.get('view')!, Date.now());
    expect(view).toMatchObject({ ok: true, target: { kind: 'parcel', trackingNumber: inTransit } });

    // The store was asked whose order it is: that one order.
    const asked = orderCalls().slice(calls);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.shop).toBe(shop);
    expect(asked[0]!.variables.ids).toEqual(['gid://shopify/Order/7001']);
  });

  it('is what the extension reads and shows', async () => {
    const res = await get(fulfilment(8001), token(), 'de');
    const answer = parseParcelsAnswer(res.body);
    expect(answer).not.toBeNull();
    const words: Record<string, string> = {
      'step.in_transit': 'Unterwegs',
      step_of: 'Schritt {{n}} von {{total}}',
      progress: 'Versandfortschritt',
      'estimate.arriving': 'Zustellung am {{day}}',
      latest_event: 'Letzte Meldung: {{event}}',
      full_tracking: 'Vollständige Sendungsverfolgung ansehen',
    };
    const translate = (key: string, replacements: Record<string, string | number> = {}) =>
      (words[key] ?? key).replace(/\{\{(\w+)\}\}/g, (_m, name: string) => String(replacements[name]));
    const view = parcelView(answer!.parcels[0]!, { locale: 'de', translate, timeZone: 'UTC' });
    expect(view.stepOf).toBe('Schritt 3 von 5');
    expect(view.estimate).toBe('Zustellung am Freitag, 27. November');
    expect(view.latestEvent).toBe(
      'Letzte Meldung: Departed facility · Louisville, KY, US · 25.11.2026, 18:30',
    );
    expect(view.link.href).toBe(answer!.parcels[0]!.pageUrl);
  });

  it('a delivered parcel: when, and no estimate any more; the link in English when asked so', async () => {
    const res = await get(fulfilment(8002), token(), 'en-GB');
    expect(res.status).toBe(200);
    const [only] = (res.body as unknown as OrderStatusAnswer).parcels;
    expect(only).toMatchObject({
      trackingNumber: delivered,
      step: 'delivered',
      stepIndex: 4,
      estimate: null,
      deliveredAt: '2026-11-20T13:15:00.000Z',
      latestEvent: { message: 'Delivered, front door', location: 'Berlin, DE' },
    });
    expect(new URL(only!.pageUrl).searchParams.get('locale')).toBe('en');
  });

  it('a token whose dest and iss are URLs of the same shop is as good', async () => {
    const res = await get(
      fulfilment(8001),
      token({ claims: { dest: `https://${shop}`, iss: `https://${shop}/admin` } }),
    );
    expect(res.status).toBe(200);
  });
});

describe('refused', () => {
  const refused = async (
    bearer: string | null,
    status: number,
    reason?: string,
    fulfillment = fulfilment(8001),
  ) => {
    const res = await get(fulfillment, bearer);
    expect(res.status).toBe(status);
    // Readable by the extension: it shows nothing rather than failing unseen.
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.body).not.toHaveProperty('parcels');
    if (reason) expect(res.body.reason).toBe(reason);
    return res;
  };

  it('no token, or not a JWT: 401', async () => {
    await refused(null, 401, 'missing_token');
    await refused('not-a-token', 401, 'malformed');
  });

  it('a forged signature: 401, whatever the claims say', async () => {
    await refused(token({ secret: 'someone-elses-secret' }), 401, 'bad_signature');
    // Genuine claims of customer 888, with customer 777's signature: not what was signed.
    const [header, , signature] = token().split('.');
    const claims = Buffer.from(
      token({ claims: { sub: 'gid://shopify/Customer/888' } }).split('.')[1]!,
      'base64url',
    );
    await refused(`${header}.${claims.toString('base64url')}.${signature}`, 401, 'bad_signature');
  });

  it('an algorithm the platform does not sign with (none, HS512): 401', async () => {
    await refused(token({ header: { alg: 'none' } }), 401, 'unsupported_algorithm');
    await refused(token({ header: { alg: 'HS512' } }), 401, 'unsupported_algorithm');
  });

  it('another app’s token (wrong audience): 401', async () => {
    await refused(token({ claims: { aud: 'another-apps-client-id' } }), 401, 'wrong_audience');
  });

  it('expired, not yet valid, or made to live longer than the platform’s five minutes: 401', async () => {
    await refused(token({ expiresInSeconds: -60 }), 401, 'expired');
    await refused(token({ notBeforeSeconds: 120 }), 401, 'not_yet_valid');
    await refused(token({ expiresInSeconds: 3_600 }), 401, 'too_long_lived');
    // Within the clock leeway both ways: still good.
    expect((await get(fulfilment(8001), token({ expiresInSeconds: -5 }))).status).toBe(200);
    expect((await get(fulfilment(8001), token({ notBeforeSeconds: 5 }))).status).toBe(200);
  });

  it('a dest that is no store, or an iss naming another: 401', async () => {
    await refused(token({ claims: { dest: 'https://evil.example' } }), 401, 'bad_shop');
    await refused(token({ claims: { iss: `https://${otherShop}/admin` } }), 401, 'bad_shop');
  });

  it('a shop the app does not know, or one that uninstalled it: 403', async () => {
    await refused(token({ onShop: 'never-installed.myshopify.com' }), 403, 'unknown_shop');
    await refused(token({ onShop: goneShop }), 403, 'uninstalled_shop');
  });

  it('no customer logged in (no sub): 403; a sub that is not a customer: 401', async () => {
    await refused(token({ claims: { sub: undefined } }), 403, 'no_customer');
    await refused(token({ claims: { sub: 'gid://shopify/StaffMember/1' } }), 401, 'malformed');
  });

  it('a fulfilment parameter that is not a fulfilment’s GID: 400', async () => {
    await refused(token(), 400, 'bad_request', '8001');
    await refused(token(), 400, 'bad_request', 'gid://shopify/Order/7001');
  });

  it('another customer’s fulfilment, an unknown one, another shop’s, a guest’s, a store that cannot say: one 404', async () => {
    const other = await refused(token(), 404, undefined, fulfilment(8003));
    const unknown = await refused(token(), 404, undefined, fulfilment(9999));
    const otherShops = await refused(token(), 404, undefined, fulfilment(8099));
    const guests = await refused(token(), 404, undefined, fulfilment(8005));
    app.store.failEvents(shop, { kind: 'http', status: 503 }, { operation: 'orderDetails' });
    const cannotSay = await refused(token(), 404, undefined, fulfilment(8004));
    for (const res of [other, unknown, otherShops, guests, cannotSay])
      expect(res.body).toEqual({ error: 'not_found' });
    // Once the store answers again, the customer's own is answered.
    expect((await get(fulfilment(8004), token())).status).toBe(200);
    // The token's customer of the other shop is not this one's: its fulfilment is its own shop's only.
    expect((await get(fulfilment(8099), token({ onShop: otherShop }))).status).toBe(200);
  });

  it('each refusal is one log line with its reason, never the token', async () => {
    const secret = token({ secret: 'someone-elses-secret' });
    await get(fulfilment(8001), secret);
    const lines = log.records.filter((r) => r.msg === 'order status parcels refused');
    expect(lines.at(-1)).toMatchObject({ reason: 'bad_signature', status: 401 });
    expect(log.lines.some((line) => line.includes(secret.split('.')[2]!))).toBe(false);
    expect(log.lines.some((line) => line.includes(secret))).toBe(false);
  });
});

describe('CORS', () => {
  it('answers the preflight: GET with the Authorization header only, from any origin, no credentials', async () => {
    const res = await fetch(
      `${app.url}${orderStatusParcelsPath}?fulfillment=${encodeURIComponent(fulfilment(8001))}`,
      {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://extensions.shopifycdn.com',
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'authorization',
        },
      },
    );
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET');
    expect(res.headers.get('access-control-allow-headers')).toBe('Authorization');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(await res.text()).toBe('');
  });

  it('nothing but GET is served there', async () => {
    const res = await fetch(`${app.url}${orderStatusParcelsPath}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token()}` },
    });
    expect(res.status).toBe(404);
  });
});
