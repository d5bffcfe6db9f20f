import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseClient } from '../../src/db/client.js';
import type { Shop } from '../../src/generated/sqlite/client.js';
import { silentLogger } from '../../src/logger.js';
import { type PollDeps, type PollOptions, pollStatuses } from '../../src/shipments/poll-statuses.js';
import { parseServiceTime, type PollPolicy } from '../../src/shipments/status.js';
import { createShopRepository, type ShopRepository } from '../../src/shops/shop-repository.js';
import { createTrackingClient, type TrackingClient } from '../../src/tracking/client.js';
import { reconcileOnce } from '../../src/trackers/reconciler.js';
import { useTestDatabase } from '../helpers/database.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { createTracker, testKeyring } from '../helpers/factories.js';
import {
  dropsPickedUpDetail,
  fullLifecycleStatuses,
  keepsEveryDetail,
  pickNumbers,
  stepOffsetsSeconds,
} from './lifecycle.js';

/**
 * pollStatuses against the tracking-service emulator over HTTP and a real test database: trackers are
 * created at the emulator by the reconciler, the emulator's clock drives their lifecycle, and the poller's
 * own clock (`now`) decides what is due.
 */

const minute = 60_000;
const hour = 60 * minute;

/** Distinct intervals, no jitter: every nextPollAt is exact. */
const policy: PollPolicy = {
  firstPollMs: minute,
  preTransitMs: 6 * hour,
  movingMs: 3 * hour,
  outForDeliveryMs: hour,
  stalledMs: 12 * hour,
  stalledAfterMs: 30 * 24 * hour,
  giveUpAfterMs: 90 * 24 * hour,
  jitter: 0,
};

const db = useTestDatabase();
let emulator: TestEmulator;
let prisma: DatabaseClient;
let shops: ShopRepository;
let client: TrackingClient;
const run = randomBytes(3).toString('hex').toUpperCase();
let numberSeq = 0;

beforeAll(async () => {
  emulator = await startTestEmulator();
  prisma = db.prisma;
  shops = createShopRepository(prisma, testKeyring());
  // One attempt per call: a faulted read fails at once (the poller's own backoff is what is tested).
  client = createTrackingClient({ baseUrl: emulator.baseUrl, retry: { maxAttempts: 1 }, timeoutMs: 5_000 });
});
afterAll(async () => {
  await emulator?.close();
});
afterEach(async () => {
  await emulator.control.setFaults({});
});

interface TestShop {
  shop: Shop;
  appName: string;
  creds: { apiKey: string; appName: string };
}

/** A shop connected to its own emulator account. */
async function connectedShop(
  name: string,
  settings: { postFulfillmentEvents?: boolean } = {},
): Promise<TestShop> {
  const tag = `${name}-${randomBytes(3).toString('hex')}`;
  const creds = { apiKey: `key-${tag}-${randomBytes(6).toString('hex')}`, appName: `store-${tag}` };
  await emulator.control.addAccount({ ...creds, plan: 'Pro', balance: 1000, https: true });
  let shop = await shops.saveCredentials(`${tag}.myshopify.com`, creds);
  if (settings.postFulfillmentEvents === false) {
    shop = await prisma.shop.update({ where: { id: shop.id }, data: { postFulfillmentEvents: false } });
  }
  return { shop, appName: creds.appName, creds };
}

/** Tracking numbers no other test uses (by default ones whose lifecycle keeps every status_detail). */
function numbers(count: number, accept: (n: string) => boolean = keepsEveryDetail): string[] {
  return pickNumbers(count, () => `1ZP${run}${String(++numberSeq).padStart(8, '0')}`, accept);
}

let orderSeq = 0;

/**
 * Trackers for these numbers, each wanted by one line of `fulfillmentId` (and any extra fulfilments), created
 * at the emulator by the reconciler (first poll due at once). Each is of an order of its own (read with one
 * `get`) unless `order` names one order for all of them (read together with by-order-id).
 */
async function addTrackers(
  shop: TestShop,
  list: string[],
  fulfillmentIds: string[] = ['5500000000001'],
  order?: string,
): Promise<string[]> {
  const ids: string[] = [];
  for (const trackingNumber of list) {
    const orderKey = order ?? `61200${run}${String(++orderSeq).padStart(6, '0')}`;
    const tracker = await createTracker(prisma, shop.shop.id, { trackingNumber, provider: 'ups', orderKey });
    for (const fulfillmentId of fulfillmentIds) {
      await prisma.trackingLine.create({
        data: {
          shopId: shop.shop.id,
          fulfillmentId,
          orderId: orderKey,
          trackingNumber,
          trackerId: tracker.id,
          carrierName: 'UPS',
          postalCode: '40003',
          destinationCountry: 'US',
        },
      });
    }
    ids.push(tracker.id);
  }
  await reconcileAll();
  const present = await prisma.tracker.count({ where: { id: { in: ids }, remote: 'present' } });
  expect(present).toBe(ids.length);
  return ids;
}

async function reconcileAll(now?: Date): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const stats = await reconcileOnce(
      {
        prisma,
        client,
        shops,
        logger: silentLogger,
        owner: 'test-reconciler',
        firstPollMs: 0,
        ...(now ? { now: () => now } : {}),
      },
      { limit: 100, concurrency: 8 },
    );
    if (stats.claimed === 0) return;
  }
}

function pollDeps(at: Date, overrides: Partial<PollDeps> = {}): PollDeps {
  return {
    prisma,
    client,
    shops,
    logger: silentLogger,
    owner: 'test-poller',
    policy,
    now: () => at,
    ...overrides,
  };
}

const pollOptions: PollOptions = { limit: 100, perShop: 100, concurrency: 4 };

function pollAt(at: Date, options: Partial<PollOptions> = {}, overrides: Partial<PollDeps> = {}) {
  return pollStatuses(pollDeps(at, overrides), { ...pollOptions, ...options });
}

const later = (at: Date, ms: number) => new Date(at.getTime() + ms);

/** Makes these trackers due at `at` (and no one else's), without touching anything else. */
async function onlyDue(ids: string[], at: Date): Promise<void> {
  await prisma.tracker.updateMany({ where: { id: { notIn: ids } }, data: { nextPollAt: null } });
  await prisma.tracker.updateMany({ where: { id: { in: ids } }, data: { nextPollAt: at } });
}

function queued(trackerId: string) {
  return prisma.storeFulfillmentEvent.findMany({
    where: { trackerId },
    orderBy: [{ fulfillmentId: 'asc' }, { happenedAt: 'asc' }],
  });
}

async function getCalls(appName: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const call of await emulator.control.calls({ appName, operation: 'get' })) {
    const n = (call.body as { tracking_number?: string }).tracking_number!;
    counts.set(n, (counts.get(n) ?? 0) + 1);
  }
  return counts;
}

describe('pollStatuses: a tracker through its lifecycle', () => {
  it('is read when due, stores its status and events, and queues each platform change once', async () => {
    const shop = await connectedShop('life');
    const [number] = numbers(1);
    const [id] = await addTrackers(shop, [number!]);
    const created = await prisma.tracker.findUniqueOrThrow({ where: { id: id! } });
    // The reconciler made it due (firstPollMs 0); nothing has been read yet.
    expect(created).toMatchObject({ remote: 'present', status: null, statusCheckedAt: null });
    expect(created.nextPollAt).not.toBeNull();
    let at = later(new Date(), 1_000);
    await onlyDue([id!], created.nextPollAt!);

    // Pending at the service: no event yet, read again after preTransitMs.
    expect(await pollAt(at)).toMatchObject({ claimed: 1, polled: 1, eventsQueued: 0, failed: 0 });
    let row = await prisma.tracker.findUniqueOrThrow({ where: { id: id! } });
    expect(row).toMatchObject({
      status: 'pending',
      statusDetail: null,
      pollFailures: 0,
      pollLeaseOwner: null,
    });
    expect(row.statusCheckedAt).toEqual(at);
    expect(row.nextPollAt).toEqual(later(at, policy.preTransitMs));
    expect(JSON.parse(row.events!)).toEqual([]);

    // Not due a second early.
    expect((await pollAt(later(at, policy.preTransitMs - 1_000))).claimed).toBe(0);

    const steps: Array<{
      advance: number;
      status: string;
      detail: string;
      interval: number | null;
    }> = [
      {
        advance: stepOffsetsSeconds.labelCreated,
        status: 'pre_transit',
        detail: 'label_created',
        interval: policy.preTransitMs,
      },
      {
        advance: stepOffsetsSeconds.pickedUp,
        status: 'in_transit',
        detail: 'picked_up',
        interval: policy.movingMs,
      },
      {
        advance: stepOffsetsSeconds.arrivedAtFacility,
        status: 'in_transit',
        detail: 'arrived_at_facility',
        interval: policy.movingMs,
      },
      {
        advance: stepOffsetsSeconds.outForDelivery,
        status: 'in_transit',
        detail: 'out_for_delivery',
        interval: policy.outForDeliveryMs,
      },
      { advance: stepOffsetsSeconds.delivered, status: 'delivered', detail: 'delivered', interval: null },
    ];
    let advanced = 0;
    for (const [i, step] of steps.entries()) {
      await emulator.control.advanceClock(step.advance - advanced);
      advanced = step.advance;
      at = row.nextPollAt!;
      const stats = await pollAt(at);
      expect(stats, step.detail).toMatchObject({
        claimed: 1,
        polled: 1,
        eventsQueued: 1,
        stopped: step.interval ? 0 : 1,
      });

      row = await prisma.tracker.findUniqueOrThrow({ where: { id: id! } });
      expect(row, step.detail).toMatchObject({ status: step.status, statusDetail: step.detail });
      expect(row.nextPollAt).toEqual(step.interval === null ? null : later(at, step.interval));
      const events = JSON.parse(row.events!) as Array<{ status: string; statusDetail: string | null }>;
      expect(events).toHaveLength(i + 1);
      expect(events.at(-1)).toMatchObject({ status: step.status, statusDetail: step.detail });

      // What the service says, read independently: the queued rows are its events, one per change.
      const shipment = await client.getShipment(shop.creds, {
        trackingNumber: number!,
        trackingProvider: 'ups',
      });
      if (!shipment.ok) throw new Error(shipment.error.message);
      expect(row.lastEventAt).toEqual(parseServiceTime(shipment.value.lastEventTime));
      expect(row.lastEventMessage).toBe(shipment.value.events.at(-1)!.message);
      expect(row.estimatedDelivery).toBe(shipment.value.estimatedDeliveryDate);
      const rows = await queued(id!);
      expect(rows.map((r) => r.status)).toEqual(fullLifecycleStatuses.slice(0, i + 1));
      expect(rows.map((r) => r.happenedAt)).toEqual(
        shipment.value.events.map((e) => parseServiceTime(e.datetime)),
      );
      const last = rows.at(-1)!;
      const lastEvent = shipment.value.events.at(-1)!;
      expect(last).toMatchObject({
        shopId: shop.shop.id,
        fulfillmentId: '5500000000001',
        state: 'pending',
        message: lastEvent.message,
        city: lastEvent.location?.city ?? null,
        province: lastEvent.location?.state ?? null,
        country: lastEvent.location?.country ?? null,
        zip: lastEvent.location?.zip ?? null,
        estimatedDeliveryAt: parseServiceTime(shipment.value.estimatedDeliveryDate),
      });

      // A duplicate poll of the same history (made due again at once) queues nothing more.
      await prisma.tracker.update({ where: { id: id! }, data: { nextPollAt: at } });
      expect(await pollAt(at)).toMatchObject({ polled: 1, eventsQueued: 0 });
      expect(await prisma.storeFulfillmentEvent.count({ where: { trackerId: id! } })).toBe(i + 1);
      row = await prisma.tracker.findUniqueOrThrow({ where: { id: id! } });
    }

    // Delivered: never read again, however late.
    expect(row.nextPollAt).toBeNull();
    expect((await pollAt(later(at, 30 * 24 * hour))).claimed).toBe(0);
    expect(await getCalls(shop.appName)).toEqual(new Map([[number!, 1 + steps.length * 2 + steps.length]]));
  });

  it('a dropped status_detail is a plain in-transit scan: the next in-transit scan is no change', async () => {
    const shop = await connectedShop('drop');
    const [number] = numbers(1, dropsPickedUpDetail);
    const [id] = await addTrackers(shop, [number!]);
    await emulator.control.advanceClock(stepOffsetsSeconds.arrivedAtFacility);
    const at = later(new Date(), 1_000);
    await onlyDue([id!], at);
    expect(await pollAt(at)).toMatchObject({ polled: 1, eventsQueued: 2 });
    expect((await queued(id!)).map((r) => r.status)).toEqual(['LABEL_PRINTED', 'IN_TRANSIT']);
  });

  it('queues one row per active fulfilment of the tracker, none for an inactive one', async () => {
    const shop = await connectedShop('multi');
    const [id] = await addTrackers(shop, numbers(1), ['5500000000011', '5500000000012', '5500000000013']);
    await prisma.trackingLine.updateMany({
      where: { trackerId: id!, fulfillmentId: '5500000000013' },
      data: { active: false },
    });
    await emulator.control.advanceClock(stepOffsetsSeconds.pickedUp);
    const at = later(new Date(), 1_000);
    await onlyDue([id!], at);
    expect(await pollAt(at)).toMatchObject({ polled: 1, eventsQueued: 4 });
    expect((await queued(id!)).map((r) => `${r.fulfillmentId}:${r.status}`)).toEqual([
      '5500000000011:LABEL_PRINTED',
      '5500000000011:CARRIER_PICKED_UP',
      '5500000000012:LABEL_PRINTED',
      '5500000000012:CARRIER_PICKED_UP',
    ]);
  });

  it('a shop that does not write to the store gets its statuses read but queues nothing', async () => {
    const shop = await connectedShop('nowrite', { postFulfillmentEvents: false });
    const [id] = await addTrackers(shop, numbers(1));
    await emulator.control.advanceClock(stepOffsetsSeconds.pickedUp);
    const at = later(new Date(), 1_000);
    await onlyDue([id!], at);
    expect(await pollAt(at)).toMatchObject({ polled: 1, eventsQueued: 0 });
    expect(await prisma.tracker.findUniqueOrThrow({ where: { id: id! } })).toMatchObject({
      status: 'in_transit',
      statusDetail: 'picked_up',
    });
    expect(await prisma.storeFulfillmentEvent.count({ where: { trackerId: id! } })).toBe(0);
  });
});

describe('pollStatuses: several pollers', () => {
  it('two pollers at once read each tracker once and queue nothing twice', async () => {
    const shop = await connectedShop('two');
    const ids = await addTrackers(shop, numbers(8));
    await emulator.control.advanceClock(stepOffsetsSeconds.pickedUp);
    const at = later(new Date(), 1_000);
    await onlyDue(ids, at);
    // A second client on the same database, as another worker process has.
    const second = await createDatabase(db.url);
    try {
      const [a, b] = await Promise.all([
        pollAt(at, { perShop: 100, limit: 100, concurrency: 3 }, { owner: 'poller-a' }),
        pollAt(
          at,
          { perShop: 100, limit: 100, concurrency: 3 },
          { owner: 'poller-b', prisma: second.prisma },
        ),
      ]);
      expect(a.polled + b.polled).toBe(8);
      expect(a.eventsQueued + b.eventsQueued).toBe(16);
    } finally {
      await second.close();
    }
    const calls = await getCalls(shop.appName);
    expect([...calls.values()]).toEqual(Array(8).fill(1));
    for (const id of ids)
      expect((await queued(id)).map((r) => r.status)).toEqual(['LABEL_PRINTED', 'CARRIER_PICKED_UP']);
  });

  it('is fair: a shop with 2 due trackers is read in the first pass beside one with 50 more overdue', async () => {
    const big = await connectedShop('big');
    const small = await connectedShop('small');
    const bigIds = await addTrackers(
      big,
      numbers(50, () => true),
    );
    const smallIds = await addTrackers(
      small,
      numbers(2, () => true),
    );
    const at = later(new Date(), 1_000);
    await onlyDue([...bigIds, ...smallIds], at);
    // The big shop's work is the most overdue.
    await prisma.tracker.updateMany({
      where: { id: { in: bigIds } },
      data: { nextPollAt: later(at, -10 * minute) },
    });
    await prisma.tracker.updateMany({
      where: { id: { in: smallIds } },
      data: { nextPollAt: later(at, -minute) },
    });

    const first = await pollAt(at, { limit: 20, perShop: 10, concurrency: 4 });
    expect(first).toMatchObject({ claimed: 12, polled: 12 });
    const read = await prisma.tracker.findMany({
      where: { id: { in: [...bigIds, ...smallIds] }, statusCheckedAt: { not: null } },
      select: { shopId: true },
    });
    expect(read.filter((r) => r.shopId === small.shop.id)).toHaveLength(2);
    expect(read.filter((r) => r.shopId === big.shop.id)).toHaveLength(10);

    // The rest of the big shop follows, at most perShop a pass.
    const passes: number[] = [];
    for (let i = 0; i < 6; i++)
      passes.push((await pollAt(at, { limit: 20, perShop: 10, concurrency: 4 })).claimed);
    expect(passes).toEqual([10, 10, 10, 10, 0, 0]);
    expect(
      await prisma.tracker.count({ where: { id: { in: bigIds }, statusCheckedAt: { not: null } } }),
    ).toBe(50);
    expect([...(await getCalls(big.appName)).values()]).toEqual(Array(50).fill(1));
  });
});

async function callCount(appName: string, operation: 'get' | 'by-order-id'): Promise<number> {
  return (await emulator.control.calls({ appName, operation })).length;
}

describe('pollStatuses: trackers of one order due together', () => {
  it('are read with one by-order-id call; full gets only for parcels whose listing shows news without its estimate', async () => {
    const shop = await connectedShop('order');
    const ids = await addTrackers(shop, numbers(3), ['5500000000021'], `ORD-${run}-1`);
    let at = later(new Date(), 1_000);
    await onlyDue(ids, at);

    // First read: every parcel is news (nothing stored yet) and the listing carries no estimate.
    expect(await pollAt(at)).toMatchObject({ claimed: 3, polled: 3, failed: 0 });
    expect(await callCount(shop.appName, 'by-order-id')).toBe(1);
    expect(await callCount(shop.appName, 'get')).toBe(3);
    const first = await prisma.tracker.findMany({ where: { id: { in: ids } }, orderBy: { id: 'asc' } });
    expect(first.every((t) => t.status === 'pending')).toBe(true);

    // The service moves them on: one listing call, then one full read each for its new estimate.
    await emulator.control.advanceClock(stepOffsetsSeconds.pickedUp);
    at = later(at, policy.preTransitMs);
    await onlyDue(ids, at);
    expect(await pollAt(at)).toMatchObject({ polled: 3, eventsQueued: 6 });
    expect(await callCount(shop.appName, 'by-order-id')).toBe(2);
    expect(await callCount(shop.appName, 'get')).toBe(6);
    const moved = await prisma.tracker.findMany({ where: { id: { in: ids } }, orderBy: { id: 'asc' } });
    for (const row of moved) {
      expect(row).toMatchObject({ status: 'in_transit', statusDetail: 'picked_up', pollLeaseOwner: null });
      const shipment = await client.getShipment(shop.creds, {
        trackingNumber: row.trackingNumber,
        trackingProvider: 'ups',
      });
      if (!shipment.ok) throw new Error(shipment.error.message);
      expect(row.estimatedDelivery).toBe(shipment.value.estimatedDeliveryDate);
      expect(row.estimatedDelivery).not.toBeNull();
    }

    // Nothing new: the listing alone, and what it leaves out (the estimate) keeps its stored value.
    at = later(at, policy.movingMs);
    await onlyDue(ids, at);
    const before = { get: await callCount(shop.appName, 'get') };
    expect(await pollAt(at)).toMatchObject({ polled: 3, eventsQueued: 0, changed: 0 });
    expect(await callCount(shop.appName, 'by-order-id')).toBe(3);
    expect(await callCount(shop.appName, 'get')).toBe(before.get);
    const after = await prisma.tracker.findMany({ where: { id: { in: ids } }, orderBy: { id: 'asc' } });
    expect(after.map((t) => [t.estimatedDelivery, t.events])).toEqual(
      moved.map((t) => [t.estimatedDelivery, t.events]),
    );
    expect(after.every((t) => t.statusCheckedAt?.getTime() === at.getTime())).toBe(true);
    expect(after.every((t) => t.nextPollAt?.getTime() === later(at, policy.movingMs).getTime())).toBe(true);
  });

  it('a failing listing backs every tracker of the order off after one call, with no get each', async () => {
    const shop = await connectedShop('order-fail');
    const ids = await addTrackers(shop, numbers(3), ['5500000000022'], `ORD-${run}-2`);
    const at = later(new Date(), 1_000);
    await onlyDue(ids, at);
    await emulator.control.setFaults({ errorRate: 1, operations: ['by-order-id'] });
    expect(await pollAt(at)).toMatchObject({ claimed: 3, polled: 0, failed: 3 });
    expect(await callCount(shop.appName, 'by-order-id')).toBe(1);
    expect(await callCount(shop.appName, 'get')).toBe(0);
    const rows = await prisma.tracker.findMany({ where: { id: { in: ids } } });
    for (const row of rows) {
      expect(row).toMatchObject({ pollFailures: 1, status: null, pollLeaseOwner: null });
      expect(row.nextPollAt).toEqual(later(at, 15 * minute));
    }
  });

  it("a parcel the order's listing does not hold is read alone", async () => {
    const shop = await connectedShop('order-missing');
    const order = `ORD-${run}-3`;
    const ids = await addTrackers(shop, numbers(2), ['5500000000023'], order);
    // Created at the service under another order id, wanted here under this one.
    const [stray] = await addTrackers(shop, numbers(1), ['5500000000023'], `ORD-${run}-4`);
    await prisma.tracker.update({ where: { id: stray! }, data: { orderKey: order } });
    const at = later(new Date(), 1_000);
    await onlyDue([...ids, stray!], at);
    expect(await pollAt(at)).toMatchObject({ claimed: 3, polled: 3, failed: 0, notFound: 0 });
    expect(await callCount(shop.appName, 'by-order-id')).toBe(1);
    const strayNumber = (await prisma.tracker.findUniqueOrThrow({ where: { id: stray! } })).trackingNumber;
    // Two full reads for the listed parcels' first news, one for the stray parcel.
    expect((await getCalls(shop.appName)).get(strayNumber)).toBe(1);
    expect(await callCount(shop.appName, 'get')).toBe(3);
  });
});

describe('pollStatuses while the shop gets status pushes', () => {
  it('a read that finds nothing new keeps the safety-net schedule', async () => {
    const shop = await connectedShop('push-quiet');
    const [id] = await addTrackers(shop, numbers(1));
    const at = later(new Date(), 1_000);
    await onlyDue([id!], at);
    await prisma.shop.update({ where: { id: shop.shop.id }, data: { lastStatusPushAt: at } });
    expect(await pollAt(at)).toMatchObject({ polled: 1 });
    const row = await prisma.tracker.findUniqueOrThrow({ where: { id: id! } });
    // Pending: 4 usual intervals (24 h), the day's safety net.
    expect(row.nextPollAt).toEqual(later(at, Math.min(24 * hour, 4 * policy.preTransitMs)));
    expect((await prisma.shop.findUniqueOrThrow({ where: { id: shop.shop.id } })).lastStatusPushAt).toEqual(
      at,
    );
  });

  it('a safety-net read that finds news no push brought: back to polling as usual, the others read soon', async () => {
    const shop = await connectedShop('push-stopped');
    const [id, other] = await addTrackers(shop, numbers(2));
    await emulator.control.advanceClock(stepOffsetsSeconds.pickedUp);
    // A day on in the emulator's time, the events are long past; the last push came 12 hours ago.
    const at = new Date(emulator.state.clock.nowMs() + 24 * hour);
    await onlyDue([id!], at);
    await prisma.tracker.update({ where: { id: other! }, data: { nextPollAt: later(at, 20 * hour) } });
    await prisma.shop.update({
      where: { id: shop.shop.id },
      data: { lastStatusPushAt: later(at, -12 * hour) },
    });

    expect(await pollAt(at)).toMatchObject({ polled: 1, eventsQueued: 2 });
    expect(
      (await prisma.shop.findUniqueOrThrow({ where: { id: shop.shop.id } })).lastStatusPushAt,
    ).toBeNull();
    const row = await prisma.tracker.findUniqueOrThrow({ where: { id: id! } });
    expect(row.status).toBe('in_transit');
    expect(row.nextPollAt).toEqual(later(at, policy.movingMs));
    const pulled = await prisma.tracker.findUniqueOrThrow({ where: { id: other! } });
    expect(pulled.nextPollAt).toEqual(at);
  });

  it('a read older than what a push stored changes nothing but the next read', async () => {
    const shop = await connectedShop('push-newer');
    const [id] = await addTrackers(shop, numbers(1));
    const at = later(new Date(), 1_000);
    await onlyDue([id!], at);
    // Newer than the read, yet within a day: a stored time further ahead holds no read back (read-bounds.ts).
    const future = later(at, hour);
    await prisma.tracker.update({
      where: { id: id! },
      data: { status: 'delivered', lastEventAt: future, events: '[]' },
    });
    expect(await pollAt(at)).toMatchObject({ polled: 1 });
    const row = await prisma.tracker.findUniqueOrThrow({ where: { id: id! } });
    expect(row).toMatchObject({ status: 'delivered', lastEventAt: future, pollLeaseOwner: null });
    expect(row.nextPollAt!.getTime()).toBeGreaterThan(at.getTime());
  });
});

describe('pollStatuses: shops and trackers that are not read', () => {
  it('a paused or uninstalled shop is not polled; once resumed it is', async () => {
    const paused = await connectedShop('paused');
    const gone = await connectedShop('gone');
    const [pausedId] = await addTrackers(paused, numbers(1));
    const [goneId] = await addTrackers(gone, numbers(1));
    const at = later(new Date(), 1_000);
    await onlyDue([pausedId!, goneId!], at);
    await shops.pause(paused.shop.id, 'balance_exhausted', 'no trackers left', null);
    await prisma.shop.update({ where: { id: gone.shop.id }, data: { uninstalledAt: new Date() } });

    expect((await pollAt(at)).claimed).toBe(0);
    expect(await getCalls(paused.appName)).toEqual(new Map());
    expect(await getCalls(gone.appName)).toEqual(new Map());

    await shops.resumeAfterProbe(paused.shop.id);
    expect(await pollAt(at)).toMatchObject({ claimed: 1, polled: 1 });
    expect((await prisma.tracker.findUniqueOrThrow({ where: { id: pausedId! } })).status).toBe('pending');
    expect((await prisma.tracker.findUniqueOrThrow({ where: { id: goneId! } })).statusCheckedAt).toBeNull();
  });

  it('a tracker the service no longer holds goes back to the reconciler and is not polled', async () => {
    const shop = await connectedShop('gone-remote');
    const [number] = numbers(1);
    const [id] = await addTrackers(shop, [number!]);
    const at = later(new Date(), 1_000);
    await onlyDue([id!], at);
    const deleted = await client.deleteTracker(shop.creds, {
      trackingNumber: number!,
      trackingProvider: 'ups',
      orderId: (await prisma.tracker.findUniqueOrThrow({ where: { id: id! } })).orderKey,
    });
    expect(deleted.ok).toBe(true);

    expect(await pollAt(at)).toMatchObject({ claimed: 1, notFound: 1, polled: 0, failed: 0 });
    const row = await prisma.tracker.findUniqueOrThrow({ where: { id: id! } });
    expect(row).toMatchObject({
      remote: 'unknown',
      syncState: 'pending',
      desired: 'active',
      nextPollAt: null,
      pollLeaseOwner: null,
      pollFailures: 0,
    });
    expect(row.nextAttemptAt.getTime()).toBeLessThanOrEqual(at.getTime());
    expect((await pollAt(later(at, 365 * 24 * hour))).claimed).toBe(0);

    // The reconciler looks it up, creates it again, and polling resumes.
    await reconcileAll(later(at, 1_000));
    const again = await prisma.tracker.findUniqueOrThrow({ where: { id: id! } });
    expect(again).toMatchObject({ remote: 'present', syncState: 'synced' });
    expect(again.nextPollAt).not.toBeNull();
    expect((await emulator.control.trackers(shop.appName)).map((t) => t.tracking_number)).toEqual([number]);
    expect(await pollAt(later(at, 1_000))).toMatchObject({ claimed: 1, polled: 1 });
  });

  it('a service error backs off (pollFailures, a later nextPollAt) and a success resets it', async () => {
    const shop = await connectedShop('errors');
    const [id] = await addTrackers(shop, numbers(1));
    let at = later(new Date(), 1_000);
    await onlyDue([id!], at);
    await emulator.control.setFaults({ errorRate: 1, operations: ['get'] });

    expect(await pollAt(at)).toMatchObject({ claimed: 1, failed: 1, polled: 0 });
    let row = await prisma.tracker.findUniqueOrThrow({ where: { id: id! } });
    expect(row).toMatchObject({ pollFailures: 1, status: null, pollLeaseOwner: null, remote: 'present' });
    expect(row.nextPollAt).toEqual(later(at, 15 * minute));
    expect(row.statusCheckedAt).toEqual(at);
    expect((await pollAt(later(at, 15 * minute - 1_000))).claimed).toBe(0);

    at = row.nextPollAt!;
    expect(await pollAt(at)).toMatchObject({ failed: 1 });
    row = await prisma.tracker.findUniqueOrThrow({ where: { id: id! } });
    expect(row.pollFailures).toBe(2);
    expect(row.nextPollAt).toEqual(later(at, 30 * minute));

    await emulator.control.setFaults({});
    at = row.nextPollAt!;
    expect(await pollAt(at)).toMatchObject({ polled: 1, failed: 0 });
    row = await prisma.tracker.findUniqueOrThrow({ where: { id: id! } });
    expect(row).toMatchObject({ pollFailures: 0, status: 'pending' });
    expect(row.nextPollAt).toEqual(later(at, policy.preTransitMs));
  });

  it('an answer about another tracking number is refused: nothing stored, the read backs off', async () => {
    const shop = await connectedShop('other-number');
    const [id] = await addTrackers(shop, numbers(1));
    const at = later(new Date(), 1_000);
    await onlyDue([id!], at);
    await emulator.control.script([
      {
        operation: 'get',
        body: {
          status: 'ok',
          data: {
            tracking_number: '1ZSOMEONEELSE0001',
            tracking_provider: 'ups',
            tracking_event_status: 'delivered',
            events: [{ message: 'Delivered', status: 'delivered', datetime: '2026-11-20 10:00:00' }],
          },
        },
      },
    ]);
    expect(await pollAt(at)).toMatchObject({ claimed: 1, failed: 1, polled: 0 });
    const row = await prisma.tracker.findUniqueOrThrow({ where: { id: id! } });
    expect(row).toMatchObject({ pollFailures: 1, status: null, events: null, remote: 'present' });
    expect(await queued(id!)).toEqual([]);
  });

  it('a shop with no stored API key is put off, not read', async () => {
    const shop = await connectedShop('nokey');
    const [id] = await addTrackers(shop, numbers(1));
    const at = later(new Date(), 1_000);
    await onlyDue([id!], at);
    await prisma.shop.update({ where: { id: shop.shop.id }, data: { apiKeyCiphertext: null } });
    expect(await pollAt(at)).toMatchObject({ claimed: 1, failed: 1, polled: 0 });
    const row = await prisma.tracker.findUniqueOrThrow({ where: { id: id! } });
    expect(row.pollFailures).toBe(1);
    expect(row.nextPollAt!.getTime()).toBeGreaterThan(at.getTime());
    expect(await getCalls(shop.appName)).toEqual(new Map());
  });
});

/**
 * The same client, except that a poll-lease claim (tracker.updateMany writing a pollLeaseOwner) first
 * calls `reached` and waits for `gate`.
 */
