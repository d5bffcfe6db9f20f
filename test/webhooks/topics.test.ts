import { describe, expect, it } from 'vitest';
import { createCarrierRepository } from '../../src/carriers/carrier-repository.js';
import { createCarrierMatcher } from '../../src/carriers/match.js';
import { silentLogger } from '../../src/logger.js';
import { processDeliveries } from '../../src/webhooks/process-deliveries.js';
import { applyDelivery } from '../../src/webhooks/topics/index.js';
import type { TopicResult } from '../../src/webhooks/topics/types.js';
import { useTestDatabase } from '../helpers/database.js';
import { createDelivery, fulfillmentBody, uniqueDomain } from '../helpers/factories.js';
import { storeHolding } from '../helpers/store-confirmer.js';

const db = useTestDatabase({ reset: true });

const matcher = createCarrierMatcher([]);

/** A delivery's body applied as the worker does: checked against its topic and shop, then its use case. */
function handle(topic: string, shopDomain: string, payload: unknown): Promise<TopicResult> {
  return db.prisma.$transaction((tx) => applyDelivery({ tx, shopDomain, matcher }, topic, payload));
}

/** The shop fields every privacy topic's body carries. */
const privacy = (shopDomain: string, body: Record<string, unknown>) => ({
  shop_id: 1,
  shop_domain: shopDomain,
  ...body,
});

const ORDER_A = '7000000000001'; // the customer's order, shipped to 80331 DE
const ORDER_B = '7000000000002'; // someone else's, shipped to 40003 US

/** A shop with two orders' fulfilments applied, plus bodies still stored for both orders. */
async function seed(domain: string) {
  await handle(
    'fulfillments/create',
    domain,
    fulfillmentBody({
      id: 8000000000001,
      orderId: ORDER_A,
      name: '#2001.1',
      carrier: 'DHL Express',
      trackingNumbers: ['DHL-A-1', 'DHL-A-2'],
      destination: { zip: '80331', country_code: 'DE' },
    }),
  );
  await handle(
    'fulfillments/create',
    domain,
    fulfillmentBody({
      id: 8000000000002,
      orderId: ORDER_B,
      name: '#2002.1',
      carrier: 'UPS',
      trackingNumbers: ['UPS-B-1'],
      destination: { zip: '40003', country_code: 'US' },
    }),
  );
  // Bodies not processed yet (or failed): one per order, plus another shop's mentioning order A's id.
  const pendingA = await createDelivery(
    db.prisma,
    fulfillmentBody({ orderId: ORDER_A, destination: { zip: '80331', country_code: 'DE' } }),
    { shopDomain: domain, topic: 'fulfillments/update' },
  );
  const pendingB = await createDelivery(db.prisma, fulfillmentBody({ orderId: ORDER_B }), {
    shopDomain: domain,
    topic: 'fulfillments/update',
  });
  const elsewhere = await createDelivery(db.prisma, fulfillmentBody({ orderId: ORDER_A }), {
    shopDomain: 'another-shop.myshopify.com',
    topic: 'fulfillments/update',
  });
  const shop = await db.prisma.shop.findUniqueOrThrow({ where: { domain } });
  return { shop, pendingA, pendingB, elsewhere };
}

/** Every stored text of the app, for "does it still hold X" checks. */
async function everythingHeld(): Promise<string> {
  const [lines, trackers, deliveries, compliance, fulfillments] = await Promise.all([
    db.prisma.trackingLine.findMany(),
    db.prisma.tracker.findMany(),
    db.prisma.webhookDelivery.findMany(),
    db.prisma.complianceRequest.findMany(),
    db.prisma.fulfillment.findMany(),
  ]);
  return JSON.stringify({ lines, trackers, deliveries, compliance, fulfillments });
}

describe('customers/data_request', () => {
  it('records what is held for the orders asked about, and only for them', async () => {
    const domain = uniqueDomain();
    await seed(domain);
    const result = await handle('customers/data_request', domain, {
      shop_domain: domain,
      orders_requested: [Number(ORDER_A)],
      customer: { id: 1, email: 'mia@example.de' },
      data_request: { id: 9 },
    });
    expect(result).toMatchObject({ kind: 'applied', detail: '2 tracking line(s) reported for 1 order(s)' });
    const requests = await db.prisma.complianceRequest.findMany();
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ shopDomain: domain, topic: 'customers/data_request' });
    const summary = JSON.parse(requests[0]!.summary) as {
      ordersRequested: string[];
      dataHeld: Array<Record<string, unknown>>;
    };
    expect(summary.ordersRequested).toEqual([ORDER_A]);
    expect(summary.dataHeld).toHaveLength(2);
    expect(summary.dataHeld).toEqual(
      expect.arrayContaining([
        {
          orderId: ORDER_A,
          orderName: '#2001',
          trackingNumber: 'DHL-A-1',
          carrierName: 'DHL Express',
          postalCode: '80331',
          destinationCountry: 'DE',
        },
        expect.objectContaining({ trackingNumber: 'DHL-A-2' }),
      ]),
    );
    expect(requests[0]!.summary).not.toContain('40003');
  });

  it('records an empty answer for a shop it does not know', async () => {
    const domain = uniqueDomain();
    const result = await handle('customers/data_request', domain, privacy(domain, { orders_requested: [1] }));
    expect(result.kind).toBe('applied');
    const summary = JSON.parse((await db.prisma.complianceRequest.findFirstOrThrow()).summary);
    expect(summary).toEqual({ ordersRequested: ['1'], dataHeld: [] });
  });

  it('rejects a body with a non-numeric order id', async () => {
    const domain = uniqueDomain();
    const result = await handle(
      'customers/data_request',
      domain,
      privacy(domain, { orders_requested: ['x'] }),
    );
    expect(result.kind).toBe('rejected');
  });
});

describe('customers/redact', () => {
  it('forgets the destination of the orders’ lines and trackers and empties bodies mentioning them', async () => {
    const domain = uniqueDomain();
    const { shop, pendingA, pendingB, elsewhere } = await seed(domain);
    const result = await handle('customers/redact', domain, {
      shop_domain: domain,
      customer: { id: 1, email: 'mia@example.de' },
      orders_to_redact: [Number(ORDER_A)],
    });
    expect(result).toMatchObject({ kind: 'applied' });

    const linesA = await db.prisma.trackingLine.findMany({ where: { shopId: shop.id, orderId: ORDER_A } });
    expect(linesA).toHaveLength(2);
    expect(linesA.every((l) => l.postalCode === null && l.destinationCountry === null)).toBe(true);
    const trackersA = await db.prisma.tracker.findMany({
      where: { shopId: shop.id, provider: 'dhl-express' },
    });
    expect(trackersA).toHaveLength(2);
    expect(trackersA.every((t) => t.postalCode === null && t.destinationCountry === null)).toBe(true);

    // Order B and other shops are untouched.
    const lineB = await db.prisma.trackingLine.findFirstOrThrow({
      where: { shopId: shop.id, orderId: ORDER_B },
    });
    expect(lineB).toMatchObject({ postalCode: '40003', destinationCountry: 'US' });
    const trackerB = await db.prisma.tracker.findFirstOrThrow({
      where: { shopId: shop.id, provider: 'ups' },
    });
    expect(trackerB).toMatchObject({ postalCode: '40003', destinationCountry: 'US' });

    const body = async (id: string) =>
      (await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id } })).payload;
    expect(await body(pendingA.id)).toBe('');
    expect(await body(pendingB.id)).not.toBe('');
    expect(await body(elsewhere.id)).not.toBe('');

    const audit = await db.prisma.complianceRequest.findFirstOrThrow({
      where: { topic: 'customers/redact' },
    });
    expect(JSON.parse(audit.summary)).toMatchObject({ orders: 1, lines: 2, bodies: 1, answers: 0 });
  });

  it('leaves nothing holding the customer’s postal code, an earlier data request’s answer included', async () => {
    const domain = uniqueDomain();
    await seed(domain);
    await db.prisma.webhookDelivery.deleteMany({ where: { shopDomain: { not: domain } } });
    await handle('customers/data_request', domain, privacy(domain, { orders_requested: [ORDER_A, ORDER_B] }));
    expect(await everythingHeld()).toContain('80331');

    await handle('customers/redact', domain, privacy(domain, { orders_to_redact: [ORDER_A] }));
    const held = await everythingHeld();
    expect(held).not.toContain('80331');
    expect(held).toContain('40003'); // the other customer's data stays

    const audit = await db.prisma.complianceRequest.findFirstOrThrow({
      where: { topic: 'customers/redact' },
    });
    expect(JSON.parse(audit.summary)).toMatchObject({ orders: 1, answers: 1 });

    // The earlier answer still lists what it listed for the other order.
    const answer = await db.prisma.complianceRequest.findFirstOrThrow({
      where: { topic: 'customers/data_request' },
    });
    const summary = JSON.parse(answer.summary) as {
      dataHeld: Array<{ orderId: string; postalCode: string | null }>;
    };
    expect(summary.dataHeld.filter((l) => l.orderId === ORDER_B)).toEqual([
      expect.objectContaining({ postalCode: '40003' }),
    ]);
  });

  it('does nothing harmful for an unknown shop or an empty order list', async () => {
    for (const orders of [[], [1]]) {
      const domain = uniqueDomain();
      const result = await handle('customers/redact', domain, privacy(domain, { orders_to_redact: orders }));
      expect(result.kind).toBe('applied');
    }
    expect(await db.prisma.complianceRequest.count()).toBe(2);
  });
});

describe('shop/redact', () => {
  it('deletes the shop and every row of it, empties its stored bodies, and leaves other shops alone', async () => {
    const domain = uniqueDomain();
    const other = uniqueDomain();
    const { shop } = await seed(domain);
    const { shop: otherShop } = await seed(other);
    const carriers = createCarrierRepository(db.prisma);
    await carriers.setOverride(db.prisma, shop.id, 'Acme', 'acme');
    await db.prisma.cancelledOrder.create({ data: { shopId: shop.id, orderId: ORDER_B } });
    await handle('customers/data_request', domain, privacy(domain, { orders_requested: [ORDER_A] }));

    const result = await handle('shop/redact', domain, { shop_domain: domain, shop_id: 1 });
    expect(result.kind).toBe('applied');

    expect(await db.prisma.shop.findUnique({ where: { id: shop.id } })).toBeNull();
    for (const count of [
      db.prisma.fulfillment.count({ where: { shopId: shop.id } }),
      db.prisma.trackingLine.count({ where: { shopId: shop.id } }),
      db.prisma.tracker.count({ where: { shopId: shop.id } }),
      db.prisma.carrierMapping.count({ where: { shopId: shop.id } }),
      db.prisma.cancelledOrder.count({ where: { shopId: shop.id } }),
      db.prisma.webhookDelivery.count({ where: { shopDomain: domain, payload: { not: '' } } }),
      db.prisma.shipmentCount.count({ where: { shopId: shop.id } }),
      db.prisma.deliveryCount.count({ where: { shopId: shop.id } }),
      db.prisma.shipmentCountDelta.count({ where: { shopId: shop.id } }),
      db.prisma.deliveryCountDelta.count({ where: { shopId: shop.id } }),
    ]) {
      expect(await count).toBe(0);
    }
    // Nothing of the shop's customers is left, not even in an earlier data request's answer.
    const left = await db.prisma.complianceRequest.findMany({ where: { shopDomain: domain } });
    expect(left.map((r) => r.topic)).toEqual(['shop/redact']);

    expect(await db.prisma.tracker.count({ where: { shopId: otherShop.id } })).toBe(3);
    expect(await db.prisma.deliveryCountDelta.count({ where: { shopId: otherShop.id } })).toBeGreaterThan(0);
    expect(
      await db.prisma.webhookDelivery.count({ where: { shopDomain: other, payload: { not: '' } } }),
    ).toBe(2);
  });

  it('is harmless for a shop it does not know', async () => {
    const domain = uniqueDomain();
    const result = await handle('shop/redact', domain, privacy(domain, {}));
    expect(result).toMatchObject({ kind: 'applied' });
  });
});

describe('app/uninstalled', () => {
  it('holds the shop’s work as uninstalled; its trackers stay as they are', async () => {
    const domain = uniqueDomain();
    const { shop } = await seed(domain);
    await db.prisma.shop.update({ where: { id: shop.id }, data: { pausedReason: null, pausedAt: null } });
    const trackersBefore = await db.prisma.tracker.findMany({
      where: { shopId: shop.id },
      orderBy: { id: 'asc' },
    });

    expect(
      await handle('app/uninstalled', domain, { id: 1, domain, myshopify_domain: domain }),
    ).toMatchObject({ kind: 'applied' });
    const after = await db.prisma.shop.findUniqueOrThrow({ where: { id: shop.id } });
    expect(after).toMatchObject({ pausedReason: 'uninstalled', probeAt: null });
    expect(after.pausedAt).toBeInstanceOf(Date);
    expect(after.uninstalledAt).toBeInstanceOf(Date);
    expect(await db.prisma.tracker.findMany({ where: { shopId: shop.id }, orderBy: { id: 'asc' } })).toEqual(
      trackersBefore,
    );
  });

  it('ignores a shop it does not know', async () => {
    const domain = uniqueDomain();
    const body = { id: 1, domain, myshopify_domain: domain };
    expect(await handle('app/uninstalled', domain, body)).toMatchObject({ kind: 'ignored' });
    expect(await db.prisma.shop.count()).toBe(0);
  });

  it('runs through the delivery processor too', async () => {
    const domain = uniqueDomain();
    await seed(domain);
    await createDelivery(
      db.prisma,
      { id: 1, domain, myshopify_domain: domain },
      { shopDomain: domain, topic: 'app/uninstalled' },
    );
    await db.prisma.webhookDelivery.updateMany({
      where: { topic: { not: 'app/uninstalled' } },
      data: { state: 'processed' },
    });
    const stats = await processDeliveries(
      {
        prisma: db.prisma,
        carriers: createCarrierRepository(db.prisma),
        logger: silentLogger,
        owner: 't',
        confirmFulfillments: storeHolding(),
      },
      10,
    );
    expect(stats).toMatchObject({ claimed: 1, applied: 1 });
    expect((await db.prisma.shop.findUniqueOrThrow({ where: { domain } })).pausedReason).toBe('uninstalled');
  });
});
