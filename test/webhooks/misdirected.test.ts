import { createHmac } from 'node:crypto';
import { Session } from '@shopify/shopify-api';
import request from 'supertest';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { createApp } from '../../src/app/server.js';
import { createCarrierRepository } from '../../src/carriers/carrier-repository.js';
import { silentLogger } from '../../src/logger.js';
import { webhooksRefused } from '../../src/observability/metrics.js';
import type { PrismaSessionStorage } from '../../src/shops/session-storage.js';
import { processDeliveries } from '../../src/webhooks/process-deliveries.js';
import { topicBodies } from '../../src/webhooks/topic-bodies.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { useTestDatabase } from '../helpers/database.js';
import { createDelivery, createShop, createTracker, uniqueDomain } from '../helpers/factories.js';
import { createTestWebApp } from '../helpers/web-app.js';
import { fixture, signedDelivery } from '../helpers/webhooks.js';
import { storeHolding } from '../helpers/store-confirmer.js';

/**
 * The platform signs the body only; X-Shopify-Topic and X-Shopify-Shop-Domain are not signed. A captured,
 * correctly signed body re-sent under another topic or for another shop must change nothing.
 */

const SECRET = 'misdirected-test-secret';
const ATTACKER = 'attacker-shop.myshopify.com';

const db = useTestDatabase({ reset: true });
let app: ReturnType<typeof createApp>;
let sessions: PrismaSessionStorage;

beforeAll(async () => {
  ({ app, sessions } = createTestWebApp({ prisma: db.prisma, secret: SECRET }));
});
beforeEach(async () => {
  await db.prisma.session.deleteMany({});
});

function post(topic: string, shop: string, body: string) {
  const { headers } = signedDelivery({ topic, shop, body, secret: SECRET });
  return request(app).post('/webhooks').set(headers).send(body);
}

const work = () =>
  processDeliveries(
    {
      prisma: db.prisma,
      carriers: createCarrierRepository(db.prisma),
      logger: silentLogger,
      owner: 'test',
      confirmFulfillments: storeHolding(),
    },
    100,
  );

/** An installed shop with trackers and an offline session: what an attacker would like to wipe. */
async function installedVictim() {
  const domain = uniqueDomain('victim');
  const shop = await createShop(db.prisma, { domain });
  for (let i = 0; i < 3; i++) await createTracker(db.prisma, shop.id);
  await sessions.storeSession(
    new Session({
      id: `offline_${domain}`,
      shop: domain,
      state: '',
      isOnline: false,
      accessToken: 'shpat_v',
    }),
  );
  return { domain, shop };
}

async function expectIntact(victim: { domain: string; shop: { id: string } }) {
  const shop = await db.prisma.shop.findUnique({ where: { domain: victim.domain } });
  expect(shop).not.toBeNull();
  expect(shop).toMatchObject({ uninstalledAt: null, pausedReason: null });
  expect(await db.prisma.tracker.count({ where: { shopId: victim.shop.id } })).toBe(3);
  expect(await db.prisma.session.count({ where: { shop: victim.domain } })).toBe(1);
}

/** One real-shaped body per topic, each as the platform would sign it for ATTACKER. */
function bodiesOf(shop: string): Record<keyof typeof topicBodies, unknown> {
  const privacy = { shop_id: 954889, shop_domain: shop };
  return {
    'fulfillments/create': fixture('fulfillments-create.ups'),
    'fulfillments/update': fixture('fulfillments-update.cancelled'),
    'orders/cancelled': fixture('orders-cancelled'),
    'app/uninstalled': { id: 954889, name: 'Attacker', domain: shop, myshopify_domain: shop },
    'customers/data_request': {
      ...privacy,
      orders_requested: [6120000000001],
      customer: { id: 191167, email: 'john@example.com' },
      data_request: { id: 9999 },
    },
    'customers/redact': { ...privacy, orders_to_redact: [6120000000001], customer: { id: 191167 } },
    'shop/redact': privacy,
  };
}

const topics = Object.keys(topicBodies) as Array<keyof typeof topicBodies>;

/** Bodies no check can tell apart: the same schema, and no shop named in them. */
function indistinguishable(from: string, to: string): boolean {
  const fulfillment = (t: string) => t.startsWith('fulfillments/');
  return fulfillment(from) && fulfillment(to);
}

describe('a signed body replayed under another topic or shop', () => {
  it('is refused under every other topic and every other shop, and changes nothing', async () => {
    const victim = await installedVictim();
    const bodies = bodiesOf(ATTACKER);
    const outcomes: string[] = [];
    for (const from of topics) {
      const body = JSON.stringify(bodies[from]);
      const namesNoShop = from.startsWith('fulfillments/') || from === 'orders/cancelled';
      for (const to of [...topics, 'products/update']) {
        const sameKind = from === to || indistinguishable(from, to);
        for (const shop of [victim.domain, ATTACKER]) {
          // A fulfilment or order body names no shop and its topic's twin has the same schema: nothing
          // in it can tell where it belongs (the platform's limit, not this check's).
          if (sameKind && namesNoShop && shop === victim.domain) continue;
          const response = await post(to, shop, body);
          outcomes.push(`${from} → ${to} @${shop === ATTACKER ? 'own' : 'victim'}: ${response.status}`);
          if (sameKind && shop === ATTACKER) {
            expect(response.status, `${from} as ${to} for its own shop`).toBe(200);
            continue;
          }
          expect([400, 403], `${from} as ${to} for ${shop}`).toContain(response.status);
          expect(response.body.error).toMatch(/^(unsupported_topic|body_not_of_topic|shop_mismatch)$/);
        }
      }
    }
    // Nothing addressed to the victim was stored.
    expect(await db.prisma.webhookDelivery.count({ where: { shopDomain: victim.domain } })).toBe(0);
    await work();
    await expectIntact(victim);
    expect(outcomes.length).toBeGreaterThan(90);
  });

  it('takes each topic’s own body for its own shop', async () => {
    const bodies = bodiesOf(ATTACKER);
    for (const topic of topics) {
      const response = await post(topic, ATTACKER, JSON.stringify(bodies[topic]));
      expect(response.status, topic).toBe(200);
    }
    expect(await db.prisma.webhookDelivery.count()).toBe(topics.length);
  });

  it('refuses a body naming another shop, in any case of letters', async () => {
    const victim = await installedVictim();
    const body = JSON.stringify(bodiesOf(ATTACKER.toUpperCase())['shop/redact']);
    const response = await post('shop/redact', victim.domain, body);
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ error: 'shop_mismatch' });
    // …and the same body for its own shop, whatever the case, is taken.
    expect((await post('shop/redact', ATTACKER, body)).status).toBe(200);
  });

  it('refuses app/uninstalled whose Shop names another platform domain, takes a custom primary domain', async () => {
    const victim = await installedVictim();
    const other = { id: 1, myshopify_domain: victim.domain, domain: ATTACKER };
    expect((await post('app/uninstalled', victim.domain, JSON.stringify(other))).status).toBe(403);
    const custom = { id: 1, myshopify_domain: victim.domain, domain: 'shop.example.com' };
    expect((await post('app/uninstalled', victim.domain, JSON.stringify(custom))).status).toBe(200);
  });
});

describe('the worker checks stored bodies again', () => {
  it('rejects a misdirected body stored before intake checked, and the shop keeps everything', async () => {
    const victim = await installedVictim();
    const fulfillment = fixture('fulfillments-create.ups');
    const asRedact = await createDelivery(db.prisma, fulfillment, {
      shopDomain: victim.domain,
      topic: 'shop/redact',
    });
    const asUninstall = await createDelivery(db.prisma, fulfillment, {
      shopDomain: victim.domain,
      topic: 'app/uninstalled',
    });
    const otherShops = await createDelivery(db.prisma, bodiesOf(ATTACKER)['customers/redact'], {
      shopDomain: victim.domain,
      topic: 'customers/redact',
    });
    expect(await work()).toMatchObject({ rejected: 3 });
    for (const { id } of [asRedact, asUninstall, otherShops]) {
      const row = await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id } });
      expect(row.state).toBe('failed');
      expect(row.error).toMatch(/^(body_not_of_topic|shop_mismatch): /);
    }
    await expectIntact(victim);
  });
});

describe('shop/redact', () => {
  const redact = (domain: string) => ({ shop_id: 1, shop_domain: domain });

  it('of a shop that is still installed changes nothing and records why', async () => {
    const victim = await installedVictim();
    expect((await post('shop/redact', victim.domain, JSON.stringify(redact(victim.domain)))).status).toBe(
      200,
    );
    expect(await work()).toMatchObject({ ignored: 1 });
    await expectIntact(victim);
    const record = await db.prisma.complianceRequest.findFirstOrThrow({
      where: { shopDomain: victim.domain },
    });
    expect(record.topic).toBe('shop/redact');
    expect(JSON.parse(record.summary)).toEqual({ refused: expect.stringMatching(/still installed/) });
    const delivery = await db.prisma.webhookDelivery.findFirstOrThrow({
      where: { shopDomain: victim.domain },
    });
    expect(delivery).toMatchObject({ state: 'processed', error: expect.stringMatching(/still installed/) });
  });

  it('after app/uninstalled deletes the shop, its trackers and its sessions', async () => {
    const victim = await installedVictim();
    const uninstall = { id: 1, myshopify_domain: victim.domain, domain: victim.domain };
    // A session stored after the uninstall was processed would be a reinstall: leave a stale online one.
    expect((await post('app/uninstalled', victim.domain, JSON.stringify(uninstall))).status).toBe(200);
    await work();
    await db.prisma.session.create({
      data: { id: `${victim.domain}_5`, shop: victim.domain, state: '', isOnline: true, accessToken: 'x' },
    });
    expect((await post('shop/redact', victim.domain, JSON.stringify(redact(victim.domain)))).status).toBe(
      200,
    );
    expect(await work()).toMatchObject({ applied: 1 });
    expect(await db.prisma.shop.findUnique({ where: { domain: victim.domain } })).toBeNull();
    expect(await db.prisma.tracker.count({ where: { shopId: victim.shop.id } })).toBe(0);
    expect(await db.prisma.session.count({ where: { shop: victim.domain } })).toBe(0);
  });

  it('treats an offline session whose token has expired for good as not installed', async () => {
    const domain = uniqueDomain('lapsed');
    await createShop(db.prisma, { domain });
    await db.prisma.session.create({
      data: {
        id: `offline_${domain}`,
        shop: domain,
        state: '',
        isOnline: false,
        accessToken: 'shpat_old',
        expires: new Date(Date.now() - 60_000),
        refreshToken: 'shprt_old',
        refreshTokenExpires: new Date(Date.now() - 60_000),
      },
    });
    expect((await post('shop/redact', domain, JSON.stringify(redact(domain)))).status).toBe(200);
    expect(await work()).toMatchObject({ applied: 1 });
    expect(await db.prisma.session.count({ where: { shop: domain } })).toBe(0);
  });
});

describe('customers/redact', () => {
  it('empties only bodies naming exactly the orders redacted, never ids that merely contain them', async () => {
    const domain = uniqueDomain('redact');
    await createShop(db.prisma, { domain });
    const body = (orderId: number) => ({
      ...fixture('fulfillments-create.ups'),
      order_id: orderId,
      id: orderId + 5,
    });
    const kept = [];
    for (const orderId of [11, 21, 100, 6120000000001]) {
      kept.push(await createDelivery(db.prisma, body(orderId), { shopDomain: domain, state: 'failed' }));
    }
    const named = await createDelivery(db.prisma, body(1), { shopDomain: domain, state: 'failed' });
    const order = await createDelivery(
      db.prisma,
      { ...fixture('orders-cancelled'), id: 1 },
      { shopDomain: domain, topic: 'orders/cancelled', state: 'failed' },
    );
    const request = { shop_id: 1, shop_domain: domain, orders_to_redact: [1], customer: { id: 5 } };
    expect((await post('customers/redact', domain, JSON.stringify(request))).status).toBe(200);
    await work();
    const payload = async (id: string) =>
      (await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id } })).payload;
    expect(await payload(named.id)).toBe('');
    expect(await payload(order.id)).toBe('');
    for (const delivery of kept) expect(await payload(delivery.id)).not.toBe('');
  });
});

describe('intake refusals', () => {
  it('are counted by reason and logged at debug only', async () => {
    const captured = captureLogger('debug');
    const { app: logged } = createTestWebApp({ prisma: db.prisma, secret: SECRET, logger: captured.logger });
    const count = async (reason: string) =>
      (await webhooksRefused.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
    const before = { hmac: await count('invalid_hmac'), shop: await count('shop_mismatch') };
    const body = JSON.stringify(bodiesOf(ATTACKER)['shop/redact']);
    const { headers } = signedDelivery({
      topic: 'shop/redact',
      shop: 'victim.myshopify.com',
      body,
      secret: SECRET,
    });
    await request(logged).post('/webhooks').set(headers).send(body).expect(403);
    await request(logged)
      .post('/webhooks')
      .set({ ...headers, 'x-shopify-hmac-sha256': 'bm90IGl0' })
      .send(body)
      .expect(401);
    expect(await count('shop_mismatch')).toBe(before.shop + 1);
    expect(await count('invalid_hmac')).toBe(before.hmac + 1);
    const refusals = captured.records.filter((r) => r.msg === 'webhook refused');
    expect(refusals).toHaveLength(2);
    for (const record of refusals) expect(record.level).toBe(20); // pino's debug
    expect(captured.records.filter((r) => r.level >= 30)).toEqual([]);
  });
});

describe('the signature covers the raw bytes', () => {
  const hmac = (bytes: Buffer) => createHmac('sha256', SECRET).update(bytes).digest('base64');

  function send(bytes: Buffer, signature: string) {
    const { headers } = signedDelivery({
      topic: 'fulfillments/create',
      shop: ATTACKER,
      body: '',
      secret: SECRET,
    });
    return (
      request(app)
        .post('/webhooks')
        // (supertest would re-encode a Buffer sent as JSON; the route reads the bytes whatever the type says)
        .set({ ...headers, 'x-shopify-hmac-sha256': signature, 'content-type': 'application/octet-stream' })
        .send(bytes)
    );
  }

  // A body that is not valid UTF-8 (a Latin-1 "ß" in a note): decoding it changes the bytes.
  const text = JSON.stringify({ ...fixture('fulfillments-create.ups'), note: 'Stra@e' });
  const bytes = Buffer.from(text, 'latin1');
  bytes[bytes.indexOf('@')] = 0xdf;

  it('takes a body signed over its bytes even when they are not valid UTF-8', async () => {
    expect((await send(bytes, hmac(bytes))).status).toBe(200);
  });

  it('refuses a signature made over the body decoded as text instead of its bytes', async () => {
    const decoded = Buffer.from(bytes.toString('utf8'), 'utf8');
    expect(decoded.equals(bytes)).toBe(false);
    expect((await send(bytes, hmac(decoded))).status).toBe(401);
  });
});
