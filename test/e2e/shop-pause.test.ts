import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_SECRET, type TestApp, waitFor } from '../helpers/app.js';
import { addShop, numbersOf, type ScenarioShop } from '../helpers/scenario.js';
import { deliver, fixture } from '../helpers/webhooks.js';
import { installStore } from '../helpers/install.js';

/**
 * Errors that are the shop's, not the tracker's (ssl_error, unauthorized, balance exhausted) pause the whole
 * shop: its work waits, untouched, until the merchant saves credentials again or a probe finds the cause gone.
 */

async function pausedReason(app: TestApp, shop: ScenarioShop): Promise<string | null> {
  return (await app.database.prisma.shop.findUniqueOrThrow({ where: { id: shop.id } })).pausedReason;
}

/** A successful probe records the tracker first, then lifts the pause: wait for the second write too. */
async function waitResumed(app: TestApp, shop: ScenarioShop) {
  await waitFor(`${shop.domain} resumed`, async () => (await pausedReason(app, shop)) === null);
}

async function waitPaused(app: TestApp, shop: ScenarioShop, reason: string) {
  await waitFor(`${shop.domain} paused (${reason})`, async () => (await pausedReason(app, shop)) === reason);
  // The pass that paused it has finished: nothing is leased any more.
  await waitFor(
    `${shop.domain} leases released`,
    async () =>
      (await app.database.prisma.tracker.count({ where: { shopId: shop.id, leaseOwner: { not: null } } })) ===
      0,
  );
}

describe('credentials: the service refuses the store (ssl_error)', () => {
  let app: TestApp;
  beforeAll(async () => {
    // Default probe interval (10 min): only saving credentials can release the work here.
    app = await startTestApp({ connect: false });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('pauses the shop with nothing created; saving credentials again releases the work', async () => {
    const shop = await addShop(app, 'ssl');
    await app.emulator.control.patchAccount(shop.appName, { https: false });

    await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));
    await shop.send('fulfillments/create', fixture('fulfillments-create.dhl-two-parcels'));
    await shop.deliveriesDone();
    await waitPaused(app, shop, 'ssl_error');

    expect(await shop.remote()).toEqual([]);
    const refused = await shop.calls('create');
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.every((c) => c.httpStatus === 401)).toBe(true);
    const rows = await shop.rows();
    expect(rows.map((r) => [r.trackingNumber, r.syncState, r.remote])).toEqual([
      ['1234567890', 'pending', 'absent'],
      ['1234567891', 'pending', 'absent'],
      ['1Z999AA10123456784', 'pending', 'absent'],
    ]);
    // Not the trackers' fault: no attempts were spent.
    expect(rows.every((r) => r.attempts === 0)).toBe(true);
    // The paused shop is left alone (no retry storm against a service that refuses it).
    await sleep(300);
    expect(await shop.calls('create')).toHaveLength(refused.length);

    await app.emulator.control.patchAccount(shop.appName, { https: true });
    await app.runtime.context.shops.saveCredentials(shop.domain, {
      apiKey: shop.apiKey,
      appName: shop.appName,
    });
    await shop.settled();

    expect(await pausedReason(app, shop)).toBeNull();
    expect(numbersOf(await shop.remote())).toEqual(['1234567890', '1234567891', '1Z999AA10123456784']);
    const creates = await shop.calls('create');
    expect(creates.filter((c) => c.httpStatus === 200)).toHaveLength(3);
    expect(creates.filter((c) => c.httpStatus !== 200)).toHaveLength(refused.length);
  });

  it('unauthorized (key no longer accepted) pauses too, other shops carry on', async () => {
    const shop = await addShop(app, 'unauth');
    const healthy = await addShop(app, 'healthy');
    // The merchant's stored key is not the account's.
    await app.runtime.context.shops.saveCredentials(shop.domain, {
      apiKey: 'not-the-right-key-000',
      appName: shop.appName,
    });
    await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));
    await healthy.send('fulfillments/create', fixture('fulfillments-create.ups'));
    await waitPaused(app, shop, 'unauthorized');
    await healthy.settled();

    expect(await shop.remote()).toEqual([]);
    expect(await healthy.remote()).toHaveLength(1);

    await app.runtime.context.shops.saveCredentials(shop.domain, {
      apiKey: shop.apiKey,
      appName: shop.appName,
    });
    await shop.settled();
    expect(await shop.remote()).toHaveLength(1);
  });
});

describe('a store that has not connected its account yet', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ connect: false });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('its deliveries are recorded and wait; connecting releases them', async () => {
    const domain = `not-yet-${randomBytes(4).toString('hex')}.myshopify.com`;
    const account = { apiKey: `key-not-yet-${randomBytes(8).toString('hex')}`, appName: `store-${domain}` };
    await app.emulator.control.addAccount({ ...account, plan: 'Pro', balance: 10, https: true });
    // Installed (the install makes the shop's row and session), not yet connected to the service.
    await installStore(app, domain);
    const response = await deliver(app.url, {
      topic: 'fulfillments/create',
      shop: domain,
      body: fixture('fulfillments-create.ups'),
      secret: TEST_SECRET,
    });
    expect(response.status).toBe(200);
    await waitFor(
      'the delivery processed',
      async () =>
        (await app.database.prisma.webhookDelivery.count({
          where: { shopDomain: domain, state: 'processed' },
        })) === 1,
    );
    const shop = await app.database.prisma.shop.findUniqueOrThrow({ where: { domain } });
    expect(shop.pausedReason).toBe('not_connected');
    expect(
      await app.database.prisma.tracker.count({ where: { shopId: shop.id, syncState: 'pending' } }),
    ).toBe(1);
    expect(await app.emulator.control.calls({ appName: account.appName })).toEqual([]);

    await app.runtime.context.shops.saveCredentials(domain, account);
    await waitFor(
      'the tracker created',
      async () => (await app.emulator.control.trackers(account.appName)).length === 1,
    );
    await waitFor(
      'the tracker synced',
      async () =>
        (await app.database.prisma.tracker.count({ where: { shopId: shop.id, syncState: 'synced' } })) === 1,
    );
    expect(await app.emulator.control.calls({ appName: account.appName, operation: 'create' })).toHaveLength(
      1,
    );
  });
});

describe('balance exhausted', () => {
  let app: TestApp;
  beforeAll(async () => {
    // A paused shop gets one tracker tried every 300 ms to see whether the cause is gone.
    app = await startTestApp({ connect: false, runtime: { reconciler: { probeIntervalMs: 300 } } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('balance 1, two fulfilments: one created, the shop paused, the other waits until a probe succeeds', async () => {
    const shop = await addShop(app, 'balance', { balance: 1 });
    await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));
    await shop.send('fulfillments/create', fixture('fulfillments-create.postnl-needs-postcode'));
    await shop.deliveriesDone();
    await waitPaused(app, shop, 'balance_exhausted');

    expect(await shop.remote()).toHaveLength(1);
    const rows = await shop.rows();
    expect(rows.map((r) => r.syncState).sort()).toEqual(['pending', 'synced']);
    const waiting = rows.find((r) => r.syncState === 'pending')!;
    expect(waiting).toMatchObject({ remote: 'absent', lastErrorReason: 'balance_exhausted', attempts: 0 });
    const shopRow = await app.database.prisma.shop.findUniqueOrThrow({ where: { id: shop.id } });
    expect(shopRow.trackersBalance).toBe(0);

    await app.emulator.control.patchAccount(shop.appName, { balance: 5 });
    await shop.settled();
    await waitResumed(app, shop);

    expect(numbersOf(await shop.remote())).toEqual(['1Z999AA10123456784', '3SABCD0123456']);
    expect((await shop.rows()).every((r) => r.syncState === 'synced' && r.remote === 'present')).toBe(true);
    const creates = await shop.calls('create');
    console.info(`balance: 2 trackers, ${creates.length} create calls (incl. refused probes)`);
  });

  it('a successful probe releases every waiting tracker of the shop, not just the probed one', async () => {
    const shop = await addShop(app, 'balance-many', { balance: 1 });
    await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));
    await shop.send('fulfillments/create', fixture('fulfillments-create.dhl-two-parcels'));
    await shop.send('fulfillments/create', fixture('fulfillments-create.postnl-needs-postcode'));
    await shop.deliveriesDone();
    await waitPaused(app, shop, 'balance_exhausted');
    expect(await shop.remote()).toHaveLength(1);
    // Let a few probes fail while the balance is still empty.
    await sleep(700);

    await app.emulator.control.patchAccount(shop.appName, { balance: 10 });
    await shop.settled(10_000);
    expect(await shop.remote()).toHaveLength(4);
    await waitResumed(app, shop);
  });

  it('re-saving credentials also releases it, without waiting for a probe', async () => {
    const shop = await addShop(app, 'balance-resave', { balance: 0 });
    await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));
    await waitPaused(app, shop, 'balance_exhausted');
    await app.emulator.control.patchAccount(shop.appName, { balance: 1 });
    await app.runtime.context.shops.saveCredentials(shop.domain, {
      apiKey: shop.apiKey,
      appName: shop.appName,
    });
    await shop.settled();
    expect(await shop.remote()).toHaveLength(1);
  });
});
