import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.js';
import type { Shop } from '../../src/generated/sqlite/client.js';
import { silentLogger } from '../../src/logger.js';
import { parseKeyring } from '../../src/shops/crypto.js';
import { createShopRepository, type ShopRepository } from '../../src/shops/shop-repository.js';
import { createTrackingClient, type TrackingClient } from '../../src/tracking/client.js';
import { recompute } from '../../src/trackers/desired-state.js';
import { type ReconcilerDeps, reconcileOnce } from '../../src/trackers/reconciler.js';
import { useTestDatabase } from '../helpers/database.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { createShop, createTracker, randomKey, uniqueDomain } from '../helpers/factories.js';

const ACCOUNT = {
  apiKey: 'recon-key-000000001',
  appName: 'recon-store',
  plan: 'Pro',
  balance: 1000,
  https: true,
};

const db = useTestDatabase({ reset: true });
let emulator: TestEmulator;
let client: TrackingClient;
let shops: ShopRepository;
const keyring = parseKeyring(`t1:${randomKey()}`);

beforeAll(async () => {
  emulator = await startTestEmulator({ accounts: [ACCOUNT] });
  // One attempt per call: the reconciler's own retry policy is what is under test.
  client = createTrackingClient({ baseUrl: emulator.baseUrl, retry: { maxAttempts: 1 }, timeoutMs: 5_000 });
  shops = createShopRepository(db.prisma, keyring);
});
afterAll(async () => {
  await emulator?.close();
});
beforeEach(async () => {
  await emulator.control.reset();
});
afterEach(() => {
  vi.restoreAllMocks();
});

function deps(overrides: Partial<ReconcilerDeps> = {}): ReconcilerDeps {
  return { prisma: db.prisma, client, shops, logger: silentLogger, owner: 'owner-a', ...overrides };
}

const once = (
  overrides: Partial<ReconcilerDeps> = {},
  options: { limit?: number; concurrency?: number } = {},
) => reconcileOnce(deps(overrides), { limit: options.limit ?? 10, concurrency: options.concurrency ?? 4 });

async function connectedShop(): Promise<Shop> {
  return shops.saveCredentials(uniqueDomain(), { apiKey: ACCOUNT.apiKey, appName: ACCOUNT.appName });
}

const row = (id: string) => db.prisma.tracker.findUniqueOrThrow({ where: { id } });
const operations = async () => (await emulator.control.calls()).map((c) => c.operation);

/** The client, with a hook run before each call is sent (the call itself still goes to the emulator). */
function hooked(hooks: {
  create?: () => Promise<void>;
  get?: () => Promise<void>;
  delete?: () => Promise<void>;
}) {
  const wrapped: TrackingClient = {
    baseUrl: client.baseUrl,
    createTracker: async (c, input) => {
      await hooks.create?.();
      return client.createTracker(c, input);
    },
    getShipment: async (c, query) => {
      await hooks.get?.();
      return client.getShipment(c, query);
    },
    getShipmentsByOrderId: (c, orderId) => client.getShipmentsByOrderId(c, orderId),
    deleteTracker: async (c, key) => {
      await hooks.delete?.();
      return client.deleteTracker(c, key);
    },
    listProviders: () => client.listProviders(),
  };
  return wrapped;
}

describe('creating and deleting', () => {
  it('creates a wanted tracker once: remote present, synced, one create call', async () => {
    const shop = await connectedShop();
    const tracker = await createTracker(db.prisma, shop.id, {
      trackingNumber: '1Z999AA10123456784',
      orderKey: '6120000000001',
      postalCode: '40003',
      destinationCountry: 'us',
    });
    const stats = await once();
    expect(stats).toMatchObject({ claimed: 1, created: 1, failed: 0, retried: 0, leaseLost: 0 });
    const after = await row(tracker.id);
    expect(after).toMatchObject({
      remote: 'present',
      syncState: 'synced',
      createCalls: 1,
      attempts: 0,
      leaseOwner: null,
      leaseExpiresAt: null,
      lastError: null,
    });
    expect(after.syncedAt).toBeInstanceOf(Date);
    expect(await operations()).toEqual(['create']);
    expect(await emulator.control.trackers(ACCOUNT.appName)).toEqual([
      expect.objectContaining({
        tracking_number: '1Z999AA10123456784',
        tracking_provider: 'ups',
        order_id: '6120000000001',
        postal_code: '40003',
        destination_country: 'US',
      }),
    ]);
    expect(await shops.findById(shop.id)).toMatchObject({
      trackersBalance: ACCOUNT.balance - 1,
      userPlan: 'Pro',
    });

    // Nothing left to do.
    expect(await once()).toMatchObject({ claimed: 0 });
    expect(await operations()).toEqual(['create']);
  });

  it('deletes a tracker no longer wanted', async () => {
    const shop = await connectedShop();
    await client.createTracker(ACCOUNT, { trackingNumber: 'DEL1', trackingProvider: 'ups', orderId: '500' });
    await emulator.control.clearCalls();
    const tracker = await createTracker(db.prisma, shop.id, {
      trackingNumber: 'DEL1',
      orderKey: '500',
      desired: 'removed',
      remote: 'present',
    });
    expect(await once()).toMatchObject({ claimed: 1, deleted: 1 });
    expect(await row(tracker.id)).toMatchObject({ remote: 'absent', syncState: 'synced', createCalls: 0 });
    expect(await operations()).toEqual(['delete']);
    expect(await emulator.control.trackers()).toEqual([]);
  });

  it('a tracker the service does not hold counts as deleted', async () => {
    const shop = await connectedShop();
    const tracker = await createTracker(db.prisma, shop.id, { desired: 'removed', remote: 'present' });
    expect(await once()).toMatchObject({ deleted: 1, failed: 0 });
    expect(await row(tracker.id)).toMatchObject({ remote: 'absent', syncState: 'synced', lastError: null });
  });

  it('a tracker held under another order id is not this app’s to delete: counted as gone', async () => {
    const shop = await connectedShop();
    await client.createTracker(ACCOUNT, {
      trackingNumber: 'MINE1',
      trackingProvider: 'ups',
      orderId: 'someone-else',
    });
    const tracker = await createTracker(db.prisma, shop.id, {
      trackingNumber: 'MINE1',
      orderKey: '500',
      desired: 'removed',
      remote: 'present',
    });
    expect(await once()).toMatchObject({ deleted: 1 });
    expect(await row(tracker.id)).toMatchObject({ remote: 'absent', syncState: 'synced' });
    expect(await emulator.control.trackers()).toHaveLength(1);
  });

  it('records the outcome against the desired state of the moment: a tracker let go during its create is deleted next', async () => {
    const shop = await connectedShop();
    const tracker = await createTracker(db.prisma, shop.id, { trackingNumber: 'RACE1' });
    const letGo = hooked({
      create: async () => {
        // A cancellation is applied while the create is in flight.
        await db.prisma.trackingLine.deleteMany({ where: { trackerId: tracker.id } });
        await db.prisma.$transaction((tx) => recompute(tx, [tracker.id]));
      },
    });
    await db.prisma.trackingLine.create({
      data: {
        shopId: shop.id,
        fulfillmentId: 'F1',
        orderId: '1',
        trackingNumber: 'RACE1',
        trackerId: tracker.id,
      },
    });
    expect(await once({ client: letGo })).toMatchObject({ created: 1 });
    expect(await row(tracker.id)).toMatchObject({
      desired: 'removed',
      remote: 'present',
      syncState: 'pending',
    });

    expect(await once()).toMatchObject({ deleted: 1 });
    expect(await row(tracker.id)).toMatchObject({
      desired: 'removed',
      remote: 'absent',
      syncState: 'synced',
    });
    expect(await emulator.control.trackers()).toEqual([]);
  });
});

describe('failures', () => {
  it('a transient fault leaves the tracker pending with one more attempt, due later (Retry-After honoured)', async () => {
    const shop = await connectedShop();
    const tracker = await createTracker(db.prisma, shop.id);
    await emulator.control.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, operations: ['create'] });
    const before = Date.now();
    expect(await once()).toMatchObject({ claimed: 1, retried: 1, created: 0 });
    const after = await row(tracker.id);
    expect(after).toMatchObject({
      syncState: 'pending',
      attempts: 1,
      remote: 'absent', // a 429 proves the create was not processed
      lastErrorReason: 'rate_limited',
      leaseOwner: null,
    });
    expect(after.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(before + 30_000);
    expect(after.lastErrorAt).toBeInstanceOf(Date);
    expect(await once()).toMatchObject({ claimed: 0 });
  });

  it('a 5xx on create: outcome unknown, retried later; then dead after maxAttempts', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const shop = await connectedShop();
    const tracker = await createTracker(db.prisma, shop.id);
    await emulator.control.setFaults({ errorRate: 1, operations: ['create', 'get'] });

    const before = Date.now();
    const slow = { baseDelayMs: 10_000, maxDelayMs: 10_000, maxAttempts: 3 };
    expect(await once({ backoff: slow })).toMatchObject({ retried: 1 });
    let after = await row(tracker.id);
    expect(after).toMatchObject({
      syncState: 'pending',
      attempts: 1,
      remote: 'unknown',
      lastErrorReason: 'server_error',
    });
    expect(after.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(before + 5_000);
    expect(await once({ backoff: slow })).toMatchObject({ claimed: 0 });

    const fast = { baseDelayMs: 1, maxDelayMs: 1, maxAttempts: 3 };
    await db.prisma.tracker.update({ where: { id: tracker.id }, data: { nextAttemptAt: new Date() } });
    expect(await once({ backoff: fast })).toMatchObject({ retried: 1 });
    expect(await row(tracker.id)).toMatchObject({ syncState: 'pending', attempts: 2, remote: 'unknown' });
    expect(await once({ backoff: fast })).toMatchObject({ dead: 1 });
    after = await row(tracker.id);
    expect(after).toMatchObject({ syncState: 'dead', attempts: 3 });
    expect(await once({ backoff: fast })).toMatchObject({ claimed: 0 });
    // The remote state was unknown, so every later try looked before creating.
    expect(await operations()).toEqual(['create', 'get', 'get']);
  });

  it.each([
    ['destination_required', { provider: 'postnl-3s', postalCode: null, destinationCountry: null }],
    ['provider_not_found', { provider: 'no-such-carrier' }],
  ])('a permanent failure (%s) marks the tracker failed with the reason', async (reason, patch) => {
    const shop = await connectedShop();
    const tracker = await createTracker(db.prisma, shop.id, patch);
    expect(await once()).toMatchObject({ claimed: 1, failed: 1 });
    const after = await row(tracker.id);
    expect(after).toMatchObject({
      syncState: 'failed',
      lastErrorReason: reason,
      attempts: 1,
      remote: 'absent',
    });
    expect(after.lastError).toBeTruthy();
    expect(await once()).toMatchObject({ claimed: 0 });
    expect(await emulator.control.trackers()).toEqual([]);
  });
});

describe('shop-level failures', () => {
  async function expectPaused(shopId: string, reason: string, before: number) {
    const shop = (await shops.findById(shopId))!;
    expect(shop.pausedReason).toBe(reason);
    expect(shop.pausedMessage).toBeTruthy();
    expect(shop.probeAt!.getTime()).toBeGreaterThanOrEqual(before + 60_000);
  }

  it.each([
    ['ssl_error', async () => emulator.control.patchAccount(ACCOUNT.appName, { https: false })],
    ['balance_exhausted', async () => emulator.control.patchAccount(ACCOUNT.appName, { balance: 0 })],
  ])('%s pauses the shop; its trackers wait, attempts unchanged', async (reason, breakAccount) => {
    const shop = await connectedShop();
    const first = await createTracker(db.prisma, shop.id, {
      attempts: 2,
      nextAttemptAt: new Date(Date.now() - 2_000),
    });
    const second = await createTracker(db.prisma, shop.id);
    await breakAccount();
    const before = Date.now();
    const stats = await once({ probeIntervalMs: 60_000 }, { concurrency: 1 });
    expect(stats).toMatchObject({ claimed: 2, shopPaused: 1, released: 1, created: 0, failed: 0 });
    await expectPaused(shop.id, reason, before);
    expect(await row(first.id)).toMatchObject({
      syncState: 'pending',
      attempts: 2,
      remote: 'absent',
      lastErrorReason: reason,
      leaseOwner: null,
    });
    expect(await row(second.id)).toMatchObject({
      syncState: 'pending',
      attempts: 0,
      remote: 'absent',
      leaseOwner: null,
    });
    expect(await operations()).toEqual(['create']);
    // Held until the probe is due.
    expect(await once()).toMatchObject({ claimed: 0 });
  });

  it('unauthorized (a key the service does not know) pauses the shop', async () => {
    const shop = await shops.saveCredentials(uniqueDomain(), {
      apiKey: 'revoked-key-000000',
      appName: ACCOUNT.appName,
    });
    const tracker = await createTracker(db.prisma, shop.id);
    const before = Date.now();
    expect(await once({ probeIntervalMs: 60_000 })).toMatchObject({ shopPaused: 1 });
    await expectPaused(shop.id, 'unauthorized', before);
    expect(await row(tracker.id)).toMatchObject({
      syncState: 'pending',
      attempts: 0,
      lastErrorReason: 'unauthorized',
    });
  });

  it('records the balance the failed create reported', async () => {
    const shop = await connectedShop();
    await createTracker(db.prisma, shop.id);
    await emulator.control.patchAccount(ACCOUNT.appName, { balance: 0 });
    await once();
    expect(await shops.findById(shop.id)).toMatchObject({
      trackersBalance: 0,
      pausedReason: 'balance_exhausted',
    });
  });

  it('a due probe tries one tracker; success resumes the shop and the rest follow at once', async () => {
    const shop = await connectedShop();
    await shops.pause(shop.id, 'balance_exhausted', 'no balance', new Date(Date.now() - 1_000));
    const trackers = await Promise.all([1, 2, 3].map(() => createTracker(db.prisma, shop.id)));

    const probe = await once();
    expect(probe).toMatchObject({ claimed: 1, created: 1 });
    expect((await shops.findById(shop.id))!.pausedReason).toBeNull();

    // The trackers not probed were not kept from the next pass.
    expect(await once()).toMatchObject({ claimed: 2, created: 2 });
    for (const t of trackers) expect(await row(t.id)).toMatchObject({ syncState: 'synced', createCalls: 1 });
    expect(await operations()).toEqual(['create', 'create', 'create']);
  });

  it('a failed probe pauses the shop again until the next probe, and tries nothing else', async () => {
    const shop = await connectedShop();
    await shops.pause(shop.id, 'ssl_error', 'http', new Date(Date.now() - 1_000));
    await Promise.all([1, 2].map(() => createTracker(db.prisma, shop.id)));
    await emulator.control.patchAccount(ACCOUNT.appName, { https: false });
    const before = Date.now();
    expect(await once({ probeIntervalMs: 60_000 })).toMatchObject({ claimed: 1, shopPaused: 1 });
    await expectPaused(shop.id, 'ssl_error', before);
    expect(await operations()).toEqual(['create']);
    expect(await once()).toMatchObject({ claimed: 0 });
    expect(await db.prisma.tracker.count({ where: { shopId: shop.id, leaseOwner: { not: null } } })).toBe(0);
  });

  it('a probe is not taken before it is due; a shop held by the merchant is never probed', async () => {
    const probing = await connectedShop();
    await shops.pause(probing.id, 'unauthorized', 'bad key', new Date(Date.now() + 60_000));
    await createTracker(db.prisma, probing.id);
    const uninstalled = await connectedShop();
    await shops.pause(uninstalled.id, 'uninstalled', 'gone', null);
    await createTracker(db.prisma, uninstalled.id);
    expect(await once()).toMatchObject({ claimed: 0 });
    expect(await once({ now: () => new Date(Date.now() + 120_000) })).toMatchObject({ claimed: 1 });
  });

  it('a shop without credentials is paused as not connected and its tracker given back untouched', async () => {
    const shop = await createShop(db.prisma); // no key stored, not (yet) paused
    const tracker = await createTracker(db.prisma, shop.id);
    expect(await once()).toMatchObject({ claimed: 1, released: 1, created: 0 });
    expect(await shops.findById(shop.id)).toMatchObject({ pausedReason: 'not_connected', probeAt: null });
    expect(await row(tracker.id)).toMatchObject({
      remote: 'absent',
      syncState: 'pending',
      leaseOwner: null,
      attempts: 0,
    });
    expect(await operations()).toEqual([]);

    await shops.saveCredentials(shop.domain, { apiKey: ACCOUNT.apiKey, appName: ACCOUNT.appName });
    expect(await once()).toMatchObject({ created: 1 });
  });
});

describe('unreadable credentials', () => {
  it('a shop whose stored key cannot be opened is paused, and does not hold up other shops', async () => {
    // Sealed under a key id since dropped from ENCRYPTION_KEY.
    const retired = createShopRepository(db.prisma, parseKeyring(`old:${randomKey()}`));
    const broken = await retired.saveCredentials(uniqueDomain(), {
      apiKey: ACCOUNT.apiKey,
      appName: ACCOUNT.appName,
    });
    const fine = await connectedShop();
    const stuck = await Promise.all([1, 2].map(() => createTracker(db.prisma, broken.id)));
    const other = await Promise.all([1, 2].map(() => createTracker(db.prisma, fine.id)));

    const stats = await once({}, { concurrency: 1 });
    expect(stats).toMatchObject({ claimed: 4, created: 2, released: 2 });
    for (const t of other) expect(await row(t.id)).toMatchObject({ syncState: 'synced', remote: 'present' });
    for (const t of stuck) {
      expect(await row(t.id)).toMatchObject({
        syncState: 'pending',
        remote: 'absent',
        leaseOwner: null,
        attempts: 0,
      });
    }
    const paused = (await shops.findById(broken.id))!;
    expect(paused.pausedReason).toBe('not_connected');
    expect(paused.pausedMessage).toMatch(/decrypt|ENCRYPTION_KEY/);
    expect(await once()).toMatchObject({ claimed: 0 });
  });
});

describe('write-ahead', () => {
  it('a row whose create outcome was lost looks first, and does not create again when it exists', async () => {
    const shop = await connectedShop();
    await client.createTracker(ACCOUNT, { trackingNumber: 'WA1', trackingProvider: 'ups', orderId: '1' });
    await emulator.control.clearCalls();
    const tracker = await createTracker(db.prisma, shop.id, {
      trackingNumber: 'WA1',
      orderKey: '1',
      remote: 'unknown',
    });
    expect(await once()).toMatchObject({ alreadyPresent: 1, created: 0 });
    expect(await operations()).toEqual(['get']);
    expect(await row(tracker.id)).toMatchObject({ remote: 'present', syncState: 'synced', createCalls: 0 });
  });

  it('… and creates when the look finds nothing', async () => {
    const shop = await connectedShop();
    const tracker = await createTracker(db.prisma, shop.id, { remote: 'unknown' });
    expect(await once()).toMatchObject({ created: 1 });
    expect(await operations()).toEqual(['get', 'create']);
    expect(await row(tracker.id)).toMatchObject({ remote: 'present', syncState: 'synced', createCalls: 1 });
  });

  it('marks the row unknown before the create is sent', async () => {
    const shop = await connectedShop();
    const tracker = await createTracker(db.prisma, shop.id);
    let seen: string | undefined;
    const spy = hooked({
      create: async () => {
        seen = (await row(tracker.id)).remote;
      },
    });
    await once({ client: spy });
    expect(seen).toBe('unknown');
  });
});

describe('leases', () => {
  it('a live lease of another owner is not taken; once it expires, it is', async () => {
    const shop = await connectedShop();
    const tracker = await createTracker(db.prisma, shop.id, {
      leaseOwner: 'owner-b:token',
      leaseExpiresAt: new Date(Date.now() + 30_000),
    });
    expect(await once()).toMatchObject({ claimed: 0 });
    expect(await row(tracker.id)).toMatchObject({ leaseOwner: 'owner-b:token' });
    expect(await once({ now: () => new Date(Date.now() + 31_000) })).toMatchObject({
      claimed: 1,
      created: 1,
    });
    expect(await row(tracker.id)).toMatchObject({ remote: 'present', leaseOwner: null });
  });

  it('an expired lease (its holder died) is taken over', async () => {
    const shop = await connectedShop();
    const tracker = await createTracker(db.prisma, shop.id, {
      leaseOwner: 'owner-b:token',
      leaseExpiresAt: new Date(Date.now() - 1),
    });
    expect(await once()).toMatchObject({ claimed: 1, created: 1 });
    expect(await row(tracker.id)).toMatchObject({ remote: 'present', syncState: 'synced' });
  });

  it('a holder whose lease was taken discards its outcome; the next holder looks before acting', async () => {
    const shop = await connectedShop();
    const tracker = await createTracker(db.prisma, shop.id);
    const robbed = hooked({
      create: async () => {
        // The call is slow; the lease runs out and another owner takes the row.
        await db.prisma.tracker.update({
          where: { id: tracker.id },
          data: {
            leaseOwner: 'owner-b:token',
            leaseExpiresAt: new Date(Date.now() + 60_000),
            version: { increment: 1 },
          },
        });
      },
    });
    expect(await once({ client: robbed })).toMatchObject({ created: 1, leaseLost: 1 });
    // The answer was not written: the row still says a create may be in flight.
    expect(await row(tracker.id)).toMatchObject({
      remote: 'unknown',
      leaseOwner: 'owner-b:token',
      createCalls: 0,
    });

    // Owner B dies; when its lease expires, the next holder finds the tracker and does not create again.
    await db.prisma.tracker.update({
      where: { id: tracker.id },
      data: { leaseExpiresAt: new Date(Date.now() - 1) },
    });
    expect(await once({ owner: 'owner-c' })).toMatchObject({ alreadyPresent: 1, created: 0 });
    expect(await operations()).toEqual(['create', 'get']);
    expect(await row(tracker.id)).toMatchObject({ remote: 'present', syncState: 'synced' });
  });

  it('concurrent passes of two owners on two connections never create a tracker twice', async () => {
    const second: Database = await createDatabase(db.url);
    try {
      // A second process: its own connection, the same ENCRYPTION_KEY.
      const otherShops = createShopRepository(second.prisma, keyring);
      const shop = await connectedShop();
      const trackers = await Promise.all(Array.from({ length: 12 }, () => createTracker(db.prisma, shop.id)));
      await emulator.control.setFaults({ latencyMs: 20 });
      for (let round = 0; round < 10; round++) {
        await Promise.all([
          reconcileOnce(deps({ owner: 'owner-a' }), { limit: 5, concurrency: 3 }),
          reconcileOnce(deps({ owner: 'owner-b', prisma: second.prisma, shops: otherShops }), {
            limit: 5,
            concurrency: 3,
          }),
        ]);
        if ((await db.prisma.tracker.count({ where: { syncState: 'pending' } })) === 0) break;
      }
      const creates = await emulator.control.calls({ operation: 'create' });
      const perNumber = new Map<string, number>();
      for (const c of creates) {
        const n = (c.body as { tracking_number: string }).tracking_number;
        perNumber.set(n, (perNumber.get(n) ?? 0) + 1);
      }
      expect(perNumber.size).toBe(trackers.length);
      expect([...perNumber.values()].every((n) => n === 1)).toBe(true);
      for (const t of trackers)
        expect(await row(t.id)).toMatchObject({ syncState: 'synced', createCalls: 1 });
    } finally {
      await second.close();
    }
  });
});

describe('stopping', () => {
  it('shouldStop gives back the trackers not started, undoing their write-ahead mark', async () => {
    const shop = await connectedShop();
    const trackers = await Promise.all([1, 2, 3, 4].map(() => createTracker(db.prisma, shop.id)));
    let checks = 0;
    const stats = await reconcileOnce(deps(), { limit: 10, concurrency: 1, shouldStop: () => checks++ >= 1 });
    expect(stats).toMatchObject({ claimed: 4, created: 1, released: 3 });
    const rows = await Promise.all(trackers.map((t) => row(t.id)));
    expect(rows.filter((r) => r.syncState === 'synced')).toHaveLength(1);
    for (const r of rows.filter((x) => x.syncState !== 'synced')) {
      expect(r).toMatchObject({
        syncState: 'pending',
        remote: 'absent',
        leaseOwner: null,
        attempts: 0,
        createCalls: 0,
      });
    }
    expect(await operations()).toEqual(['create']);

    expect(await once()).toMatchObject({ claimed: 3, created: 3 });
    expect(await operations()).toEqual(['create', 'create', 'create', 'create']);
  });
});

describe('continuous passes', () => {
  it('a pass longer than one group of outcomes records every success (nothing left unknown)', async () => {
    const shop = await connectedShop();
    for (let i = 0; i < 50; i++)
      await createTracker(db.prisma, shop.id, { trackingNumber: `1ZLONGPASS${i}` });
    // 50 trackers, 8 calls in flight, outcomes written 16 at a time while other calls are out.
    expect(await reconcileOnce(deps(), { limit: 100, concurrency: 8 })).toMatchObject({
      claimed: 50,
      created: 50,
    });
    expect(
      await db.prisma.tracker.count({ where: { remote: 'present', syncState: 'synced', createCalls: 1 } }),
    ).toBe(50);
    expect(await operations()).toEqual(Array(50).fill('create'));
    expect(await db.prisma.tracker.count({ where: { leaseOwner: { not: null } } })).toBe(0);
  });

  it('keeps claiming as calls finish: one slot works through more trackers than one claim takes', async () => {
    const shop = await connectedShop();
    for (let i = 0; i < 20; i++) await createTracker(db.prisma, shop.id, { trackingNumber: `1ZSTREAM${i}` });
    expect(await reconcileOnce(deps(), { limit: 100, concurrency: 1 })).toMatchObject({
      claimed: 20,
      created: 20,
    });
  });

  it('a 429 the client gave up on closes the gate: the pass ends, the rest wait for the next', async () => {
    const shop = await connectedShop();
    for (let i = 0; i < 6; i++) await createTracker(db.prisma, shop.id, { trackingNumber: `1ZGATE${i}` });
    await emulator.control.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, operations: ['create'] });
    const stats = await reconcileOnce(deps(), { limit: 100, concurrency: 1 });
    // One create refused; the gate holds for 30 s, longer than a pass waits: the claimed rest go back.
    expect(stats).toMatchObject({ retried: 1, created: 0 });
    expect(stats.released).toBe(stats.claimed - 1);
    expect(await operations()).toEqual(['create']);
    expect(await db.prisma.tracker.count({ where: { leaseOwner: { not: null } } })).toBe(0);
    expect(await db.prisma.tracker.count({ where: { remote: 'unknown' } })).toBe(0);
  });
});

describe('when the status is first read (nextPollAt)', () => {
  it('a created tracker is first read firstPollMs later; a deleted one never; a found one like a created one', async () => {
    const shop = await connectedShop();
    const created = await createTracker(db.prisma, shop.id, { trackingNumber: '1ZPOLLNEW' });
    const before = Date.now();
    await once({ firstPollMs: 60_000 });
    const after = Date.now();
    const row1 = await row(created.id);
    expect(row1.nextPollAt!.getTime()).toBeGreaterThanOrEqual(before + 60_000);
    expect(row1.nextPollAt!.getTime()).toBeLessThanOrEqual(after + 60_000);

    // Default: the poll policy's first read (15 minutes).
    const second = await createTracker(db.prisma, shop.id, { trackingNumber: '1ZPOLLDEFAULT' });
    const t0 = Date.now();
    await once();
    expect((await row(second.id)).nextPollAt!.getTime()).toBeGreaterThanOrEqual(t0 + 15 * 60_000);
    expect((await row(second.id)).nextPollAt!.getTime()).toBeLessThanOrEqual(Date.now() + 15 * 60_000);

    // Let go: deleted at the service, never read again.
    await db.prisma.tracker.update({
      where: { id: created.id },
      data: { desired: 'removed', syncState: 'pending', nextAttemptAt: new Date() },
    });
    await once();
    expect(await row(created.id)).toMatchObject({ remote: 'absent', syncState: 'synced', nextPollAt: null });

    // A lost create answer resolved by a get: read like a created one.
    const lost = second;
    await db.prisma.tracker.update({
      where: { id: lost.id },
      data: { remote: 'unknown', syncState: 'pending', nextPollAt: null, nextAttemptAt: new Date() },
    });
    const t1 = Date.now();
    await once({ firstPollMs: 120_000 });
    expect(await row(lost.id)).toMatchObject({ remote: 'present', syncState: 'synced' });
    expect((await row(lost.id)).nextPollAt!.getTime()).toBeGreaterThanOrEqual(t1 + 120_000);
  });

  it('a tracker already at the service keeps its schedule when a sync finds it there', async () => {
    const shop = await connectedShop();
    const scheduled = new Date(Date.now() + 3_600_000);
    const tracker = await createTracker(db.prisma, shop.id, {
      trackingNumber: '1ZPOLLKEEP',
      remote: 'present',
      syncState: 'synced',
      nextPollAt: scheduled,
    });
    // A store event wants it again while it is there: nothing to call, the schedule stays.
    await db.prisma.tracker.update({ where: { id: tracker.id }, data: { syncState: 'pending' } });
    await once();
    expect(await row(tracker.id)).toMatchObject({ syncState: 'synced', nextPollAt: scheduled });
  });
});
