import type { FlowTriggerApi } from '../../src/shopify/flow-trigger-receive.js';
import type { ApiQueueWork } from '../../src/db/lease-queue.js';
import { randomUUID } from 'node:crypto';
import { Session } from '@shopify/shopify-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/db/client.js';
import { queueFlowEvent } from '../../src/flow/queue-flow-event.js';
import {
  queueBalanceLow,
  queueProblemsOpened,
  queueShipmentChanges,
  type ShipmentState,
} from '../../src/flow/queue-triggers.js';
import { sendFlowEvents } from '../../src/flow/send-flow-events.js';
import { flowPayload, flowTriggerHandles, type FlowTriggerHandle } from '../../src/flow/triggers.js';
import { silentLogger } from '../../src/logger.js';
import { shopifyStoreAdmin } from '../../src/shopify/admin-graphql.js';
import { appScopes, createShopify } from '../../src/shopify/api.js';
import { shopifyFlowTriggers } from '../../src/shopify/flow-trigger-receive.js';
import { PrismaSessionStorage } from '../../src/shops/session-storage.js';
import { TEST_SECRET } from '../helpers/app.js';
import { useTestDatabase } from '../helpers/database.js';
import { createTracker, testKeyring, uniqueDomain } from '../helpers/factories.js';
import { type FakeAdminGraphql, startFakeAdminGraphql } from '../helpers/fake-admin-graphql.js';
import { payloadKeyOf, payloadProblems, readTriggerToml } from './extension-toml.js';

/**
 * The Flow outbox: triggers are queued only for shops with a workflow on them, once per fact, and sent with
 * the app's real store side (the library's Admin GraphQL client, the offline session through
 * PrismaSessionStorage) to the fake store Admin API, which knows the app's triggers from their extensions'
 * TOML and records what it received. Passes are driven by hand, with clocks ahead for retries.
 */

const db = useTestDatabase();
let prisma: DatabaseClient;
let fake: FakeAdminGraphql;
const keyring = testKeyring();

/** The platform's knowledge of the app's triggers: each extension's payload keys. */
const deployedTriggers = flowTriggerHandles.map((handle) => ({
  handle,
  fields: readTriggerToml(handle).settings.fields.map(payloadKeyOf),
}));

beforeAll(async () => {
  fake = await startFakeAdminGraphql();
  prisma = db.prisma;
  fake.setFlowTriggers(deployedTriggers);
});
afterAll(async () => {
  await fake?.close();
});
// Each test sees only its own queue (passes claim every row due).
beforeEach(async () => {
  await prisma.flowEvent.deleteMany({});
  fake.setFlowTriggers(deployedTriggers);
});

const minute = 60_000;
const hour = 60 * minute;
const ahead = (ms: number) => () => new Date(Date.now() + ms);

interface TestShop {
  id: string;
  domain: string;
}

/** A shop using these triggers, with (unless told otherwise) the store's offline session. */
async function shop(
  name: string,
  inUse: readonly FlowTriggerHandle[],
  options: { session?: boolean; uninstalledAt?: Date } = {},
): Promise<TestShop> {
  const domain = uniqueDomain(name);
  const row = await prisma.shop.create({ data: { domain, uninstalledAt: options.uninstalledAt ?? null } });
  for (const handle of inUse) await prisma.flowTriggerInUse.create({ data: { shopId: row.id, handle } });
  if (options.session ?? true) {
    const accessToken = `shpat_test_${randomUUID().slice(0, 8)}`;
    await new PrismaSessionStorage(prisma, { keyring, connectionRetries: 0 }).storeSession(
      new Session({
        id: `offline_${domain}`,
        shop: domain,
        state: 'installed',
        isOnline: false,
        scope: appScopes.join(','),
        accessToken,
      }),
    );
    fake.grantScopes(accessToken, appScopes);
  }
  return { id: row.id, domain };
}

/** A UPS parcel of two fulfilments of one order (and a line of a number the store removed). */
async function parcel(s: TestShop, state: Partial<ShipmentState> = {}) {
  const tracker = await createTracker(prisma, s.id, {
    remote: 'present',
    syncState: 'synced',
    status: state.status ?? 'in_transit',
    statusDetail: state.statusDetail ?? null,
    estimatedDelivery: state.estimatedDelivery ?? '2026-11-20',
    lastEventAt: state.lastEventAt ?? new Date('2026-11-18T10:00:00Z'),
  });
  const line = (fulfillmentId: string, active = true) =>
    prisma.trackingLine.create({
      data: {
        shopId: s.id,
        fulfillmentId,
        orderId: '6120000000001',
        orderName: '#1001',
        trackingNumber: tracker.trackingNumber,
        carrierName: 'UPS',
        trackerId: tracker.id,
        active,
      },
    });
  await line('5521012345678');
  await line('5521012345679');
  await line('5521012345680', false);
  return tracker;
}

const inTransit: ShipmentState = {
  status: 'in_transit',
  statusDetail: null,
  estimatedDelivery: '2026-11-20',
  lastEventAt: new Date('2026-11-18T10:00:00Z'),
};
const deliveredState: ShipmentState = {
  status: 'delivered',
  statusDetail: null,
  estimatedDelivery: null,
  lastEventAt: new Date('2026-11-19T15:00:00Z'),
};

const rowsOf = (s: TestShop) =>
  prisma.flowEvent.findMany({ where: { shopId: s.id }, orderBy: [{ handle: 'asc' }, { dedupeKey: 'asc' }] });

function deps(overrides: Partial<ApiQueueWork<FlowTriggerApi>> = {}): ApiQueueWork<FlowTriggerApi> {
  const shopify = createShopify({
    apiKey: 'test-api-key',
    apiSecret: TEST_SECRET,
    appUrl: 'http://127.0.0.1:3000',
    sessionStorage: new PrismaSessionStorage(prisma, { keyring, connectionRetries: 0 }),
  });
  return {
    prisma,
    api: shopifyFlowTriggers(shopifyStoreAdmin(shopify)),
    logger: silentLogger,
    owner: 'flow-test',
    ...overrides,
  };
}

const balancePayload = flowPayload('tracking-balance-low', { balance: 90, daysLeft: 3, perDay: 30 });

describe('queueing Flow triggers', () => {
  it('a shop without an enabled workflow on the trigger gets nothing queued', async () => {
    const s = await shop('flow-none', ['shipment-delivered']);
    expect(
      await queueFlowEvent(prisma, {
        shopId: s.id,
        handle: 'tracking-balance-low',
        payload: balancePayload,
        dedupeKey: 'k1',
      }),
    ).toBe('not_in_use');
    const tracker = await parcel(s);
    expect(
      await queueShipmentChanges(prisma, tracker, inTransit, { ...inTransit, status: 'exception' }),
    ).toBe(0);
    expect(await rowsOf(s)).toEqual([]);
  });

  it('one row per dedupe key: a repeat of the same fact is skipped', async () => {
    const s = await shop('flow-dedupe', ['tracking-balance-low']);
    const event = { shopId: s.id, handle: 'tracking-balance-low' as const, payload: balancePayload };
    expect(await queueFlowEvent(prisma, { ...event, dedupeKey: 'day:2026-11-20' })).toBe('queued');
    expect(await queueFlowEvent(prisma, { ...event, dedupeKey: 'day:2026-11-20' })).toBe('duplicate');
    expect(await queueFlowEvent(prisma, { ...event, dedupeKey: 'day:2026-11-21' })).toBe('queued');
    const rows = await rowsOf(s);
    expect(rows.map((r) => [r.handle, r.dedupeKey, r.state, r.attempts])).toEqual([
      ['tracking-balance-low', 'day:2026-11-20', 'pending', 0],
      ['tracking-balance-low', 'day:2026-11-21', 'pending', 0],
    ]);
    expect(JSON.parse(rows[0]!.payload)).toEqual(balancePayload);
  });

  it('a delivered read: one event per wanted fulfilment and trigger in use, each fitting its extension', async () => {
    const s = await shop('flow-read', ['shipment-status-changed', 'shipment-delivered']);
    const tracker = await parcel(s);
    expect(await queueShipmentChanges(prisma, tracker, inTransit, deliveredState)).toBe(4);
    // The same read again (a push after a poll): nothing more.
    expect(await queueShipmentChanges(prisma, tracker, inTransit, deliveredState)).toBe(0);
    const rows = await rowsOf(s);
    expect(rows.map((r) => r.handle)).toEqual([
      'shipment-delivered',
      'shipment-delivered',
      'shipment-status-changed',
      'shipment-status-changed',
    ]);
    for (const row of rows) {
      const payload = JSON.parse(row.payload) as Record<string, unknown>;
      expect(payloadProblems(readTriggerToml(row.handle).settings.fields, payload)).toEqual([]);
      expect(payload).toMatchObject({
        order_id: 6120000000001,
        'Tracking number': tracker.trackingNumber,
        Carrier: 'UPS',
        Status: 'delivered',
        'Tracking page URL': `https://${s.domain}/apps/track?tracking=${tracker.trackingNumber}`,
      });
    }
    expect(
      rows.map((r) => (JSON.parse(r.payload) as Record<string, unknown>)['Fulfillment ID']).sort(),
    ).toEqual([
      'gid://shopify/Fulfillment/5521012345678',
      'gid://shopify/Fulfillment/5521012345678',
      'gid://shopify/Fulfillment/5521012345679',
      'gid://shopify/Fulfillment/5521012345679',
    ]);
  });

  it('an estimate moved: the estimate trigger with the previous estimate', async () => {
    const s = await shop('flow-estimate', ['delivery-estimate-changed', 'shipment-status-changed']);
    const tracker = await parcel(s);
    const later = { ...inTransit, estimatedDelivery: '2026-11-23' };
    expect(await queueShipmentChanges(prisma, tracker, inTransit, later)).toBe(2);
    const rows = await rowsOf(s);
    expect(rows.map((r) => r.handle)).toEqual(['delivery-estimate-changed', 'delivery-estimate-changed']);
    expect(JSON.parse(rows[0]!.payload)).toMatchObject({
      'Estimated delivery': '2026-11-23',
      'Previous estimate': '2026-11-20',
    });
  });

  it('opened problems: one needs-attention event per problem and fulfilment, with its kind; closed ones none', async () => {
    const s = await shop('flow-problem', ['shipment-needs-attention']);
    const tracker = await parcel(s, { status: 'exception', statusDetail: 'Address incomplete' });
    const open = await prisma.shipmentProblem.create({
      data: { shopId: s.id, trackerId: tracker.id, kind: 'carrier_exception', since: new Date() },
    });
    const closed = await prisma.shipmentProblem.create({
      data: {
        shopId: s.id,
        trackerId: tracker.id,
        kind: 'stalled',
        since: new Date(),
        closedAt: new Date(),
        closedReason: 'moved',
      },
    });
    expect(await queueProblemsOpened(prisma, [open.id, closed.id])).toBe(2);
    expect(await queueProblemsOpened(prisma, [open.id])).toBe(0);
    const rows = await rowsOf(s);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const payload = JSON.parse(row.payload) as Record<string, unknown>;
      expect(payloadProblems(readTriggerToml('shipment-needs-attention').settings.fields, payload)).toEqual(
        [],
      );
      expect(payload).toMatchObject({
        'Problem kind': 'carrier_exception',
        Problem: 'Carrier exception',
        Status: 'exception',
        'Status detail': 'Address incomplete',
      });
    }
  });

  it('the balance: queued when the forecast warns, once a day', async () => {
    const s = await shop('flow-balance', ['tracking-balance-low']);
    const account = { id: s.id, trackersBalance: 90 };
    const now = new Date('2026-11-20T08:00:00Z');
    expect(await queueBalanceLow(prisma, account, { perDay: 30, daysLeft: 3, warn: false }, now)).toBe(
      'not_low',
    );
    expect(await queueBalanceLow(prisma, account, { perDay: 30, daysLeft: 3, warn: true }, now)).toBe(
      'queued',
    );
    expect(
      await queueBalanceLow(
        prisma,
        account,
        { perDay: 31, daysLeft: 2, warn: true },
        new Date('2026-11-20T20:00:00Z'),
      ),
    ).toBe('duplicate');
    expect(JSON.parse((await rowsOf(s))[0]!.payload)).toEqual({
      Balance: 90,
      'Days left': 3,
      'Parcels per day': 30,
    });
  });
});

describe('sending Flow triggers', () => {
  const flowCalls = (s: TestShop) =>
    fake.requests.filter((r) => r.shop === s.domain && r.operation === 'flowTriggerReceive');

  it('sends each queued trigger through the store’s Admin API once, with its handle and payload', async () => {
    const s = await shop('flow-send', ['shipment-delivered', 'tracking-balance-low']);
    const tracker = await parcel(s);
    await queueShipmentChanges(prisma, tracker, inTransit, deliveredState);
    await queueBalanceLow(prisma, { id: s.id, trackersBalance: 90 }, { perDay: 30, daysLeft: 3, warn: true });
    const stats = await sendFlowEvents(deps(), 10);
    expect(stats).toEqual({ claimed: 3, sent: 3, skipped: 0, retried: 0, failed: 0 });
    const received = fake.flowTriggers(s.domain);
    expect(received.map((r) => r.handle).sort()).toEqual([
      'shipment-delivered',
      'shipment-delivered',
      'tracking-balance-low',
    ]);
    const rows = await rowsOf(s);
    for (const row of rows)
      expect(received).toContainEqual(expect.objectContaining({ payload: JSON.parse(row.payload) }));
    expect(rows.map((r) => [r.state, r.attempts, r.error, r.leaseOwner])).toEqual(
      rows.map(() => ['sent', 0, null, null]),
    );
    expect(flowCalls(s)).toHaveLength(3);
    expect(flowCalls(s)[0]!.variables).toMatchObject({
      handle: expect.any(String),
      payload: expect.any(Object),
    });
    // Nothing is sent twice.
    expect(await sendFlowEvents(deps(), 10)).toMatchObject({ claimed: 0 });
    expect(flowCalls(s)).toHaveLength(3);
  });

  it('a 503 is tried again later, after the store-write backoff, and then sent', async () => {
    const s = await shop('flow-503', ['tracking-balance-low']);
    await queueBalanceLow(prisma, { id: s.id, trackersBalance: 90 }, { perDay: 30, daysLeft: 3, warn: true });
    fake.failEvents(s.domain, { kind: 'http', status: 503 }, { operation: 'flowTriggerReceive' });
    const before = Date.now();
    expect(await sendFlowEvents(deps(), 10)).toMatchObject({ claimed: 1, retried: 1, sent: 0 });
    const [row] = await rowsOf(s);
    expect(row).toMatchObject({ state: 'pending', attempts: 1, leaseOwner: null });
    expect(row!.error).toBeTruthy();
    expect(row!.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(before + minute);
    expect(fake.flowTriggers(s.domain)).toEqual([]);
    // Not due yet.
    expect(await sendFlowEvents(deps(), 10)).toMatchObject({ claimed: 0 });
    expect(await sendFlowEvents(deps({ now: ahead(2 * minute) }), 10)).toMatchObject({ claimed: 1, sent: 1 });
    expect((await rowsOf(s))[0]).toMatchObject({ state: 'sent', attempts: 1, error: null });
    expect(fake.flowTriggers(s.domain).map((r) => r.payload)).toEqual([balancePayload]);
    expect(flowCalls(s)).toHaveLength(2);
  });

  it('a refusal (userErrors) fails the row with the store’s reason, not tried again', async () => {
    const s = await shop('flow-refused', ['tracking-balance-low']);
    await queueBalanceLow(prisma, { id: s.id, trackersBalance: 90 }, { perDay: 30, daysLeft: 3, warn: true });
    // The platform does not know this trigger (its extension not deployed).
    fake.setFlowTriggers(deployedTriggers.filter((t) => t.handle !== 'tracking-balance-low'));
    expect(await sendFlowEvents(deps(), 10)).toMatchObject({ claimed: 1, failed: 1, retried: 0 });
    const [row] = await rowsOf(s);
    expect(row).toMatchObject({ state: 'failed', attempts: 1, leaseOwner: null });
    expect(row!.error).toBe(
      "handle: No trigger with the handle 'tracking-balance-low' is defined for this app.",
    );
    expect(await sendFlowEvents(deps({ now: ahead(7 * hour) }), 10)).toMatchObject({ claimed: 0 });
    expect(fake.flowTriggers(s.domain)).toEqual([]);
  });

  it('skips, without a call, a trigger no workflow uses any more and a shop that uninstalled the app', async () => {
    const gone = await shop('flow-gone', ['tracking-balance-low']);
    const off = await shop('flow-off', ['tracking-balance-low']);
    for (const s of [gone, off])
      await queueBalanceLow(
        prisma,
        { id: s.id, trackersBalance: 90 },
        { perDay: 30, daysLeft: 3, warn: true },
      );
    await prisma.shop.update({ where: { id: gone.id }, data: { uninstalledAt: new Date() } });
    await prisma.flowTriggerInUse.deleteMany({ where: { shopId: off.id } });
    expect(await sendFlowEvents(deps(), 10)).toMatchObject({ claimed: 2, skipped: 2, sent: 0 });
    expect((await rowsOf(gone))[0]).toMatchObject({
      state: 'skipped',
      error: 'the app is not installed in this store',
    });
    expect((await rowsOf(off))[0]).toMatchObject({
      state: 'skipped',
      error: 'no enabled workflow uses this trigger any more',
    });
    expect([...flowCalls(gone), ...flowCalls(off)]).toEqual([]);
  });

  it('no offline session: the store’s triggers wait the longest step (a reinstall is needed)', async () => {
    const s = await shop('flow-nosession', ['tracking-balance-low'], { session: false });
    await queueBalanceLow(prisma, { id: s.id, trackersBalance: 90 }, { perDay: 30, daysLeft: 3, warn: true });
    const before = Date.now();
    expect(await sendFlowEvents(deps(), 10)).toMatchObject({ claimed: 1, retried: 1 });
    const [row] = await rowsOf(s);
    expect(row).toMatchObject({ state: 'pending', attempts: 1 });
    expect(row!.error).toMatch(/no offline session/);
    expect(row!.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(before + 6 * hour);
    expect(flowCalls(s)).toEqual([]);
  });
});
