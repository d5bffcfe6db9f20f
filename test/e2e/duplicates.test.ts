import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/app.js';
import { addShop } from '../helpers/scenario.js';
import { fixture, signedDelivery } from '../helpers/webhooks.js';

/**
 * The platform delivers at least once: the same delivery may arrive many times, at once or later, and the
 * same merchant action may come as a new delivery (new webhook id, same event id). One tracker, one create.
 */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ connect: false });
});
afterAll(async () => {
  await app?.close();
});

async function post(request: { body: string; headers: Record<string, string> }) {
  const response = await fetch(`${app.url}/webhooks`, {
    method: 'POST',
    headers: request.headers,
    body: request.body,
  });
  return { status: response.status, body: (await response.json()) as { ok?: boolean; duplicate?: boolean } };
}

describe('duplicate deliveries', () => {
  it('the same delivery 5 times at once and once later: one row, one tracker, one create', async () => {
    const shop = await addShop(app, 'dup');
    const eventId = randomUUID();
    const delivery = signedDelivery({
      topic: 'fulfillments/create',
      shop: shop.domain,
      body: fixture('fulfillments-create.ups'),
      secret: TEST_SECRET,
      eventId,
    });

    const burst = await Promise.all(Array.from({ length: 5 }, () => post(delivery)));
    expect(burst.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(burst.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    expect(burst.filter((r) => r.body.duplicate === true)).toHaveLength(4);
    await shop.settled();

    const later = await post(delivery);
    expect(later).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    await shop.settled();

    const rows = await app.database.prisma.webhookDelivery.findMany({ where: { shopDomain: shop.domain } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ eventId, topic: 'fulfillments/create', state: 'processed', attempts: 1 });
    expect(await shop.remote()).toHaveLength(1);
    expect(await shop.calls('create')).toHaveLength(1);
  });

  it('a new webhook id with the same event id (the same merchant action) is a duplicate', async () => {
    const shop = await addShop(app, 'dup-webhook-id');
    const eventId = randomUUID();
    const body = fixture('fulfillments-create.dhl-two-parcels');
    const first = await shop.send('fulfillments/create', body, { eventId, webhookId: randomUUID() });
    expect(first).toEqual({ status: 200, body: { ok: true, duplicate: false } });
    await shop.settled();

    const again = await shop.send('fulfillments/create', body, { eventId, webhookId: randomUUID() });
    expect(again).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    await shop.settled();

    expect(await app.database.prisma.webhookDelivery.count({ where: { shopDomain: shop.domain } })).toBe(1);
    expect(await shop.remote()).toHaveLength(2);
    expect(await shop.calls('create')).toHaveLength(2);
  });

  it('a different event id with an identical body is processed again, still one create', async () => {
    const shop = await addShop(app, 'dup-event-id');
    const body = fixture('fulfillments-create.ups');
    expect((await shop.send('fulfillments/create', body, { eventId: randomUUID() })).body).toMatchObject({
      duplicate: false,
    });
    await shop.settled();
    expect((await shop.send('fulfillments/create', body, { eventId: randomUUID() })).body).toMatchObject({
      duplicate: false,
    });
    await shop.settled();

    const rows = await app.database.prisma.webhookDelivery.findMany({ where: { shopDomain: shop.domain } });
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.state === 'processed' && r.error === null)).toBe(true);
    expect(await shop.remote()).toHaveLength(1);
    expect(await shop.calls('create')).toHaveLength(1);
    const [tracker] = await shop.rows();
    expect(tracker).toMatchObject({ syncState: 'synced', remote: 'present', createCalls: 1 });
  });

  it('the same event under another topic is not a duplicate of it', async () => {
    // (shop, topic, event id) is the key: fulfillments/update with the create's event id is its own delivery.
    const shop = await addShop(app, 'dup-topic');
    const eventId = randomUUID();
    await shop.send('fulfillments/create', fixture('fulfillments-create.ups'), { eventId });
    const update = await shop.send('fulfillments/update', fixture('fulfillments-update.cancelled'), {
      eventId,
    });
    expect(update.body).toMatchObject({ duplicate: false });
    await shop.settled();
    expect(await app.database.prisma.webhookDelivery.count({ where: { shopDomain: shop.domain } })).toBe(2);
    expect(await shop.remote()).toEqual([]);
  });
});
