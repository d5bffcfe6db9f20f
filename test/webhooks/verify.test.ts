import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Shopify } from '@shopify/shopify-api';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { createApp } from '../../src/app/server.js';
import { createShopify } from '../../src/shopify/api.js';
import { httpStatusFor, verifyWebhook } from '../../src/webhooks/verify.js';
import { useTestDatabase } from '../helpers/database.js';
import { createTestWebApp } from '../helpers/web-app.js';
import { fixture, signedDelivery } from '../helpers/webhooks.js';

const SECRET = 'verify-test-secret';
const SHOP = 'verify-shop.myshopify.com';

let shopify: Shopify;

beforeAll(() => {
  shopify = createShopify({
    apiKey: 'verify-api-key',
    apiSecret: SECRET,
    appUrl: 'http://127.0.0.1:3000',
  }).api;
});

function delivery(overrides: { topic?: string; shop?: string; body?: unknown; secret?: string } = {}) {
  return signedDelivery({
    topic: overrides.topic ?? 'fulfillments/create',
    shop: overrides.shop ?? SHOP,
    body: overrides.body ?? fixture('fulfillments-create.ups'),
    secret: overrides.secret ?? SECRET,
  });
}

describe('verifyWebhook behind a plain node:http server', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const v = verifyWebhook(shopify, req, Buffer.concat(chunks));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  async function verify(body: string, headers: Record<string, string>) {
    const response = await fetch(url, { method: 'POST', body, headers });
    return (await response.json()) as Record<string, unknown> & { ok: boolean };
  }

  it('accepts a signed delivery and returns its fields, topic and domain folded to lower case', async () => {
    const { body, headers } = delivery();
    const result = await verify(body, {
      ...headers,
      'x-shopify-topic': 'Fulfillments/Create',
      'x-shopify-shop-domain': 'Verify-Shop.myshopify.com',
      'x-shopify-triggered-at': '2026-11-18T15:21:44.000Z',
    });
    expect(result).toEqual({
      ok: true,
      delivery: {
        topic: 'fulfillments/create',
        shopDomain: SHOP,
        webhookId: headers['x-shopify-webhook-id'],
        eventId: headers['x-shopify-event-id'],
        apiVersion: '2026-10',
        triggeredAt: '2026-11-18T15:21:44.000Z',
        rawBody: body,
        payload: JSON.parse(body),
      },
    });
  });

  it('uses the webhook id as event id when the platform sent none', async () => {
    const { body, headers } = delivery();
    const { 'x-shopify-event-id': _eventId, ...rest } = headers;
    const result = await verify(body, rest);
    expect(result).toMatchObject({ ok: true, delivery: { eventId: headers['x-shopify-webhook-id'] } });
  });

  it('gives no trigger time when the header is not a date', async () => {
    const { body, headers } = delivery();
    const result = await verify(body, { ...headers, 'x-shopify-triggered-at': 'soon' });
    expect(result).toMatchObject({ ok: true, delivery: { triggeredAt: null } });
  });

  it('names missing headers in the detail', async () => {
    const { body, headers } = delivery();
    const { 'x-shopify-webhook-id': _webhookId, ...rest } = headers;
    const result = await verify(body, rest);
    expect(result).toMatchObject({ ok: false, reason: 'missing_headers' });
    expect(String(result.detail)).toMatch(/webhook-id/i);
  });
});

describe('httpStatusFor', () => {
  it('is 401 for signature problems, 403 for a body of another shop and 400 for everything else', () => {
    expect(httpStatusFor('missing_hmac')).toBe(401);
    expect(httpStatusFor('invalid_hmac')).toBe(401);
    expect(httpStatusFor('missing_headers')).toBe(400);
    expect(httpStatusFor('malformed_headers')).toBe(400);
    expect(httpStatusFor('malformed_body')).toBe(400);
    expect(httpStatusFor('unsupported_topic')).toBe(400);
    expect(httpStatusFor('body_not_of_topic')).toBe(400);
    expect(httpStatusFor('shop_mismatch')).toBe(403);
  });
});

describe('POST /webhooks (express app)', () => {
  const db = useTestDatabase({ reset: true });
  let app: ReturnType<typeof createApp>;
  let recorded = 0;

  beforeAll(async () => {
    ({ app } = createTestWebApp({
      prisma: db.prisma,
      apiKey: 'verify-api-key',
      secret: SECRET,
      onDeliveryRecorded: () => {
        recorded++;
      },
    }));
  });
  beforeEach(async () => {
    recorded = 0;
  });

  const post = (body: string, headers: Record<string, string>) =>
    request(app).post('/webhooks').set(headers).send(body);

  it('records a signed delivery exactly as signed and answers 200', async () => {
    const { body, headers } = delivery({
      body: '{ "id" : 1, "order_id": 2, "status": "success",\n "note": "Straße ✓" }',
    });
    const response = await post(body, headers);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ok: true, duplicate: false });
    const rows = await db.prisma.webhookDelivery.findMany();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      shopDomain: SHOP,
      topic: 'fulfillments/create',
      eventId: headers['x-shopify-event-id'],
      webhookId: headers['x-shopify-webhook-id'],
      apiVersion: '2026-10',
      payload: body,
      state: 'pending',
      attempts: 0,
    });
    expect(recorded).toBe(1);
  });

  it('verifies the raw body whatever the content type says', async () => {
    const { body, headers } = delivery();
    const response = await post(body, { ...headers, 'content-type': 'text/plain' });
    expect(response.status).toBe(200);
    expect(await db.prisma.webhookDelivery.count()).toBe(1);
  });

  it('acknowledges a duplicate (same shop, topic and event id) without recording it again', async () => {
    const first = delivery();
    expect((await post(first.body, first.headers)).body).toEqual({ ok: true, duplicate: false });
    const retry = { ...first.headers, 'x-shopify-webhook-id': 'another-webhook-id' };
    const response = await post(first.body, retry);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ok: true, duplicate: true });
    expect(await db.prisma.webhookDelivery.count()).toBe(1);
    expect(recorded).toBe(1);
  });

  it('records the webhook id as event id when the event id header is absent', async () => {
    const { body, headers } = delivery();
    const { 'x-shopify-event-id': _eventId, ...rest } = headers;
    expect((await post(body, rest)).status).toBe(200);
    expect((await db.prisma.webhookDelivery.findFirstOrThrow()).eventId).toBe(
      headers['x-shopify-webhook-id'],
    );
  });

  it('refuses a delivery without signature: 401 missing_hmac', async () => {
    const { body, headers } = delivery();
    const { 'x-shopify-hmac-sha256': _hmac, ...rest } = headers;
    const response = await post(body, rest);
    expect(response.status).toBe(401);
    expect(response.body.error).toBe('missing_hmac');
    expect(await db.prisma.webhookDelivery.count()).toBe(0);
    expect(recorded).toBe(0);
  });

  it('refuses a wrong signature, a tampered body and another secret: 401 invalid_hmac', async () => {
    const { body, headers } = delivery();
    const cases = [
      { body, headers: { ...headers, 'x-shopify-hmac-sha256': 'AAAA' } },
      { body: body.replace('UPS', 'USPS'), headers },
      delivery({ secret: 'someone-elses-secret' }),
    ];
    for (const c of cases) {
      const response = await post(c.body, c.headers);
      expect(response.status).toBe(401);
      expect(response.body.error).toBe('invalid_hmac');
    }
    expect(await db.prisma.webhookDelivery.count()).toBe(0);
  });

  it.each(['x-shopify-topic', 'x-shopify-shop-domain', 'x-shopify-api-version', 'x-shopify-webhook-id'])(
    'refuses a delivery without %s: 400',
    async (name) => {
      const { body, headers } = delivery();
      const rest = Object.fromEntries(Object.entries(headers).filter(([k]) => k !== name));
      const response = await post(body, rest);
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('missing_headers');
      expect(await db.prisma.webhookDelivery.count()).toBe(0);
    },
  );

  it.each([
    ['a shop domain that is not *.myshopify.com', { 'x-shopify-shop-domain': 'evil.example.com' }],
    ['a shop domain with a path', { 'x-shopify-shop-domain': 'shop.myshopify.com/../x' }],
    ['a topic that is not resource/event', { 'x-shopify-topic': 'fulfillments' }],
    ['a topic with odd characters', { 'x-shopify-topic': 'orders/create; drop' }],
  ])('refuses %s: 400 malformed_headers', async (_what, patch) => {
    const { body, headers } = delivery();
    const response = await post(body, { ...headers, ...patch });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('malformed_headers');
    expect(await db.prisma.webhookDelivery.count()).toBe(0);
  });

  it.each([
    ['not JSON', '{"id": 1'],
    ['a JSON array', '[1, 2]'],
    ['a JSON string', '"text"'],
    ['a JSON number', '42'],
    ['JSON null', 'null'],
  ])('refuses a signed body that is %s: 400 malformed_body', async (_what, raw) => {
    const { body, headers } = delivery({ body: raw });
    const response = await post(body, headers);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('malformed_body');
    expect(await db.prisma.webhookDelivery.count()).toBe(0);
  });

  it('refuses an empty body: 400', async () => {
    const { headers } = delivery({ body: '' });
    const response = await request(app).post('/webhooks').set(headers);
    expect(response.status).toBe(400);
    expect(await db.prisma.webhookDelivery.count()).toBe(0);
  });

  it('checks the signature before the headers and the body', async () => {
    const { headers } = delivery();
    const response = await post('not json', {
      ...headers,
      'x-shopify-shop-domain': 'evil.example.com',
      'x-shopify-hmac-sha256': 'AAAA',
    });
    expect(response.status).toBe(401);
  });
});

describe('the HMAC check gives the library’s verdict', () => {
  // Our node:crypto check replaces shopify.webhooks.validate for speed; for every variant of signature and
  // headers both must agree on valid / missing_hmac / invalid_hmac / missing_headers.
  const variants: Array<[string, (d: { body: string; headers: Record<string, string> }) => void]> = [
    ['as signed', () => {}],
    ['no signature', (d) => delete d.headers['x-shopify-hmac-sha256']],
    ['empty signature', (d) => (d.headers['x-shopify-hmac-sha256'] = '')],
    [
      'wrong secret',
      (d) =>
        (d.headers['x-shopify-hmac-sha256'] = delivery({ secret: 'other' }).headers[
          'x-shopify-hmac-sha256'
        ]!),
    ],
    ['body changed', (d) => (d.body = `${d.body} `)],
    ['signature with trailing junk', (d) => (d.headers['x-shopify-hmac-sha256'] += 'AA')],
    [
      'signature twice',
      (d) => (d.headers['x-shopify-hmac-sha256'] += `, ${d.headers['x-shopify-hmac-sha256']}`),
    ],
    [
      'hex instead of base64',
      (d) =>
        (d.headers['x-shopify-hmac-sha256'] = Buffer.from(
          d.headers['x-shopify-hmac-sha256']!,
          'base64',
        ).toString('hex')),
    ],
    ['no topic', (d) => delete d.headers['x-shopify-topic']],
    ['no shop domain', (d) => delete d.headers['x-shopify-shop-domain']],
    ['no webhook id', (d) => delete d.headers['x-shopify-webhook-id']],
    ['no api version', (d) => delete d.headers['x-shopify-api-version']],
    [
      'unicode body',
      (d) => (d.body = JSON.stringify({ ...fixture('fulfillments-create.ups'), note: 'Grüße, 東京 🚚' })),
    ],
  ];

  it.each(variants)('%s', async (name, change) => {
    const d = delivery();
    change(d);
    if (name === 'unicode body') {
      d.headers['x-shopify-hmac-sha256'] = delivery({ body: JSON.parse(d.body) }).headers[
        'x-shopify-hmac-sha256'
      ]!;
    }
    const req = Object.assign(Object.create(null), {
      headers: Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k.toLowerCase(), v])),
      method: 'POST',
      url: '/webhooks',
    });
    const ours = verifyWebhook(shopify, req, Buffer.from(d.body, 'utf8'));
    const theirs = await shopify.webhooks.validate({
      rawBody: d.body,
      rawRequest: req,
      rawResponse: {} as never,
    });
    const ourVerdict = ours.ok ? 'valid' : ours.reason;
    const theirVerdict = theirs.valid ? 'valid' : theirs.reason;
    expect(ourVerdict).toBe(theirVerdict);
  });
});
