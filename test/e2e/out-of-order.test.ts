import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, waitFor } from '../helpers/app.js';
import { addShop, numbersOf, variant } from '../helpers/scenario.js';
import { fixture } from '../helpers/webhooks.js';

/**
 * Deliveries arrive out of order: a cancellation before the fulfilment it cancels, an older update after a
 * newer one, an order cancelled before its fulfilment. Desired state follows the store's order of events
 * (cancellation final, newest updated_at wins), not the order of arrival.
 */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ connect: false });
});
afterAll(async () => {
  await app?.close();
});

describe('out-of-order fulfilment deliveries', () => {
  it('cancelled before created: no tracker is ever created', async () => {
    const shop = await addShop(app, 'cancel-first');
    expect((await shop.send('fulfillments/update', fixture('fulfillments-update.cancelled'))).status).toBe(
      200,
    );
    await shop.deliveriesDone();
    expect((await shop.send('fulfillments/create', fixture('fulfillments-create.ups'))).status).toBe(200);
    await shop.settled();

    const deliveries = await app.database.prisma.webhookDelivery.findMany({
      where: { shopDomain: shop.domain },
      orderBy: { receivedAt: 'asc' },
    });
    expect(deliveries.map((d) => [d.topic, d.state])).toEqual([
      ['fulfillments/update', 'processed'],
      ['fulfillments/create', 'processed'],
    ]);
    expect(deliveries[1]!.error).toMatch(/already cancelled/);
    expect(await shop.calls('create')).toEqual([]);
    expect(await shop.calls()).toEqual([]);
    expect(await shop.remote()).toEqual([]);
    expect(await shop.rows()).toEqual([]);
  });

  it('cancelled and created delivered together, cancellation first: nothing created', async () => {
    // Both recorded before the worker looks, in the wrong order.
    const shop = await addShop(app, 'cancel-first-burst');
    await shop.send('fulfillments/update', fixture('fulfillments-update.cancelled'));
    await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));
    await shop.settled();
    expect(await shop.calls('create')).toEqual([]);
    expect(await shop.remote()).toEqual([]);
  });

  it('an older update arriving after a newer one is ignored', async () => {
    const shop = await addShop(app, 'stale-update');
    // The store's history of one fulfilment: created with A (t1), corrected to C (t2), corrected to B (t3).
    const base = 'fulfillments-create.dhl-two-parcels';
    const t1 = variant(base, {
      updated_at: '2026-11-19T08:00:00+01:00',
      tracking_number: 'OOO-A',
      tracking_numbers: ['OOO-A'],
    });
    const t2 = variant(base, {
      updated_at: '2026-11-19T09:00:00+01:00',
      tracking_number: 'OOO-C',
      tracking_numbers: ['OOO-C'],
    });
    const t3 = variant(base, {
      updated_at: '2026-11-19T10:00:00+01:00',
      tracking_number: 'OOO-B',
      tracking_numbers: ['OOO-B'],
    });

    // Arrival order: newest first, then the two older ones.
    await shop.send('fulfillments/update', t3);
    await shop.settled();
    await shop.send('fulfillments/create', t1);
    await shop.send('fulfillments/update', t2);
    await shop.settled();

    expect(numbersOf(await shop.remote())).toEqual(['OOO-B']);
    expect((await shop.calls('create')).map((c) => c.body)).toEqual([
      expect.objectContaining({ tracking_number: 'OOO-B', tracking_provider: 'dhl-express' }),
    ]);
    expect(await shop.calls('delete')).toEqual([]);
    const deliveries = await app.database.prisma.webhookDelivery.findMany({
      where: { shopDomain: shop.domain },
      orderBy: { receivedAt: 'asc' },
    });
    expect(deliveries.map((d) => d.error)).toEqual([
      null,
      expect.stringMatching(/newer/),
      expect.stringMatching(/newer/),
    ]);
    const lines = await app.database.prisma.trackingLine.findMany({ where: { shopId: shop.id } });
    expect(lines.map((l) => [l.trackingNumber, l.active])).toEqual([['OOO-B', true]]);
  });

  it('an older update after a newer one changes nothing that was already synced', async () => {
    const shop = await addShop(app, 'stale-after-sync');
    const base = 'fulfillments-create.dhl-two-parcels';
    await shop.send('fulfillments/create', fixture(base));
    await shop.settled();
    await shop.send('fulfillments/update', fixture('fulfillments-update.tracking-corrected'));
    await shop.settled();
    // The original create delivered again later (a retry of an old delivery, new event): stale.
    await shop.send('fulfillments/create', fixture(base));
    await shop.settled();

    expect(numbersOf(await shop.remote())).toEqual(['1234567890', '1234567899']);
    expect((await shop.calls('create')).length).toBe(3);
    expect((await shop.calls('delete')).length).toBe(1);
  });
});

describe('orders/cancelled', () => {
  it('arriving before the fulfilment of that order: no tracker', async () => {
    const shop = await addShop(app, 'order-cancel-first');
    await shop.send('orders/cancelled', fixture('orders-cancelled'));
    await shop.deliveriesDone();
    await shop.send('fulfillments/create', fixture('fulfillments-create.dhl-two-parcels'));
    await shop.settled();

    expect(await shop.calls('create')).toEqual([]);
    expect(await shop.remote()).toEqual([]);
    const cancelled = await app.database.prisma.cancelledOrder.findMany({ where: { shopId: shop.id } });
    expect(cancelled.map((c) => c.orderId)).toEqual(['6120000000002']);
    const lines = await app.database.prisma.trackingLine.findMany({
      where: { shopId: shop.id, active: true },
    });
    expect(lines).toEqual([]);
  });

  it('a later fulfilment update of a cancelled order creates nothing either', async () => {
    const shop = await addShop(app, 'order-cancel-then-update');
    await shop.send('fulfillments/create', fixture('fulfillments-create.dhl-two-parcels'));
    await shop.settled();
    await shop.send('orders/cancelled', fixture('orders-cancelled'));
    await shop.settled();
    await shop.send('fulfillments/update', fixture('fulfillments-update.tracking-corrected'));
    await shop.settled();

    expect(await shop.remote()).toEqual([]);
    expect(numbersOf((await shop.calls('create')).map((c) => c.body as { tracking_number: string }))).toEqual(
      ['1234567890', '1234567891'],
    );
  });
});

describe('changes racing the reconciler', () => {
  it('a cancellation arriving while the create is in flight: created, then deleted', async () => {
    const shop = await addShop(app, 'cancel-in-flight');
    await app.emulator.control.setFaults({ latencyMs: 600, operations: ['create'] });
    try {
      await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));
      await waitFor('the create in flight', async () =>
        (await shop.rows()).some((r) => r.leaseOwner !== null && r.remote === 'unknown'),
      );
      await shop.send('fulfillments/update', fixture('fulfillments-update.cancelled'));
      await shop.settled();
    } finally {
      await app.emulator.control.setFaults({});
    }
    expect(await shop.remote()).toEqual([]);
    expect(await shop.calls('create')).toHaveLength(1);
    expect(await shop.calls('delete')).toHaveLength(1);
    expect((await shop.rows())[0]).toMatchObject({
      desired: 'removed',
      remote: 'absent',
      syncState: 'synced',
    });
  });

  it('a number dropped by a correction and listed again by a newer one is created again', async () => {
    const shop = await addShop(app, 'relisted');
    await shop.send('fulfillments/create', fixture('fulfillments-create.dhl-two-parcels'));
    await shop.settled();
    await shop.send('fulfillments/update', fixture('fulfillments-update.tracking-corrected'));
    await shop.settled();
    expect(numbersOf(await shop.remote())).toEqual(['1234567890', '1234567899']);
    // Corrected back: 1234567891 again, 1234567899 gone.
    await shop.send(
      'fulfillments/update',
      variant('fulfillments-create.dhl-two-parcels', { updated_at: '2026-11-19T10:15:00+01:00' }),
    );
    await shop.settled();
    expect(numbersOf(await shop.remote())).toEqual(['1234567890', '1234567891']);
    const creates = (await shop.calls('create')).map(
      (c) => (c.body as { tracking_number: string }).tracking_number,
    );
    expect(creates.sort()).toEqual(['1234567890', '1234567891', '1234567891', '1234567899']);
  });
});
