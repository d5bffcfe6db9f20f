import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/app.js';
import { addShop, numbersOf, variant } from '../helpers/scenario.js';
import { deliver, fixture } from '../helpers/webhooks.js';

/**
 * A tracker the service will never accept as sent (PostNL 3S without the destination it needs) fails on
 * its own, with the reason; the shop is not paused and its other trackers are created as usual.
 */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ connect: false });
});
afterAll(async () => {
  await app?.close();
});

describe('a permanent error is the tracker’s alone', () => {
  it('postnl-3s with destination null: failed destination_required, nothing at the service, others fine', async () => {
    const shop = await addShop(app, 'no-destination');
    await shop.send(
      'fulfillments/create',
      variant('fulfillments-create.postnl-needs-postcode', { destination: null }),
    );
    await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));
    await shop.send('fulfillments/create', fixture('fulfillments-create.dhl-two-parcels'));
    await shop.settled();

    const rows = await shop.rows();
    const postnl = rows.find((r) => r.provider === 'postnl-3s');
    expect(postnl).toMatchObject({
      trackingNumber: '3SABCD0123456',
      desired: 'active',
      remote: 'absent',
      syncState: 'failed',
      lastErrorReason: 'destination_required',
      postalCode: null,
      destinationCountry: null,
      attempts: 1,
      leaseOwner: null,
    });
    expect(postnl!.lastError).toMatch(/postal_code|destination_country/i);

    // Nothing for it at the service; one create was tried and not repeated.
    expect(numbersOf(await shop.remote())).toEqual(['1234567890', '1234567891', '1Z999AA10123456784']);
    const creates = await shop.calls('create');
    expect(
      creates.filter((c) => (c.body as { tracking_number: string }).tracking_number === '3SABCD0123456'),
    ).toEqual([
      expect.objectContaining({
        httpStatus: 200,
        body: { tracking_number: '3SABCD0123456', tracking_provider: 'postnl-3s', order_id: '6120000000003' },
      }),
    ]);
    expect(creates).toHaveLength(4);

    // The other trackers of the shop are synced, and the shop is not paused.
    expect(rows.filter((r) => r.provider !== 'postnl-3s').every((r) => r.syncState === 'synced')).toBe(true);
    const shopRow = await app.database.prisma.shop.findUniqueOrThrow({ where: { id: shop.id } });
    expect(shopRow.pausedReason).toBeNull();
  });

  it('the store supplying the destination later makes the failed tracker pending again, and it is created', async () => {
    const shop = await addShop(app, 'destination-later');
    const noDestination = variant('fulfillments-create.postnl-needs-postcode', { destination: null });
    await shop.send('fulfillments/create', noDestination);
    await shop.settled();
    expect((await shop.rows())[0]).toMatchObject({
      syncState: 'failed',
      lastErrorReason: 'destination_required',
    });

    // The merchant fixes the address: a newer update with the destination.
    await shop.send(
      'fulfillments/update',
      variant('fulfillments-create.postnl-needs-postcode', { updated_at: '2026-11-19T15:00:00+01:00' }),
    );
    await shop.settled();
    expect(await shop.remote()).toEqual([
      expect.objectContaining({
        tracking_number: '3SABCD0123456',
        postal_code: '1015 CV',
        destination_country: 'NL',
      }),
    ]);
    expect((await shop.rows())[0]).toMatchObject({
      syncState: 'synced',
      remote: 'present',
      lastErrorReason: null,
    });
    expect(await shop.calls('create')).toHaveLength(2);
  });
});

describe('a delivery whose dates no database can hold', () => {
  it('is refused at intake with the reason, stored nowhere, the same on every database', async () => {
    const shop = await addShop(app, 'year-zero');
    const response = await shop.send(
      'fulfillments/create',
      variant('fulfillments-create.ups', { updated_at: '0000-12-31T23:59:59.999Z', created_at: null }),
    );
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'body_not_of_topic' });
    expect(JSON.stringify(response.body)).toMatch(/updated_at/);
    await shop.settled();
    expect(await app.database.prisma.webhookDelivery.count({ where: { shopDomain: shop.domain } })).toBe(0);
    expect(await shop.calls()).toEqual([]);
  });

  it('a triggered-at header out of range is ignored, the delivery is recorded', async () => {
    const shop = await addShop(app, 'triggered-year-zero');
    const response = await deliver(app.url, {
      topic: 'fulfillments/create',
      shop: shop.domain,
      body: fixture('fulfillments-create.ups'),
      secret: TEST_SECRET,
      triggeredAt: '0000-12-31T23:59:59.999Z',
    });
    expect(response.status).toBe(200);
    await shop.settled();
    const [delivery] = await app.database.prisma.webhookDelivery.findMany({
      where: { shopDomain: shop.domain },
    });
    expect(delivery).toMatchObject({ state: 'processed', triggeredAt: null });
    expect(await shop.remote()).toHaveLength(1);
  });
});
