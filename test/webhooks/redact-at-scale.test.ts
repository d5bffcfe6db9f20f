import { beforeAll, describe, expect, it } from 'vitest';
import { type CarrierRepository, createCarrierRepository } from '../../src/carriers/carrier-repository.js';
import { customerEmailHash } from '../../src/lib/email-hash.js';
import { silentLogger } from '../../src/logger.js';
import { findOrderParcels } from '../../src/proxy/lookup.js';
import { ensureShop } from '../../src/shops/shop-repository.js';
import { type DeliveryProcessorDeps, processDeliveries } from '../../src/webhooks/process-deliveries.js';
import { customersRedactPayload } from '../../src/webhooks/payloads.js';
import { redactInSteps, redactOrdersPerStep, type StepRunner } from '../../src/webhooks/topics/compliance.js';
import { useTestDatabase } from '../helpers/database.js';
import { createDelivery, fulfillmentBody, uniqueDomain } from '../helpers/factories.js';
import { storeHolding } from '../helpers/store-confirmer.js';

/**
 * issue 34, break 1: a customers/redact naming more orders than one statement may carry (the databases'
 * parameter limits: 32 766 on SQLite, 65 535 on PostgreSQL; a transaction's time limit) is applied in
 * bounded batches, in the worker's pass, and leaves nothing of the orders behind: no e-mail hash (the
 * order + e-mail lookup finds nothing), no postal code, no stored body naming them — a failed one included.
 */

const db = useTestDatabase({ reset: true });
let carriers: CarrierRepository;

beforeAll(() => {
  carriers = createCarrierRepository(db.prisma);
});

const EMAIL = 'b2b-buyer@example.com';
const firstOrder = 9_100_000_000_000;
/** Rows per seeding statement: well within both databases' parameter limits. */
const seedChunk = 500;

function deps(): DeliveryProcessorDeps {
  return {
    prisma: db.prisma,
    carriers,
    logger: silentLogger,
    owner: 'redact-worker',
    confirmFulfillments: storeHolding(),
  };
}

/** A shop holding `count` orders of one customer (one fulfilment and line each) and one other customer's. */
async function seedCustomer(count: number) {
  const domain = uniqueDomain('redact');
  const shop = await ensureShop(db.prisma, domain);
  const hash = customerEmailHash(shop.id, EMAIL);
  const orders = Array.from({ length: count }, (_, i) => String(firstOrder + i));
  const at = new Date('2026-05-01T00:00:00Z');
  for (let i = 0; i < count; i += seedChunk) {
    const chunk = orders.slice(i, i + seedChunk);
    await db.prisma.fulfillment.createMany({
      data: chunk.map((orderId) => ({
        shopId: shop.id,
        fulfillmentId: `F${orderId}`,
        orderId,
        orderName: `#R${orderId}`,
        customerEmailHash: hash,
        status: 'success',
        sourceUpdatedAt: at,
      })),
    });
    await db.prisma.trackingLine.createMany({
      data: chunk.map((orderId) => ({
        shopId: shop.id,
        fulfillmentId: `F${orderId}`,
        orderId,
        orderName: `#R${orderId}`,
        trackingNumber: `TN${orderId}`,
        carrierName: 'UPS',
        postalCode: '80331',
        destinationCountry: 'DE',
      })),
    });
  }
  // Someone else's order, which stays as it is.
  await db.prisma.fulfillment.create({
    data: {
      shopId: shop.id,
      fulfillmentId: 'F-other',
      orderId: '42',
      orderName: '#O42',
      customerEmailHash: customerEmailHash(shop.id, 'other@example.com'),
      status: 'success',
      sourceUpdatedAt: at,
    },
  });
  await db.prisma.trackingLine.create({
    data: {
      shopId: shop.id,
      fulfillmentId: 'F-other',
      orderId: '42',
      orderName: '#O42',
      trackingNumber: 'TN-other',
      postalCode: '40003',
      destinationCountry: 'US',
    },
  });
  return { domain, shop, orders };
}

async function redactThroughTheWorker(count: number) {
  const { domain, shop, orders } = await seedCustomer(count);
  // A delivery naming the middle order that failed for good (its body kept for an operator), and a
  // pending one naming the last order: both bodies carry the customer's address.
  const failed = await createDelivery(
    db.prisma,
    fulfillmentBody({
      orderId: orders[Math.floor(count / 2)],
      destination: { zip: '80331', country_code: 'DE' },
    }),
    { shopDomain: domain, topic: 'fulfillments/update', state: 'failed', attempts: 10 },
  );
  const other = await createDelivery(db.prisma, fulfillmentBody({ orderId: '42' }), {
    shopDomain: domain,
    topic: 'fulfillments/update',
    state: 'failed',
  });
  const redact = await createDelivery(
    db.prisma,
    {
      shop_id: 1,
      shop_domain: domain,
      customer: { id: 77, email: EMAIL },
      orders_to_redact: orders.map(Number),
    },
    { shopDomain: domain, topic: 'customers/redact' },
  );

  const stats = await processDeliveries(deps(), 10);
  expect(stats).toMatchObject({ claimed: 1, applied: 1, errored: 0, rejected: 0 });

  const row = await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: redact.id } });
  expect(row).toMatchObject({ state: 'processed', payload: '', error: null });
  expect(
    await db.prisma.webhookDelivery.count({ where: { state: { not: 'processed' }, id: redact.id } }),
  ).toBe(0);
  // Nothing of the customer's orders is left.
  expect(
    await db.prisma.fulfillment.count({ where: { shopId: shop.id, customerEmailHash: { not: null } } }),
  ).toBe(1);
  expect(await db.prisma.trackingLine.count({ where: { shopId: shop.id, postalCode: { not: null } } })).toBe(
    1,
  );
  expect(
    await db.prisma.trackingLine.count({ where: { shopId: shop.id, destinationCountry: { not: null } } }),
  ).toBe(1);
  expect((await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: failed.id } })).payload).toBe('');
  expect((await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: other.id } })).payload).not.toBe(
    '',
  );
  // The shoppers' order + e-mail lookup finds none of them; the other customer's order is still found.
  for (const orderId of [orders[0]!, orders[count - 1]!]) {
    expect(
      await findOrderParcels({ prisma: db.prisma, carriers }, shop.id, `#R${orderId}`, EMAIL),
    ).toBeNull();
  }
  expect(
    await findOrderParcels({ prisma: db.prisma, carriers }, shop.id, '#O42', 'other@example.com'),
  ).not.toBeNull();
  // The record says what was done, without keeping the list of order ids.
  const audit = await db.prisma.complianceRequest.findFirstOrThrow({
    where: { shopDomain: domain, topic: 'customers/redact' },
  });
  const summary = JSON.parse(audit.summary) as Record<string, unknown>;
  expect(summary).toMatchObject({ orders: count, lines: count, emails: count, bodies: 1 });
  expect(audit.summary).not.toContain(orders[0]!);
}

describe('customers/redact of many orders', () => {
  it('a redact interrupted part-way (a crash after its first step) is finished by its next attempt', async () => {
    const { domain, shop, orders } = await seedCustomer(redactOrdersPerStep * 2 + 10);
    const body = {
      shop_id: 1,
      shop_domain: domain,
      customer: { id: 77, email: EMAIL },
      orders_to_redact: orders.map(Number),
    };
    const redact = await createDelivery(db.prisma, body, { shopDomain: domain, topic: 'customers/redact' });
    // The first attempt dies after its first short transaction (the shop read, then one step of orders).
    let steps = 0;
    const crashing: StepRunner = (work) => {
      if (++steps > 2) throw new Error('process died');
      return db.prisma.$transaction(work);
    };
    const request = customersRedactPayload.parse(body);
    await expect(redactInSteps(crashing, domain, request, redact.id)).rejects.toThrow('process died');
    // The customer's lines still holding a postal code (the other customer's one line aside).
    const left = async () =>
      (await db.prisma.trackingLine.count({ where: { shopId: shop.id, postalCode: { not: null } } })) - 1;
    expect(await left()).toBe(orders.length - redactOrdersPerStep);
    // Its body is still there (the redact's own body is never emptied by its steps): the retry finishes it.
    const stats = await processDeliveries(deps(), 10);
    expect(stats).toMatchObject({ claimed: 1, applied: 1, errored: 0 });
    expect(await left()).toBe(0);
    expect(
      await db.prisma.fulfillment.count({ where: { shopId: shop.id, customerEmailHash: { not: null } } }),
    ).toBe(1);
    expect(await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: redact.id } })).toMatchObject({
      state: 'processed',
      payload: '',
    });
  });

  it('applies a redact of 1 200 orders in one pass and leaves nothing of them', async () => {
    await redactThroughTheWorker(1_200);
  });

  it('applies a redact of 20 000 orders in one pass and leaves nothing of them', async () => {
    await redactThroughTheWorker(20_000);
  }, 180_000);
});
