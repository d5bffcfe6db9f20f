import { createHmac, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_ACCOUNT, TEST_SECRET, TEST_SHOP, type TestApp, waitFor } from '../helpers/app.js';
import { fixture } from '../helpers/webhooks.js';
import { checkTopicBody, topicBodies } from '../../src/webhooks/topic-bodies.js';

/**
 * Whatever arrives at POST /webhooks — random bytes, malformed JSON, huge bodies, odd content types, missing,
 * duplicated or garbage headers, wrong or missing signatures — the intake answers 200 or 4xx (never 5xx,
 * never a dropped connection), writes nothing unless the signature is right, and a 200 always means the
 * delivery is on record. Requests go over a raw node:http client so headers can be repeated and bodies need
 * not be text.
 */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

// ---------------------------------------------------------------------------------------------------------
// What a request is made of

type Signature =
  | 'valid'
  | 'missing'
  | 'empty'
  | 'wrong-secret'
  | 'other-body'
  | 'random-base64'
  | 'garbage'
  | 'valid-twice'
  | 'hex-not-base64';

interface Spec {
  body: Buffer;
  signature: Signature;
  /** Shopify headers: absent (undefined), one value, or repeated values. */
  headers: Record<string, string[] | undefined>;
  contentType: string | undefined;
  contentEncoding: string | undefined;
}

const WEBHOOK_HEADERS = [
  'x-shopify-topic',
  'x-shopify-shop-domain',
  'x-shopify-webhook-id',
  'x-shopify-event-id',
  'x-shopify-api-version',
  'x-shopify-triggered-at',
] as const;

/** What node's HTTP client accepts in a header value (and the server decodes back as latin1). */
function headerSafe(value: string): string {
  return value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
}

const latin1Text = (maxLength: number) =>
  fc.string({ unit: 'binary', maxLength }).map((s) => headerSafe(s.replace(/[^\x00-\xff]/g, '')));

const mostlyValid = <T>(valid: fc.Arbitrary<T>, garbage: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: garbage, weight: 1 });

const topicArb = mostlyValid(
  fc.constantFrom(
    'fulfillments/create',
    'fulfillments/update',
    'orders/cancelled',
    'Fulfillments/Create',
    '  orders/cancelled ',
    'products/update',
    'app/uninstalled',
    'shop/redact',
    'customers/redact',
    'customers/data_request',
  ),
  fc.oneof(latin1Text(40), fc.constantFrom('', ' ', 'fulfillments', 'a/b/c', 'fulfillments/créate')),
);

const SHOP = 'prop-shop.myshopify.com';
const OTHER_SHOP = 'other-prop-shop.myshopify.com';
const shopArb = mostlyValid(
  fc.constantFrom(SHOP, 'PROP-SHOP.MyShopify.com', 'other-prop-shop.myshopify.com'),
  fc.oneof(
    latin1Text(60),
    fc.constantFrom('', 'evil.example.com', '-x.myshopify.com', 'a.myshopify.com.evil'),
  ),
);

const idArb = mostlyValid(
  fc.uuid(),
  fc.oneof(latin1Text(300), fc.constantFrom('', '   ', 'x'.repeat(256), '\xff\xfe', 'id, with, commas')),
);

const dateArb = fc.oneof(
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom(
    '2026-11-19T08:02:11+01:00',
    '10000-01-01T00:00:00Z',
    '+275760-09-13T00:00:00.000Z',
    '-000001-01-01T00:00:00Z',
    '0000-01-01T00:00:00Z',
    'Sat, 01 Jan 2000 00:00:00 GMT',
    'not a date',
    '1e20',
    '',
  ),
  latin1Text(30),
);

function headerValues<T extends string>(value: fc.Arbitrary<T>): fc.Arbitrary<string[] | undefined> {
  return fc.oneof(
    { arbitrary: value.map((v) => [v]), weight: 8 },
    { arbitrary: fc.constant(undefined), weight: 1 },
    { arbitrary: fc.tuple(value, value).map(([a, b]) => [a, b]), weight: 1 },
  );
}

const anyHeadersArb = fc.record({
  'x-shopify-topic': headerValues(topicArb),
  'x-shopify-shop-domain': headerValues(shopArb),
  'x-shopify-webhook-id': headerValues(idArb),
  'x-shopify-event-id': headerValues(idArb),
  'x-shopify-api-version': headerValues(mostlyValid(fc.constant('2026-10'), latin1Text(40))),
  'x-shopify-triggered-at': headerValues(dateArb),
});

/** Every header present once and well formed, except the triggered-at date (any of the odd ones above). */
const wellFormedHeadersArb = fc.record({
  'x-shopify-topic': fc.constantFrom(...Object.keys(topicBodies)).map((v) => [v]),
  // Mostly the shop the bodies below name, sometimes another: a signed body replayed for another shop.
  'x-shopify-shop-domain': fc.constantFrom(SHOP, SHOP, OTHER_SHOP).map((v) => [v]),
  'x-shopify-webhook-id': fc.uuid().map((v) => [v]),
  'x-shopify-event-id': fc.option(
    fc.uuid().map((v) => [v]),
    { nil: undefined },
  ),
  'x-shopify-api-version': fc.constant<string[]>(['2026-10']),
  'x-shopify-triggered-at': fc.option(
    dateArb.map((v) => [v]),
    { nil: undefined },
  ),
});

const headersArb: fc.Arbitrary<Record<string, string[] | undefined>> = fc.oneof(
  wellFormedHeadersArb,
  anyHeadersArb,
);

const fulfillmentJson = fc
  .record({
    id: fc.oneof(fc.nat(), fc.bigInt({ min: 0n, max: 2n ** 63n }).map(String), fc.string()),
    status: fc.constantFrom('success', 'cancelled', 'error', '', 'open'),
    tracking_company: fc.option(fc.constantFrom('UPS', 'DHL Express', 'Speedy Parcels Ltd', ''), {
      nil: null,
    }),
    tracking_numbers: fc.option(
      fc.array(fc.option(fc.string({ maxLength: 30 }), { nil: null }), { maxLength: 4 }),
      {
        nil: null,
      },
    ),
    destination: fc.option(fc.record({ zip: fc.string(), country_code: fc.string() }), { nil: null }),
    updated_at: dateArb,
  })
  .map((f) => JSON.stringify({ ...fixture('fulfillments-create.ups'), ...f }));

const otherTopicJson = fc
  .tuple(fc.constantFrom(SHOP, OTHER_SHOP, SHOP.toUpperCase()), fc.nat({ max: 4 }))
  .map(([shop, kind]) => {
    const privacy = { shop_id: 1, shop_domain: shop };
    const bodies = [
      { id: 1, domain: shop, myshopify_domain: shop },
      privacy,
      { ...privacy, orders_to_redact: [6120000000001], customer: { id: 3 } },
      { ...privacy, orders_requested: [6120000000001], customer: { id: 3 }, data_request: { id: 9 } },
      { id: 1, domain: 'shop.example.com', myshopify_domain: shop },
    ];
    return JSON.stringify(bodies[kind]);
  });

const bodyArb: fc.Arbitrary<Buffer> = fc.oneof(
  { arbitrary: fc.constant(Buffer.alloc(0)), weight: 1 },
  { arbitrary: fc.uint8Array({ maxLength: 512 }).map((b) => Buffer.from(b)), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 300 }).map((s) => Buffer.from(s, 'utf8')), weight: 3 },
  { arbitrary: fc.json().map((s) => Buffer.from(s, 'utf8')), weight: 3 },
  {
    arbitrary: fc.dictionary(fc.string(), fc.jsonValue()).map((o) => Buffer.from(JSON.stringify(o), 'utf8')),
    weight: 3,
  },
  { arbitrary: fulfillmentJson.map((s) => Buffer.from(s, 'utf8')), weight: 4 },
  { arbitrary: fc.constant(Buffer.from(JSON.stringify(fixture('orders-cancelled')))), weight: 1 },
  // Real-shaped bodies of the other topics, naming one shop or the other (signed like any body).
  { arbitrary: otherTopicJson.map((s) => Buffer.from(s, 'utf8')), weight: 4 },
  // Over the 2 MB limit, and just under it (a valid JSON object).
  { arbitrary: fc.constant(Buffer.alloc(3 * 1024 * 1024, 'a')), weight: 1 },
  {
    arbitrary: fc.constant(Buffer.from(JSON.stringify({ id: 1, filler: 'x'.repeat(2 * 1024 * 1024 - 100) }))),
    weight: 1,
  },
);

const specArb: fc.Arbitrary<Spec> = fc.record({
  body: bodyArb,
  signature: fc.oneof(
    { arbitrary: fc.constant<Signature>('valid'), weight: 6 },
    {
      arbitrary: fc.constantFrom<Signature>(
        'missing',
        'empty',
        'wrong-secret',
        'other-body',
        'random-base64',
        'garbage',
        'valid-twice',
        'hex-not-base64',
      ),
      weight: 4,
    },
  ),
  headers: headersArb,
  contentType: fc.option(
    fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'application/json; charset=utf-16',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=xyz',
      'application/octet-stream',
      'garbage',
      '',
    ),
    { nil: undefined },
  ),
  contentEncoding: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 12 },
    { arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown'), weight: 1 },
  ),
});
/**
 * A correctly signed body of one topic for one shop, re-sent under any topic and either shop: the headers
 * are not signed, so only the body's own topic and shop may be taken.
 */
const replaySpecArb: fc.Arbitrary<Spec> = fc
  .record({
    body: fc.oneof(
      otherTopicJson,
      fc.constant(JSON.stringify(fixture('fulfillments-create.ups'))),
      fc.constant(JSON.stringify(fixture('orders-cancelled'))),
    ),
    topic: fc.constantFrom(...Object.keys(topicBodies), 'products/update'),
    shop: fc.constantFrom(SHOP, OTHER_SHOP),
    webhookId: fc.uuid(),
  })
  .map(({ body, topic, shop, webhookId }) => ({
    body: Buffer.from(body, 'utf8'),
    signature: 'valid' as const,
    headers: {
      'x-shopify-topic': [topic],
      'x-shopify-shop-domain': [shop],
      'x-shopify-webhook-id': [webhookId],
      'x-shopify-event-id': undefined,
      'x-shopify-api-version': ['2026-10'],
      'x-shopify-triggered-at': undefined,
    },
    contentType: 'application/json',
    contentEncoding: undefined,
  }));

// ---------------------------------------------------------------------------------------------------------
// Sending and the expected record

const hmac = (body: Buffer | string, secret: string) =>
  createHmac('sha256', secret).update(body).digest('base64');

function signatureHeader(spec: Spec): string[] | undefined {
  switch (spec.signature) {
    case 'valid':
      return [hmac(spec.body, TEST_SECRET)];
    case 'valid-twice':
      return [hmac(spec.body, TEST_SECRET), hmac(spec.body, TEST_SECRET)];
    case 'missing':
      return undefined;
    case 'empty':
      return [''];
    case 'wrong-secret':
      return [hmac(spec.body, 'not-the-app-secret')];
    case 'other-body':
      return [hmac(Buffer.concat([spec.body, Buffer.from(' ')]), TEST_SECRET)];
    case 'random-base64':
      return [Buffer.from(randomUUID()).toString('base64')];
    case 'garbage':
      return ['%%% not base64 at all %%%'];
    case 'hex-not-base64':
      return [createHmac('sha256', TEST_SECRET).update(spec.body).digest('hex')];
  }
}

/** The signature is right for the bytes sent, and the bytes survive the server's UTF-8 decoding. */
function signedCorrectly(spec: Spec): boolean {
  return spec.signature === 'valid' && Buffer.from(spec.body.toString('utf8'), 'utf8').equals(spec.body);
}

async function send(spec: Spec): Promise<{ status: number; body: string }> {
  const url = new URL(app.url);
  const raw: string[] = ['host', url.host, 'content-length', String(spec.body.length)];
  if (spec.contentType !== undefined) raw.push('content-type', spec.contentType);
  if (spec.contentEncoding !== undefined) raw.push('content-encoding', spec.contentEncoding);
  for (const value of signatureHeader(spec) ?? []) raw.push('x-shopify-hmac-sha256', value);
  for (const name of WEBHOOK_HEADERS) for (const value of spec.headers[name] ?? []) raw.push(name, value);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method: 'POST', path: '/webhooks', headers: raw },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(spec.body);
  });
}

/** What node makes of a header sent once or more: values (outer blanks dropped) joined with ", ". */
function received(values: string[] | undefined): string | undefined {
  if (values === undefined) return undefined;
  return values.map((v) => v.replace(/^[ \t]+|[ \t]+$/g, '')).join(', ');
}

/** The duplicate key a 200 must have recorded. */
function expectedKey(spec: Spec) {
  const topic = received(spec.headers['x-shopify-topic'])!.trim().toLowerCase();
  const shopDomain = received(spec.headers['x-shopify-shop-domain'])!.trim().toLowerCase();
  const eventId =
    received(spec.headers['x-shopify-event-id']) || received(spec.headers['x-shopify-webhook-id'])!;
  return { shopDomain, topic, eventId: eventId.trim() };
}

const rowCount = () => app.database.prisma.webhookDelivery.count();

// ---------------------------------------------------------------------------------------------------------

describe('POST /webhooks under arbitrary input', () => {
  it(
    'answers 200 or 4xx, writes only signed deliveries, and a 200 is always on record',
    { timeout: 60_000 },
    async () => {
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(fc.oneof(specArb, replaySpecArb), async (spec) => {
          const before = await rowCount();
          const response = await send(spec);
          const after = await rowCount();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);

          expect(
            response.status === 200 || (response.status >= 400 && response.status < 500),
            response.body,
          ).toBe(true);
          expect(after - before).toBeGreaterThanOrEqual(0);
          expect(after - before).toBeLessThanOrEqual(1);
          if (!signedCorrectly(spec)) {
            expect(response.status).not.toBe(200);
            expect(after).toBe(before);
          }
          if (response.status !== 200) expect(after).toBe(before);
          if (response.status === 200) {
            const key = expectedKey(spec);
            // Taken only as a body of its own topic that names no other shop than the header's.
            const check = checkTopicBody(key.topic, key.shopDomain, JSON.parse(spec.body.toString('utf8')));
            expect(check.ok, `${key.topic} for ${key.shopDomain}: ${spec.body.toString('utf8')}`).toBe(true);
            const row = await app.database.prisma.webhookDelivery.findUnique({
              where: { shopDomain_topic_eventId: key },
            });
            expect(row, JSON.stringify(key)).not.toBeNull();
          }
        }),
        {
          numRuns: Number(process.env.FC_RUNS ?? 150),
          seed: process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined,
        },
      );
      console.info(`intake statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
      // Some of everything was exercised.
      expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
      expect(statuses.get(401) ?? 0).toBeGreaterThan(0);
      expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
    },
  );

  it('is still healthy afterwards: /healthz answers and a real delivery still becomes a tracker', async () => {
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
    const body = JSON.stringify(fixture('fulfillments-create.ups'));
    const response = await send({
      body: Buffer.from(body),
      signature: 'valid',
      contentType: 'application/json',
      contentEncoding: undefined,
      headers: {
        'x-shopify-topic': ['fulfillments/create'],
        'x-shopify-shop-domain': [TEST_SHOP],
        'x-shopify-webhook-id': [randomUUID()],
        'x-shopify-event-id': [randomUUID()],
        'x-shopify-api-version': ['2026-10'],
        'x-shopify-triggered-at': [new Date().toISOString()],
      },
    });
    expect(response.status).toBe(200);
    await waitFor(
      'the tracker at the emulator',
      async () => (await app.emulator.control.trackers(TEST_ACCOUNT.appName)).length === 1,
    );
  });
});
