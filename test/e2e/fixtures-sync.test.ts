import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addShop, numbersOf } from '../helpers/scenario.js';
import { fixture } from '../helpers/webhooks.js';

/**
 * The project's sample deliveries (samples/shopify) through the whole app: signed delivery → intake → worker → desired state →
 * reconciler → emulator. Each scenario runs on its own shop and emulator account.
 */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ connect: false });
});
afterAll(async () => {
  await app?.close();
});

const UPS = '1Z999AA10123456784';

describe('fulfilments/create fixtures', () => {
  it('UPS: one tracker, one create call, with the US destination', async () => {
    const shop = await addShop(app, 'ups');
    expect((await shop.send('fulfillments/create', fixture('fulfillments-create.ups'))).status).toBe(200);
    await shop.settled();

    expect(await shop.remote()).toEqual([
      expect.objectContaining({
        tracking_number: UPS,
        tracking_provider: 'ups',
        order_id: '6120000000001',
        postal_code: '40003',
        destination_country: 'US',
      }),
    ]);
    const creates = await shop.calls('create');
    expect(creates).toHaveLength(1);
    expect(creates[0]!.body).toEqual({
      tracking_number: UPS,
      tracking_provider: 'ups',
      order_id: '6120000000001',
      postal_code: '40003',
      destination_country: 'US',
    });
    const [row] = await shop.rows();
    expect(row).toMatchObject({ remote: 'present', syncState: 'synced', createCalls: 1, leaseOwner: null });
  });

  it('DHL two parcels: two dhl-express trackers for 80331 DE, one create each', async () => {
    const shop = await addShop(app, 'dhl');
    await shop.send('fulfillments/create', fixture('fulfillments-create.dhl-two-parcels'));
    await shop.settled();

    const remote = await shop.remote();
    expect(numbersOf(remote)).toEqual(['1234567890', '1234567891']);
    for (const tracker of remote) {
      expect(tracker).toMatchObject({
        tracking_provider: 'dhl-express',
        order_id: '6120000000002',
        postal_code: '80331',
        destination_country: 'DE',
      });
    }
    expect(numbersOf((await shop.calls('create')).map((c) => c.body as { tracking_number: string }))).toEqual(
      ['1234567890', '1234567891'],
    );
  });

  it('PostNL 3S: the carrier that needs a postcode gets "1015 CV" and NL', async () => {
    const shop = await addShop(app, 'postnl');
    await shop.send('fulfillments/create', fixture('fulfillments-create.postnl-needs-postcode'));
    await shop.settled();

    expect(await shop.remote()).toEqual([
      expect.objectContaining({
        tracking_number: '3SABCD0123456',
        tracking_provider: 'postnl-3s',
        order_id: '6120000000003',
        postal_code: '1015 CV',
        destination_country: 'NL',
      }),
    ]);
    expect(await shop.calls('create')).toHaveLength(1);
    const [row] = await shop.rows();
    expect(row).toMatchObject({ syncState: 'synced', remote: 'present', lastErrorReason: null });
  });
});

describe('changes after the fact', () => {
  it('UPS then fulfillments/update cancelled: the tracker is deleted at the service', async () => {
    const shop = await addShop(app, 'ups-cancel');
    await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));
    await shop.settled();
    expect(await shop.remote()).toHaveLength(1);

    await shop.send('fulfillments/update', fixture('fulfillments-update.cancelled'));
    await shop.settled();

    expect(await shop.remote()).toEqual([]);
    const deletes = await shop.calls('delete');
    expect(deletes).toHaveLength(1);
    expect(deletes[0]!.body).toEqual({
      tracking_number: UPS,
      tracking_provider: 'ups',
      order_id: '6120000000001',
    });
    expect(deletes[0]!.httpStatus).toBe(200);
    expect(await shop.calls('create')).toHaveLength(1);
    const [row] = await shop.rows();
    expect(row).toMatchObject({ desired: 'removed', remote: 'absent', syncState: 'synced' });
  });

  it('DHL then tracking corrected: 1234567891 deleted, 1234567899 created, 1234567890 untouched', async () => {
    const shop = await addShop(app, 'dhl-correct');
    await shop.send('fulfillments/create', fixture('fulfillments-create.dhl-two-parcels'));
    await shop.settled();
    expect(numbersOf(await shop.remote())).toEqual(['1234567890', '1234567891']);

    await shop.send('fulfillments/update', fixture('fulfillments-update.tracking-corrected'));
    await shop.settled();

    expect(numbersOf(await shop.remote())).toEqual(['1234567890', '1234567899']);
    const creates = (await shop.calls('create')).map(
      (c) => (c.body as { tracking_number: string }).tracking_number,
    );
    expect(creates.sort()).toEqual(['1234567890', '1234567891', '1234567899']);
    const deletes = await shop.calls('delete');
    expect(deletes.map((c) => c.body)).toEqual([
      { tracking_number: '1234567891', tracking_provider: 'dhl-express', order_id: '6120000000002' },
    ]);
    // 1234567890 was neither created again nor deleted, and nothing was looked up.
    expect(await shop.calls('get')).toEqual([]);
  });

  it('DHL then orders/cancelled: both trackers of the order are deleted', async () => {
    const shop = await addShop(app, 'dhl-order-cancel');
    await shop.send('fulfillments/create', fixture('fulfillments-create.dhl-two-parcels'));
    await shop.settled();
    expect(await shop.remote()).toHaveLength(2);

    await shop.send('orders/cancelled', fixture('orders-cancelled'));
    await shop.settled();

    expect(await shop.remote()).toEqual([]);
    const deletes = (await shop.calls('delete')).map((c) => c.body as Record<string, string>);
    expect(deletes.sort((a, b) => a.tracking_number!.localeCompare(b.tracking_number!))).toEqual([
      { tracking_number: '1234567890', tracking_provider: 'dhl-express', order_id: '6120000000002' },
      { tracking_number: '1234567891', tracking_provider: 'dhl-express', order_id: '6120000000002' },
    ]);
    expect(await shop.calls('create')).toHaveLength(2);
    const rows = await shop.rows();
    expect(rows.map((r) => [r.trackingNumber, r.desired, r.remote, r.syncState])).toEqual([
      ['1234567890', 'removed', 'absent', 'synced'],
      ['1234567891', 'removed', 'absent', 'synced'],
    ]);
  });
});
