import { shopifyStoreAdmin } from '../../src/shopify/admin-graphql.js';
import type { StoreEventsApi } from '../../src/shipments/post-store-events.js';
import type { ApiQueueWork } from '../../src/db/lease-queue.js';
import { randomUUID } from 'node:crypto';
import { Session } from '@shopify/shopify-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseClient } from '../../src/db/client.js';
import type { StoreFulfillmentEvent } from '../../src/generated/sqlite/client.js';
import { silentLogger } from '../../src/logger.js';
import {
  heldMs,
  postStoreEvents,
  storeWritesPerWindow,
  storeWriteWindowMs,
} from '../../src/shipments/post-store-events.js';
import { appScopes, createShopify } from '../../src/shopify/api.js';
import { shopifyStoreEvents } from '../../src/shopify/fulfillment-events.js';
import { PrismaSessionStorage } from '../../src/shops/session-storage.js';
import { testKeyring } from '../helpers/factories.js';

const keyring = testKeyring();
import { TEST_SECRET } from '../helpers/app.js';
import { useTestDatabase } from '../helpers/database.js';
import {
  type FakeAdminGraphql,
  type InjectedFailure,
  startFakeAdminGraphql,
} from '../helpers/fake-admin-graphql.js';
import { createTracker, uniqueDomain } from '../helpers/factories.js';

/**
 * postStoreEvents with the app's real store side (shopifyStoreEvents: the library's Admin GraphQL client
 * with the offline session read through PrismaSessionStorage) against the fake Admin GraphQL API.
 */

const db = useTestDatabase();
let prisma: DatabaseClient;
let fake: FakeAdminGraphql;

beforeAll(async () => {
  fake = await startFakeAdminGraphql();
  prisma = db.prisma;
});
afterAll(async () => {
  await fake?.close();
});
// Each test sees only its own queue (passes run with clocks far ahead).
beforeEach(async () => {
  await prisma.storeFulfillmentEvent.deleteMany({});
});

/** The store side as one app process builds it (its own Shopify object and session storage). */
function storeApi(client: DatabaseClient = prisma) {
  const shopify = createShopify({
    apiKey: 'test-api-key',
    apiSecret: TEST_SECRET,
    appUrl: 'http://127.0.0.1:3000',
    sessionStorage: new PrismaSessionStorage(client, { keyring, connectionRetries: 0 }),
  });
  return shopifyStoreEvents(shopifyStoreAdmin(shopify));
}

function deps(overrides: Partial<ApiQueueWork<StoreEventsApi>> = {}): ApiQueueWork<StoreEventsApi> {
  return { prisma, api: storeApi(), logger: silentLogger, owner: 'worker-1', ...overrides };
}

const at = (ms: number) => () => new Date(Date.now() + ms);
const minute = 60_000;
const hour = 60 * minute;

interface TestStore {
  domain: string;
  shopId: string;
  trackerId: string;
  accessToken: string;
}

/** A shop, a tracker, and (unless told otherwise) the store's offline session with the given scopes. */
async function store(
  name: string,
  options: {
    session?: boolean;
    scopes?: string[];
    postFulfillmentEvents?: boolean;
    uninstalledAt?: Date | null;
  } = {},
): Promise<TestStore> {
  const domain = uniqueDomain(name);
  const shop = await prisma.shop.create({
    data: {
      domain,
      postFulfillmentEvents: options.postFulfillmentEvents ?? true,
      uninstalledAt: options.uninstalledAt ?? null,
    },
  });
  const tracker = await createTracker(prisma, shop.id, { remote: 'present', syncState: 'synced' });
  const accessToken = `shpat_test_${randomUUID().slice(0, 8)}`;
  if (options.session ?? true) await installSession(domain, accessToken, options.scopes ?? appScopes);
  return { domain, shopId: shop.id, trackerId: tracker.id, accessToken };
}

async function installSession(domain: string, accessToken: string, scopes: string[]): Promise<void> {
  await new PrismaSessionStorage(prisma, { keyring, connectionRetries: 0 }).storeSession(
    new Session({
      id: `offline_${domain}`,
      shop: domain,
      state: 'installed',
      isOnline: false,
      scope: scopes.join(','),
      accessToken,
    }),
  );
  fake.grantScopes(accessToken, scopes);
}

interface QueuedEvent {
  fulfillmentId?: string;
  status: string;
  happenedAt: string;
  message?: string | null;
  city?: string | null;
  province?: string | null;
  country?: string | null;
  zip?: string | null;
  estimatedDeliveryAt?: string | null;
  state?: string;
}

/** Queues rows as the poller does. */
async function queue(s: TestStore, events: QueuedEvent[]): Promise<StoreFulfillmentEvent[]> {
  const rows: StoreFulfillmentEvent[] = [];
  for (const e of events) {
    rows.push(
      await prisma.storeFulfillmentEvent.create({
        data: {
          shopId: s.shopId,
          trackerId: s.trackerId,
          fulfillmentId: e.fulfillmentId ?? '5500000000101',
          status: e.status,
          happenedAt: new Date(e.happenedAt),
          message: e.message === undefined ? `${e.status} scan` : e.message,
          city: e.city === undefined ? 'Louisville' : e.city,
          province: e.province === undefined ? 'KY' : e.province,
          country: e.country === undefined ? 'US' : e.country,
          zip: e.zip === undefined ? '40003' : e.zip,
          estimatedDeliveryAt:
            e.estimatedDeliveryAt === undefined
              ? new Date('2026-11-20T00:00:00Z')
              : e.estimatedDeliveryAt && new Date(e.estimatedDeliveryAt),
          state: e.state ?? 'pending',
        },
      }),
    );
  }
  return rows;
}

function row(id: string) {
  return prisma.storeFulfillmentEvent.findUniqueOrThrow({ where: { id } });
}

function requests(s: TestStore, operation?: 'fulfillmentEventCreate' | 'fulfillmentEvents') {
  return fake.requests.filter((r) => r.shop === s.domain && (!operation || r.operation === operation));
}

describe('postStoreEvents: writing queued events', () => {
  it('writes each queued event once, oldest first, with the fulfilment GID, status, time and place', async () => {
    const s = await store('order');
    fake.setFulfillments(s.domain, ['5500000000101', '5500000000102']);
    const rows = await queue(s, [
      { status: 'DELIVERED', happenedAt: '2026-11-20T10:00:00Z', message: 'Delivered', zip: '40003' },
      {
        status: 'LABEL_PRINTED',
        happenedAt: '2026-11-18T10:15:00Z',
        message: 'Shipping label created',
        zip: null,
      },
      { fulfillmentId: '5500000000102', status: 'LABEL_PRINTED', happenedAt: '2026-11-18T10:20:00Z' },
      {
        status: 'IN_TRANSIT',
        happenedAt: '2026-11-18T16:00:00Z',
        message: null,
        city: null,
        province: null,
        country: null,
        zip: null,
        estimatedDeliveryAt: null,
      },
      { status: 'OUT_FOR_DELIVERY', happenedAt: '2026-11-20T02:00:00Z', message: 'Out for delivery' },
    ]);

    expect(await postStoreEvents(deps(), 50)).toEqual({
      claimed: 5,
      sent: 5,
      alreadyThere: 0,
      retried: 0,
      failed: 0,
      skipped: 0,
      held: 0,
      superseded: 0,
    });
    const written = fake.events(s.domain);
    expect(written.map((e) => [e.fulfillmentId, e.status, e.happenedAt])).toEqual([
      ['gid://shopify/Fulfillment/5500000000101', 'LABEL_PRINTED', '2026-11-18T10:15:00Z'],
      ['gid://shopify/Fulfillment/5500000000102', 'LABEL_PRINTED', '2026-11-18T10:20:00Z'],
      ['gid://shopify/Fulfillment/5500000000101', 'IN_TRANSIT', '2026-11-18T16:00:00Z'],
      ['gid://shopify/Fulfillment/5500000000101', 'OUT_FOR_DELIVERY', '2026-11-20T02:00:00Z'],
      ['gid://shopify/Fulfillment/5500000000101', 'DELIVERED', '2026-11-20T10:00:00Z'],
    ]);
    expect(written[0]).toMatchObject({
      message: 'Shipping label created',
      city: 'Louisville',
      province: 'KY',
      country: 'US',
      zip: null,
      estimatedDeliveryAt: '2026-11-20T00:00:00Z',
    });
    expect(written[2]).toMatchObject({
      message: null,
      city: null,
      province: null,
      country: null,
      zip: null,
      estimatedDeliveryAt: null,
    });
    expect(written[4]).toMatchObject({ message: 'Delivered', zip: '40003' });

    // Absent fields are left out of the input (never sent as null or "").
    const inputs = requests(s, 'fulfillmentEventCreate').map(
      (r) => (r.variables as { fulfillmentEvent: Record<string, unknown> }).fulfillmentEvent,
    );
    expect(Object.keys(inputs[2]!).sort()).toEqual(['fulfillmentId', 'happenedAt', 'status']);
    for (const r of requests(s)) {
      expect(r).toMatchObject({
        url: '/admin/api/2026-10/graphql.json',
        accessToken: s.accessToken,
        operation: 'fulfillmentEventCreate',
      });
    }

    for (const r of rows) {
      const after = await row(r.id);
      const event = written.find((e) => e.status === r.status && e.fulfillmentId.endsWith(r.fulfillmentId))!;
      expect(after).toMatchObject({
        state: 'sent',
        storeEventId: event.id,
        error: null,
        leaseOwner: null,
        attempts: 0,
      });
    }
    // Nothing is left: another pass writes nothing.
    expect((await postStoreEvents(deps(), 50)).claimed).toBe(0);
    expect(requests(s)).toHaveLength(5);
  });

  it('after a restart (a new process, everything already sent) nothing is written again', async () => {
    const s = await store('restart');
    await queue(s, [
      { status: 'LABEL_PRINTED', happenedAt: '2026-11-18T10:15:00Z' },
      { status: 'IN_TRANSIT', happenedAt: '2026-11-18T16:00:00Z' },
    ]);
    expect((await postStoreEvents(deps(), 50)).sent).toBe(2);

    const second = await createDatabase(db.url);
    try {
      const restarted = {
        prisma: second.prisma,
        api: storeApi(second.prisma),
        owner: 'worker-after-restart',
      };
      expect((await postStoreEvents(deps(restarted), 50)).claimed).toBe(0);
      expect((await postStoreEvents(deps({ ...restarted, now: at(7 * 24 * hour) }), 50)).claimed).toBe(0);
    } finally {
      await second.close();
    }
    expect(fake.events(s.domain)).toHaveLength(2);
    expect(requests(s)).toHaveLength(2);
  });

  it('two workers at once write each event once', async () => {
    const s = await store('two-workers');
    const rows = await queue(
      s,
      Array.from({ length: 12 }, (_, i) => ({
        status: i % 2 ? 'IN_TRANSIT' : 'DELAYED',
        happenedAt: new Date(Date.UTC(2026, 10, 18, 10, i)).toISOString(),
      })),
    );
    const second = await createDatabase(db.url);
    try {
      const [a, b] = await Promise.all([
        postStoreEvents(deps({ owner: 'worker-a' }), 50),
        postStoreEvents(deps({ owner: 'worker-b', prisma: second.prisma, api: storeApi(second.prisma) }), 50),
      ]);
      expect(a.sent + b.sent).toBe(12);
    } finally {
      await second.close();
    }
    expect(fake.events(s.domain)).toHaveLength(12);
    expect(requests(s, 'fulfillmentEventCreate')).toHaveLength(12);
    for (const r of rows) expect((await row(r.id)).state).toBe('sent');
  });
});

describe('postStoreEvents: the write-ahead `sending` state', () => {
  it.each(['http500', 'drop'] as const)(
    'apply then fail (%s): the row stays sending, the next pass finds the event and does not write it again',
    async (answer) => {
      const s = await store(`apply-${answer}`);
      const [queued] = await queue(s, [{ status: 'OUT_FOR_DELIVERY', happenedAt: '2026-11-20T02:00:00Z' }]);
      fake.failEvents(s.domain, { kind: 'applyThenFail', answer });

      expect(await postStoreEvents(deps(), 50)).toMatchObject({ claimed: 1, sent: 0, retried: 1 });
      const after = await row(queued!.id);
      expect(after).toMatchObject({ state: 'sending', attempts: 1, leaseOwner: null, storeEventId: null });
      expect(after.error).toBeTruthy();
      expect(after.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 30_000);
      expect(fake.events(s.domain)).toHaveLength(1);

      // Not due at once; due after the backoff, from another process.
      expect((await postStoreEvents(deps(), 50)).claimed).toBe(0);
      expect(
        await postStoreEvents(deps({ owner: 'worker-2', api: storeApi(), now: at(2 * minute) }), 50),
      ).toMatchObject({
        claimed: 1,
        alreadyThere: 1,
        sent: 0,
      });
      expect(await row(queued!.id)).toMatchObject({ state: 'sent', error: null, leaseOwner: null });
      expect(fake.events(s.domain)).toHaveLength(1);
      expect(requests(s).map((r) => r.operation)).toEqual(['fulfillmentEventCreate', 'fulfillmentEvents']);
      expect(requests(s, 'fulfillmentEvents')[0]!.variables).toEqual({
        id: 'gid://shopify/Fulfillment/5500000000101',
      });
    },
  );

  it('a row left sending by a process that died after the store wrote it is not written again', async () => {
    const s = await store('crashed');
    const [queued] = await queue(s, [{ status: 'DELIVERED', happenedAt: '2026-11-20T10:00:00.250Z' }]);
    // What the dead process did: marked the row, wrote the event, died holding the lease.
    const written = await storeApi().create(s.domain, {
      fulfillmentId: queued!.fulfillmentId,
      status: queued!.status,
      happenedAt: queued!.happenedAt,
      message: null,
      city: null,
      province: null,
      country: null,
      zip: null,
      estimatedDeliveryAt: null,
    });
    expect(written.ok).toBe(true);
    await prisma.storeFulfillmentEvent.update({
      where: { id: queued!.id },
      data: { state: 'sending', leaseOwner: 'dead-worker:1', leaseExpiresAt: new Date(Date.now() - 1_000) },
    });

    // The store keeps whole seconds; the row's time has milliseconds: still the same event.
    expect(await postStoreEvents(deps({ owner: 'worker-after-crash' }), 50)).toMatchObject({
      alreadyThere: 1,
      sent: 0,
    });
    expect(await row(queued!.id)).toMatchObject({ state: 'sent', leaseOwner: null });
    expect(fake.events(s.domain)).toHaveLength(1);
    expect(requests(s, 'fulfillmentEventCreate')).toHaveLength(1);
  });

  it('a row held by a live lease is left alone', async () => {
    const s = await store('leased');
    const [queued] = await queue(s, [{ status: 'DELIVERED', happenedAt: '2026-11-20T10:00:00Z' }]);
    await prisma.storeFulfillmentEvent.update({
      where: { id: queued!.id },
      data: { state: 'sending', leaseOwner: 'busy-worker:1', leaseExpiresAt: new Date(Date.now() + 60_000) },
    });
    expect((await postStoreEvents(deps(), 50)).claimed).toBe(0);
    expect(requests(s)).toHaveLength(0);
  });

  it.each<[string, InjectedFailure]>([
    ['HTTP 500', { kind: 'http', status: 500 }],
    ['HTTP 429', { kind: 'http', status: 429 }],
    ['throttled', { kind: 'throttled' }],
    ['a dropped connection', { kind: 'drop' }],
  ])(
    '%s before the store acted: retried later, looked up first, then written once',
    async (_name, failure) => {
      const s = await store('retry');
      const [queued] = await queue(s, [{ status: 'IN_TRANSIT', happenedAt: '2026-11-18T16:00:00Z' }]);
      fake.failEvents(s.domain, failure);

      expect(await postStoreEvents(deps(), 50)).toMatchObject({ retried: 1, sent: 0, failed: 0 });
      const after = await row(queued!.id);
      // The outcome of such a call is not known, so the row is looked up before it is written again.
      expect(after).toMatchObject({ state: 'sending', attempts: 1 });
      expect(after.error).toBeTruthy();
      expect(after.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 30_000);
      expect(fake.events(s.domain)).toHaveLength(0);

      expect(await postStoreEvents(deps({ now: at(2 * minute) }), 50)).toMatchObject({
        sent: 1,
        alreadyThere: 0,
      });
      expect(await row(queued!.id)).toMatchObject({ state: 'sent', error: null });
      expect(fake.events(s.domain).map((e) => e.status)).toEqual(['IN_TRANSIT']);
      expect(requests(s).map((r) => r.operation)).toEqual([
        'fulfillmentEventCreate',
        'fulfillmentEvents',
        'fulfillmentEventCreate',
      ]);
    },
  );

  it('keeps a fulfilment’s timeline in order: while an older event waits for a retry, newer ones wait too', async () => {
    const s = await store('in-order');
    const [oldest, newer, newest] = await queue(s, [
      { status: 'CARRIER_PICKED_UP', happenedAt: '2026-11-18T10:00:00Z' },
      { status: 'IN_TRANSIT', happenedAt: '2026-11-18T16:00:00Z' },
      { status: 'DELIVERED', happenedAt: '2026-11-19T09:00:00Z' },
      // Another fulfilment is not held back.
      { fulfillmentId: '5500000000202', status: 'IN_TRANSIT', happenedAt: '2026-11-18T17:00:00Z' },
    ]);
    fake.failEvents(s.domain, { kind: 'http', status: 503 }, { times: 1 });
    expect(await postStoreEvents(deps(), 50)).toMatchObject({ retried: 1, held: 2, sent: 1 });
    expect(fake.events(s.domain, '5500000000101')).toHaveLength(0);
    // The newer ones wait for the older one's retry, given back with its time: not claimed again meanwhile
    // (one statement for both, not a claim and a write each per pass).
    const retryAt = (await row(oldest!.id)).nextAttemptAt;
    expect(retryAt.getTime()).toBeGreaterThan(Date.now());
    for (const held of [newer!, newest!])
      expect(await row(held.id)).toMatchObject({ nextAttemptAt: retryAt, leaseOwner: null, attempts: 0 });
    expect(await postStoreEvents(deps(), 50)).toMatchObject({ claimed: 0, sent: 0 });
    expect(await postStoreEvents(deps({ now: at(2 * minute) }), 50)).toMatchObject({ sent: 3 });
    expect(fake.events(s.domain, '5500000000101').map((e) => e.status)).toEqual([
      'CARRIER_PICKED_UP',
      'IN_TRANSIT',
      'DELIVERED',
    ]);
  });

  it('an event behind an older one waiting out its backoff waits until that one is due (at least 5 s)', async () => {
    const s = await store('held-behind');
    const [older, newer] = await queue(s, [
      { status: 'CARRIER_PICKED_UP', happenedAt: '2026-11-18T10:00:00Z' },
      { status: 'IN_TRANSIT', happenedAt: '2026-11-18T16:00:00Z' },
    ]);
    const olderDue = new Date(Date.now() + 10 * minute);
    await prisma.storeFulfillmentEvent.update({
      where: { id: older!.id },
      data: { nextAttemptAt: olderDue },
    });
    expect(await postStoreEvents(deps(), 50)).toMatchObject({ claimed: 1, held: 1, sent: 0 });
    expect(await row(newer!.id)).toMatchObject({ nextAttemptAt: olderDue, leaseOwner: null });
    // The older one going first, then the newer one.
    expect(await postStoreEvents(deps({ now: at(11 * minute) }), 50)).toMatchObject({ sent: 2 });
    expect(fake.events(s.domain, '5500000000101').map((e) => e.status)).toEqual([
      'CARRIER_PICKED_UP',
      'IN_TRANSIT',
    ]);
    // An older one due now but beyond this claim: the newer one waits the shortest hold.
    const [first, second] = await queue(s, [
      { fulfillmentId: '5500000000303', status: 'CARRIER_PICKED_UP', happenedAt: '2026-11-18T10:00:00Z' },
      { fulfillmentId: '5500000000303', status: 'IN_TRANSIT', happenedAt: '2026-11-18T16:00:00Z' },
    ]);
    await prisma.storeFulfillmentEvent.update({
      where: { id: first!.id },
      data: { leaseOwner: 'another worker', leaseExpiresAt: new Date(Date.now() + 1_000) },
    });
    const before = Date.now();
    expect(await postStoreEvents(deps(), 50)).toMatchObject({ held: 1 });
    const wait = (await row(second!.id)).nextAttemptAt.getTime() - before;
    expect(wait).toBeGreaterThanOrEqual(heldMs - 50);
    expect(wait).toBeLessThan(heldMs + 2_000);
  });

  it('gives up after maxAttempts failures', async () => {
    const s = await store('give-up');
    const [queued] = await queue(s, [{ status: 'IN_TRANSIT', happenedAt: '2026-11-18T16:00:00Z' }]);
    fake.failEvents(s.domain, { kind: 'http', status: 503 }, { times: 5 });
    expect((await postStoreEvents(deps({ maxAttempts: 2 }), 50)).retried).toBe(1);
    expect((await postStoreEvents(deps({ maxAttempts: 2, now: at(5 * minute) }), 50)).failed).toBe(1);
    const after = await row(queued!.id);
    expect(after).toMatchObject({ state: 'failed', attempts: 2 });
    expect(after.error).toMatch(/503|internal|error/i);
    expect((await postStoreEvents(deps({ now: at(24 * hour) }), 50)).claimed).toBe(0);
  });
});

describe('postStoreEvents: refused and skipped', () => {
  it('userErrors (a fulfilment the store does not hold): failed with the store’s message', async () => {
    const s = await store('unknown-fulfilment');
    fake.setFulfillments(s.domain, ['5500000000999']);
    const [queued] = await queue(s, [
      { fulfillmentId: '5500000000301', status: 'DELIVERED', happenedAt: '2026-11-20T10:00:00Z' },
    ]);
    expect(await postStoreEvents(deps(), 50)).toMatchObject({ failed: 1, sent: 0, retried: 0 });
    expect(await row(queued!.id)).toMatchObject({
      state: 'failed',
      error: 'Fulfillment does not exist.',
      attempts: 1,
      leaseOwner: null,
    });
    expect(fake.events(s.domain)).toHaveLength(0);
    expect((await postStoreEvents(deps({ now: at(24 * hour) }), 50)).claimed).toBe(0);
  });

  it('an input the API refuses (a status it does not know): failed with the message', async () => {
    const s = await store('bad-status');
    const [queued] = await queue(s, [{ status: 'LOST_IN_SPACE', happenedAt: '2026-11-20T10:00:00Z' }]);
    expect(await postStoreEvents(deps(), 50)).toMatchObject({ failed: 1 });
    const after = await row(queued!.id);
    expect(after.state).toBe('failed');
    expect(after.error).toMatch(/LOST_IN_SPACE/);
    expect(fake.events(s.domain)).toHaveLength(0);
  });

  it('a missing write_fulfillments scope: not sent, kept for later with a clear error; sent once granted', async () => {
    const s = await store('no-write', { scopes: ['read_orders'] });
    const [queued] = await queue(s, [{ status: 'DELIVERED', happenedAt: '2026-11-20T10:00:00Z' }]);
    expect(await postStoreEvents(deps(), 50)).toMatchObject({ retried: 1, sent: 0, failed: 0 });
    const after = await row(queued!.id);
    // Refused before anything was written: back to pending, not `sending`.
    expect(after).toMatchObject({ state: 'pending', attempts: 1 });
    expect(after.error).toMatch(/access denied/i);
    expect(after.error).toMatch(/write_fulfillments/);
    expect(after.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 5 * hour);
    expect(fake.events(s.domain)).toHaveLength(0);
    expect((await postStoreEvents(deps({ now: at(hour) }), 50)).claimed).toBe(0);

    // The merchant approves the scopes again.
    await installSession(s.domain, s.accessToken, appScopes);
    expect(await postStoreEvents(deps({ now: at(6 * hour + minute) }), 50)).toMatchObject({ sent: 1 });
    expect(fake.events(s.domain)).toHaveLength(1);
    expect(requests(s, 'fulfillmentEvents')).toHaveLength(0);
  });

  it('a missing read_fulfillments scope when a sending row must be looked up: kept sending with the error', async () => {
    const s = await store('no-read', { scopes: ['read_orders'] });
    const [queued] = await queue(s, [
      { status: 'DELIVERED', happenedAt: '2026-11-20T10:00:00Z', state: 'sending' },
    ]);
    expect(await postStoreEvents(deps(), 50)).toMatchObject({ retried: 1, sent: 0 });
    const after = await row(queued!.id);
    expect(after).toMatchObject({ state: 'sending', attempts: 1 });
    expect(after.error).toMatch(/access denied.*read_fulfillments/i);
    expect(requests(s).map((r) => r.operation)).toEqual(['fulfillmentEvents']);
    expect(fake.events(s.domain)).toHaveLength(0);
  });

  it('no offline session: nothing is sent, the row is kept for later with a clear error', async () => {
    const s = await store('no-session', { session: false });
    const [queued] = await queue(s, [{ status: 'DELIVERED', happenedAt: '2026-11-20T10:00:00Z' }]);
    expect(await postStoreEvents(deps(), 50)).toMatchObject({ retried: 1, sent: 0, failed: 0 });
    const after = await row(queued!.id);
    expect(after).toMatchObject({
      state: 'pending',
      attempts: 1,
      error: 'no offline session for this store (reinstall the app)',
    });
    expect(after.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 5 * hour);
    expect(requests(s)).toHaveLength(0);

    // Installed again: written on the next attempt, with no look-up (nothing was ever sent).
    await installSession(s.domain, s.accessToken, appScopes);
    expect(await postStoreEvents(deps({ now: at(6 * hour + minute) }), 50)).toMatchObject({ sent: 1 });
    expect(requests(s).map((r) => r.operation)).toEqual(['fulfillmentEventCreate']);
  });

  it('an uninstalled shop, or one that turned writing off, is skipped', async () => {
    const gone = await store('uninstalled', { uninstalledAt: new Date() });
    const off = await store('turned-off', { postFulfillmentEvents: false });
    const [a] = await queue(gone, [{ status: 'DELIVERED', happenedAt: '2026-11-20T10:00:00Z' }]);
    const [b] = await queue(off, [
      { status: 'DELIVERED', happenedAt: '2026-11-20T10:00:00Z', state: 'sending' },
    ]);
    expect(await postStoreEvents(deps(), 50)).toMatchObject({ skipped: 2, sent: 0 });
    expect(await row(a!.id)).toMatchObject({
      state: 'skipped',
      error: 'the app is not installed in this store',
    });
    expect(await row(b!.id)).toMatchObject({ state: 'skipped', error: 'writing to the store is turned off' });
    expect([...requests(gone), ...requests(off)]).toHaveLength(0);
    expect((await postStoreEvents(deps({ now: at(24 * hour) }), 50)).claimed).toBe(0);
  });
});

describe('postStoreEvents: a fulfilment’s write budget', () => {
  const fulfillmentId = '5500000000707';
  const flip = (i: number) => (i % 2 === 0 ? 'IN_TRANSIT' : 'OUT_FOR_DELIVERY');
  const minuteAt = (i: number) => new Date(Date.UTC(2026, 10, 18, 10, 0, i)).toISOString();

  it('a real parcel’s changes are each written, in order, up to the budget', async () => {
    const s = await store('budget-normal');
    const lifecycle = [
      'LABEL_PURCHASED',
      'LABEL_PRINTED',
      'CONFIRMED',
      'CARRIER_PICKED_UP',
      'IN_TRANSIT',
      'DELAYED',
      'IN_TRANSIT',
      'OUT_FOR_DELIVERY',
      'ATTEMPTED_DELIVERY',
      'OUT_FOR_DELIVERY',
      'READY_FOR_PICKUP',
      'DELIVERED',
    ];
    expect(lifecycle).toHaveLength(storeWritesPerWindow);
    await queue(
      s,
      lifecycle.map((status, i) => ({ fulfillmentId, status, happenedAt: minuteAt(i * 60) })),
    );
    expect(await postStoreEvents(deps(), 50)).toMatchObject({ sent: 12, superseded: 0, held: 0 });
    expect(fake.events(s.domain, fulfillmentId).map((e) => e.status)).toEqual(lifecycle);
  });

  it('over the budget the latest status wins: the older pending ones superseded, the newest written when a write is free', async () => {
    const s = await store('budget-over');
    await queue(
      s,
      Array.from({ length: storeWritesPerWindow }, (_, i) => ({
        fulfillmentId,
        status: flip(i),
        happenedAt: minuteAt(i),
      })),
    );
    expect(await postStoreEvents(deps(), 50)).toMatchObject({ sent: storeWritesPerWindow });
    const more = await queue(s, [
      { fulfillmentId, status: 'DELAYED', happenedAt: minuteAt(100) },
      { fulfillmentId, status: 'IN_TRANSIT', happenedAt: minuteAt(101) },
      { fulfillmentId, status: 'DELIVERED', happenedAt: minuteAt(102) },
      // Another fulfilment of the same store has its own budget.
      { fulfillmentId: '5500000000808', status: 'IN_TRANSIT', happenedAt: minuteAt(103) },
    ]);
    expect(await postStoreEvents(deps(), 50)).toMatchObject({ sent: 1, superseded: 2, held: 1 });
    expect(await row(more[0]!.id)).toMatchObject({ state: 'superseded', leaseOwner: null });
    expect((await row(more[0]!.id)).error).toMatch(/newer status/);
    expect((await row(more[1]!.id)).state).toBe('superseded');
    const newest = await row(more[2]!.id);
    expect(newest).toMatchObject({ state: 'pending', leaseOwner: null });
    // Held until the window's oldest write leaves it: not claimed again meanwhile.
    expect(newest.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + storeWriteWindowMs - 5 * minute);
    expect((await postStoreEvents(deps({ now: at(30 * minute) }), 50)).claimed).toBe(0);
    expect(await postStoreEvents(deps({ now: at(storeWriteWindowMs + minute) }), 50)).toMatchObject({
      sent: 1,
    });
    const written = fake.events(s.domain, fulfillmentId).map((e) => e.status);
    expect(written).toHaveLength(storeWritesPerWindow + 1);
    expect(written.at(-1)).toBe('DELIVERED');
  });

  it('2 000 separate changes of one fulfilment, statuses alternating: at most 20 writes, the last the latest status', async () => {
    const s = await store('budget-flood');
    const count = 2_000;
    const batches = { passes: 0, superseded: 0, sent: 0 };
    // As a flood arrives: a few changes queued, then a pass of the worker, again and again.
    for (let from = 0; from < count; from += 20) {
      await prisma.storeFulfillmentEvent.createMany({
        data: Array.from({ length: Math.min(20, count - from) }, (_, j) => ({
          shopId: s.shopId,
          trackerId: s.trackerId,
          fulfillmentId,
          status: flip(from + j),
          happenedAt: new Date(Date.UTC(2026, 10, 18, 10, 0, 0, 0) + (from + j) * 1_000),
        })),
      });
      const pass = await postStoreEvents(deps(), 50);
      batches.passes++;
      batches.superseded += pass.superseded;
      batches.sent += pass.sent;
    }
    // An hour later the held newest is written (a pass or two: an idle connection to the fake store may
    // drop the first call, which is then retried as any dropped call is).
    for (let k = 1; k <= 3; k++) {
      const later = await postStoreEvents(deps({ now: at(storeWriteWindowMs + k * 10 * minute) }), 50);
      batches.sent += later.sent + later.alreadyThere;
      batches.superseded += later.superseded;
    }

    const written = fake.events(s.domain, fulfillmentId);
    expect(written.length).toBeLessThanOrEqual(20);
    expect(written).toHaveLength(storeWritesPerWindow + 1);
    expect(batches.sent).toBe(written.length);
    expect(requests(s, 'fulfillmentEventCreate')).toHaveLength(written.length);
    // Every other change is counted as superseded, none is left waiting.
    expect(batches.superseded).toBe(count - written.length);
    const states = await prisma.storeFulfillmentEvent.groupBy({
      by: ['state'],
      where: { fulfillmentId },
      _count: { _all: true },
    });
    expect(Object.fromEntries(states.map((g) => [g.state, g._count._all]))).toEqual({
      sent: written.length,
      superseded: count - written.length,
    });
    // The last written is the latest change.
    expect(written.at(-1)).toMatchObject({
      status: flip(count - 1),
      happenedAt: new Date(Date.UTC(2026, 10, 18, 10, 0, 0, 0) + (count - 1) * 1_000)
        .toISOString()
        .replace('.000Z', 'Z'),
    });
    console.log(
      `2 000 changes of one fulfilment in ${batches.passes} passes → ${written.length} store writes, ${batches.superseded} superseded`,
    );
  }, 120_000);
});
