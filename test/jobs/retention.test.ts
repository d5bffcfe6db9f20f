import { createAppContext } from '../../src/context/app-context.js';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/db/client.js';
import { createDatabase } from '../../src/db/client.js';
import type { Prisma, Shop, Tracker } from '../../src/generated/sqlite/client.js';
import { createRetention, type RetentionSettings } from '../../src/jobs/retention.js';
import { createWorker } from '../../src/jobs/worker.js';
import { silentLogger } from '../../src/logger.js';
import { storeShipmentRead } from '../../src/shipments/poll-statuses.js';
import { createTrackingClient } from '../../src/tracking/client.js';
import type { Shipment, TrackingEvent } from '../../src/tracking/types.js';
import { recordDelivery } from '../../src/webhooks/record-delivery.js';
import type { VerifiedDelivery } from '../../src/webhooks/verify.js';
import { defaultTestProvider, useTestDatabase } from '../helpers/database.js';
import { createDelivery, createShop, createTracker, testKeyring } from '../helpers/factories.js';
import { storeHolding } from '../helpers/store-confirmer.js';

/**
 * Retention (src/jobs/retention.ts) on a real database: what goes, what stays, the duplicate window, store
 * events that are never written twice, ended trackers with their lines and fulfilments, bounded batches,
 * and the worker running it.
 */

const db = useTestDatabase({ reset: true });
let prisma: DatabaseClient;

beforeAll(async () => {
  prisma = db.prisma;
});

const day = 24 * 3_600_000;
const now = new Date();
const ago = (ms: number) => new Date(now.getTime() - ms);
const later = (ms: number) => new Date(now.getTime() + ms);

function retention(settings: Partial<RetentionSettings> = {}) {
  return createRetention({ prisma }, { batchSize: 50, ...settings });
}

function verified(eventId: string): VerifiedDelivery {
  const rawBody = JSON.stringify({ id: 1, tracking_numbers: ['1Z1'] });
  return {
    topic: 'fulfillments/create',
    shopDomain: 'retention-shop.myshopify.com',
    webhookId: randomUUID(),
    eventId,
    apiVersion: '2026-10',
    triggeredAt: now,
    rawBody,
    payload: JSON.parse(rawBody) as Record<string, unknown>,
  };
}

describe('webhook deliveries', () => {
  it('deletes processed ones after the duplicate window and failed ones after theirs; pending ones never', async () => {
    const make = (state: 'pending' | 'processed' | 'failed', lastAttempt: Date) =>
      createDelivery(prisma, state === 'processed' ? '' : '{}', {
        state,
        nextAttemptAt: lastAttempt,
        receivedAt: lastAttempt,
      });
    const gone = [await make('processed', ago(8 * day)), await make('failed', ago(31 * day))];
    const kept = [
      await make('processed', ago(6 * day)),
      // A failed delivery waits for an operator well past the duplicate window.
      await make('failed', ago(20 * day)),
      // Never worked off (a backlog, a shop that never comes back): never deleted.
      await make('pending', ago(300 * day)),
    ];

    const pass = await retention().runPass({ now });

    expect(pass.rules.deliveries).toEqual({ batches: 1, rows: 1 });
    expect(pass.rules.failedDeliveries).toEqual({ batches: 1, rows: 1 });
    const left = (await prisma.webhookDelivery.findMany({ select: { id: true } })).map((d) => d.id);
    expect(left.sort()).toEqual(kept.map((d) => d.id).sort());
    expect(left).not.toContain(gone[0]!.id);
  });

  it('a duplicate inside the window is still refused after retention ran; the window is the setting', async () => {
    const first = await recordDelivery(prisma, verified('event-dup'));
    expect(first.kind).toBe('recorded');
    if (first.kind !== 'recorded') return;
    // The worker applied it: processed, body emptied.
    await prisma.webhookDelivery.update({
      where: { id: first.id },
      data: { state: 'processed', payload: '', processedAt: now },
    });

    // Six days on (the platform retries for 48 h), a pass keeps it, and the same event id is a duplicate.
    await retention().runPass({ now: later(6 * day) });
    expect(await recordDelivery(prisma, verified('event-dup'))).toEqual({ kind: 'duplicate' });

    // Past the window it goes.
    const pass = await retention().runPass({ now: later(7 * day + 60_000) });
    expect(pass.rules.deliveries!.rows).toBe(1);
    expect(await prisma.webhookDelivery.count()).toBe(0);
  });
});

describe('status pushes', () => {
  it('deletes applied, stale and dropped pushes after the window, failed ones after theirs, pending never', async () => {
    const shop = await createShop(prisma);
    const push = (state: string, lastAttempt: Date) =>
      prisma.statusPush.create({
        data: {
          shopId: shop.id,
          dedupeKey: randomUUID(),
          payload: '{}',
          state,
          receivedAt: lastAttempt,
          nextAttemptAt: lastAttempt,
        },
      });
    await push('applied', ago(8 * day));
    await push('stale', ago(8 * day));
    await push('dropped', ago(8 * day));
    await push('failed', ago(31 * day));
    const kept = [
      await push('applied', ago(6 * day)),
      await push('failed', ago(20 * day)),
      await push('pending', ago(300 * day)),
    ];

    const pass = await retention().runPass({ now });

    expect(pass.rules.statusPushes!.rows).toBe(3);
    expect(pass.rules.failedStatusPushes!.rows).toBe(1);
    const left = (await prisma.statusPush.findMany({ select: { id: true } })).map((p) => p.id);
    expect(left.sort()).toEqual(kept.map((p) => p.id).sort());
  });
});

/** A service event `daysAgo` days before now, as the service writes its times (UTC, no zone). */
function event(status: string, daysAgo: number, message = status): TrackingEvent {
  const at = ago(daysAgo * day)
    .toISOString()
    .slice(0, 19)
    .replace('T', ' ');
  return {
    message,
    description: null,
    status,
    statusDetail: status,
    datetime: at,
    source: 'UPS',
    location: { city: 'Louisville', state: 'KY', country: 'US', zip: '40003' },
  };
}

function shipment(trackingNumber: string, events: TrackingEvent[]): Shipment {
  return {
    orderId: '1001',
    trackingNumber,
    trackingProvider: 'ups',
    status: events.at(-1)!.status,
    estimatedDeliveryDate: null,
    originCountry: 'US',
    destinationCountry: 'US',
    deliveryNumber: null,
    deliveryProvider: null,
    shippingService: null,
    shippingServiceRaw: null,
    lastEventTime: events.at(-1)!.datetime,
    events,
    destinationEvents: [],
  };
}

/** The tracker as a read loads it (with its wanted lines and its shop). */
async function readTarget(id: string) {
  const tracker = await prisma.tracker.findUniqueOrThrow({
    where: { id },
    include: { shop: true, lines: { where: { active: true }, select: { fulfillmentId: true } } },
  });
  return tracker;
}

async function line(
  shop: Shop,
  tracker: Tracker | null,
  fulfillmentId: string,
  data: Partial<Prisma.TrackingLineUncheckedCreateInput> = {},
) {
  return prisma.trackingLine.create({
    data: {
      shopId: shop.id,
      fulfillmentId,
      orderId: '1001',
      trackingNumber: tracker?.trackingNumber ?? `UNMAPPED-${fulfillmentId}`,
      trackerId: tracker?.id ?? null,
      ...data,
    },
  });
}

describe('store fulfilment events', () => {
  /** A delivered tracker on fulfilment F1 whose three changes were written to the store 37 days ago. */
  async function writtenLongAgo() {
    const shop = await createShop(prisma);
    const tracker = await createTracker(prisma, shop.id, {
      desired: 'active',
      remote: 'present',
      syncState: 'synced',
      status: 'delivered',
    });
    await line(shop, tracker, 'F1');
    const history = [event('label_created', 40), event('in_transit', 39), event('delivered', 38)];
    const read = (target: Awaited<ReturnType<typeof readTarget>>, events: TrackingEvent[], at = now) =>
      storeShipmentRead({ prisma }, target, shipment(tracker.trackingNumber, events), at, { guard: {} });
    expect((await read(await readTarget(tracker.id), history, ago(38 * day))).eventsQueued).toBe(3);
    await prisma.storeFulfillmentEvent.updateMany({
      data: { state: 'sent', storeEventId: 'gid://shopify/FulfillmentEvent/1', nextAttemptAt: ago(37 * day) },
    });
    const deliveredAt = new Date(`${history.at(-1)!.datetime.replace(' ', 'T')}Z`);
    return { shop, tracker, history, read, deliveredAt };
  }

  it('deletes written events, marks the tracker, and a read never queues them again', async () => {
    const { shop, tracker, history, read, deliveredAt } = await writtenLongAgo();
    // A refused write (shown on the page) and one still waiting: kept whatever their age.
    for (const [state, status] of [
      ['failed', 'OUT_FOR_DELIVERY'],
      ['pending', 'ATTEMPTED_DELIVERY'],
    ] as const) {
      await prisma.storeFulfillmentEvent.create({
        data: {
          shopId: shop.id,
          trackerId: tracker.id,
          fulfillmentId: 'F1',
          status,
          happenedAt: ago(38.5 * day),
          state,
          nextAttemptAt: ago(37 * day),
        },
      });
    }
    // A read in flight: it loaded the tracker before the pass.
    const inFlight = await readTarget(tracker.id);

    const pass = await retention().runPass({ now });

    expect(pass.rules.storeEvents).toEqual({ batches: 1, rows: 3 });
    const left = await prisma.storeFulfillmentEvent.findMany();
    expect(left.map((e) => e.state).sort()).toEqual(['failed', 'pending']);
    expect(
      (await prisma.tracker.findUniqueOrThrow({ where: { id: tracker.id } })).storeEventsThrough,
    ).toEqual(deliveredAt);
    // The same history read again (a poll, a push, a shopper's look), also by the read that loaded the
    // tracker before the pass: nothing is queued twice; a new change is.
    expect((await read(inFlight, history)).eventsQueued).toBe(0);
    expect((await read(await readTarget(tracker.id), history)).eventsQueued).toBe(0);
    const next = [...history, event('return_to_sender', 1)];
    expect((await read(await readTarget(tracker.id), next)).eventsQueued).toBe(1);
    const queued = await prisma.storeFulfillmentEvent.findMany({
      where: { state: 'pending', status: 'FAILURE' },
    });
    expect(queued).toHaveLength(1);
    expect(await prisma.storeFulfillmentEvent.count()).toBe(3);
  });

  it('keeps written events younger than the setting; skipped ones go like written ones', async () => {
    const shop = await createShop(prisma);
    const tracker = await createTracker(prisma, shop.id, { remote: 'present', syncState: 'synced' });
    const row = (status: string, state: string, queued: Date) =>
      prisma.storeFulfillmentEvent.create({
        data: {
          shopId: shop.id,
          trackerId: tracker.id,
          fulfillmentId: 'F1',
          status,
          happenedAt: queued,
          state,
          nextAttemptAt: queued,
        },
      });
    await row('IN_TRANSIT', 'skipped', ago(31 * day));
    const young = await row('DELIVERED', 'sent', ago(10 * day));

    await retention().runPass({ now });

    const left = await prisma.storeFulfillmentEvent.findMany({ select: { id: true } });
    expect(left).toEqual([{ id: young.id }]);
  });

  it.runIf(defaultTestProvider() === 'postgresql')(
    'PostgreSQL: a read inserting while a batch deletes waits for it and sees its mark',
    async () => {
      const { tracker, history, read, deliveredAt } = await writtenLongAgo();
      const stale = await readTarget(tracker.id);
      const other = await createDatabase(db.url);
      let reading: ReturnType<typeof read> | undefined;
      try {
        // A retention batch, held open between its statements: the mark raised, the rows deleted.
        await other.prisma.$transaction(async (tx) => {
          await tx.$executeRawUnsafe(
            `UPDATE "Tracker" SET "storeEventsThrough" = $1::timestamp(3) WHERE "id" = $2`,
            deliveredAt.toISOString(),
            tracker.id,
          );
          await tx.$executeRawUnsafe(
            `DELETE FROM "StoreFulfillmentEvent" WHERE "trackerId" = $1`,
            tracker.id,
          );
          reading = read(stale, history);
          await new Promise((resolve) => setTimeout(resolve, 300));
        });
      } finally {
        await other.close();
      }
      expect((await reading!).eventsQueued).toBe(0);
      expect(await prisma.storeFulfillmentEvent.count()).toBe(0);
    },
  );
});

describe('ended trackers, their lines and fulfilments', () => {
  it('deletes ended trackers with their lines, fulfilments and tracking links after the retention; active ones never', async () => {
    const shop = await createShop(prisma);
    const old = ago(401 * day);
    const tracker = (overrides: Parameters<typeof createTracker>[2]) =>
      createTracker(prisma, shop.id, { syncState: 'synced', nextAttemptAt: old, ...overrides });
    const quiet = async (t: Tracker, at = old) =>
      prisma.tracker.update({ where: { id: t.id }, data: { updatedAt: at } });
    const fulfillment = (fulfillmentId: string, updatedAt = old) =>
      prisma.fulfillment.create({
        data: {
          shopId: shop.id,
          fulfillmentId,
          orderId: '1001',
          status: 'success',
          sourceUpdatedAt: updatedAt,
          updatedAt,
        },
      });

    // Delivered long ago, on two fulfilments, one of which had the store's tracking page link.
    const delivered = await tracker({ desired: 'active', remote: 'present', status: 'delivered' });
    await line(shop, delivered, 'F-delivered-1');
    await line(shop, delivered, 'F-delivered-2');
    await fulfillment('F-delivered-1');
    await fulfillment('F-delivered-2');
    await prisma.storeTrackingLink.create({
      data: {
        shopId: shop.id,
        fulfillmentId: 'F-delivered-1',
        wanted: 'store',
        applied: 'store',
        state: 'sent',
      },
    });
    await prisma.storeFulfillmentEvent.create({
      data: {
        shopId: shop.id,
        trackerId: delivered.id,
        fulfillmentId: 'F-delivered-1',
        status: 'DELIVERED',
        happenedAt: old,
        state: 'sent',
        nextAttemptAt: old,
      },
    });
    // Cancelled long ago: removed at the service.
    const removed = await tracker({ desired: 'removed', remote: 'absent', status: 'in_transit' });
    await line(shop, removed, 'F-removed', { active: false, endedReason: 'fulfillment_cancelled' });
    await fulfillment('F-removed');
    // A fulfilment with no tracking number, and a line whose carrier never mapped (ended).
    await fulfillment('F-no-number');
    await line(shop, null, 'F-unmapped', { active: false, endedReason: 'number_removed', updatedAt: old });
    await fulfillment('F-unmapped');
    for (const t of [delivered, removed]) await quiet(t);

    // Kept: still read, still to sync, delivered within the retention, a line still waiting for its carrier.
    const read = await tracker({
      desired: 'active',
      remote: 'present',
      status: 'in_transit',
      nextPollAt: later(day),
    });
    const syncing = await tracker({ desired: 'active', remote: 'absent', syncState: 'pending' });
    const recent = await tracker({ desired: 'active', remote: 'present', status: 'delivered' });
    await line(shop, read, 'F-read');
    await line(shop, syncing, 'F-syncing');
    await line(shop, recent, 'F-recent');
    await line(shop, null, 'F-waiting', { updatedAt: old });
    for (const id of ['F-read', 'F-syncing', 'F-recent', 'F-waiting']) await fulfillment(id);
    await fulfillment('F-new', ago(10 * day));
    for (const t of [read, syncing]) await quiet(t);
    await quiet(recent, ago(399 * day));

    const pass = await retention().runPass({ now });

    // Two trackers with their three lines.
    expect(pass.rules.trackers!.rows).toBe(5);
    const trackers = (await prisma.tracker.findMany({ select: { id: true } })).map((t) => t.id);
    expect(trackers.sort()).toEqual([read.id, syncing.id, recent.id].sort());
    const lines = await prisma.trackingLine.findMany({ select: { fulfillmentId: true } });
    expect(lines.map((l) => l.fulfillmentId).sort()).toEqual([
      'F-read',
      'F-recent',
      'F-syncing',
      'F-waiting',
    ]);
    const fulfillments = await prisma.fulfillment.findMany({ select: { fulfillmentId: true } });
    expect(fulfillments.map((f) => f.fulfillmentId).sort()).toEqual([
      'F-new',
      'F-read',
      'F-recent',
      'F-syncing',
      'F-waiting',
    ]);
    expect(await prisma.storeTrackingLink.count()).toBe(0);
    // The deleted tracker's store events went with it.
    expect(await prisma.storeFulfillmentEvent.count()).toBe(0);
  });

  it('a tracking link stays while its fulfilment has lines (it alone says the store holds the app’s link)', async () => {
    const shop = await createShop(prisma);
    const live = await createTracker(prisma, shop.id, {
      remote: 'present',
      syncState: 'synced',
      nextPollAt: later(day),
    });
    await line(shop, live, 'F-live');
    await prisma.fulfillment.create({
      data: {
        shopId: shop.id,
        fulfillmentId: 'F-live',
        orderId: '1001',
        status: 'success',
        sourceUpdatedAt: ago(500 * day),
        updatedAt: ago(500 * day),
      },
    });
    await prisma.storeTrackingLink.create({
      data: { shopId: shop.id, fulfillmentId: 'F-live', wanted: 'store', applied: 'store', state: 'sent' },
    });

    await retention().runPass({ now });

    expect(await prisma.storeTrackingLink.count()).toBe(1);
    expect(await prisma.fulfillment.count()).toBe(1);
  });
});

describe('trackers with work left are kept (issue 34)', () => {
  const old = ago(401 * day);
  type Setup = (shop: Shop, tracker: Tracker, fulfillmentId: string) => Promise<unknown>;

  /**
   * A tracker with one line on its own fulfilment, all quiet for longer than the retention (401 days): only
   * its state and its open work decide whether retention deletes it. Returns it after `setup` ran.
   */
  async function quietTracker(
    shop: Shop,
    fulfillmentId: string,
    overrides: Parameters<typeof createTracker>[2],
    setup?: Setup,
  ): Promise<Tracker> {
    const tracker = await createTracker(prisma, shop.id, { nextAttemptAt: old, ...overrides });
    const ended = overrides?.desired === 'removed';
    await line(
      shop,
      tracker,
      fulfillmentId,
      ended ? { active: false, endedReason: 'fulfillment_cancelled' } : {},
    );
    await prisma.fulfillment.create({
      data: {
        shopId: shop.id,
        fulfillmentId,
        orderId: '1001',
        status: ended ? 'cancelled' : 'success',
        sourceUpdatedAt: old,
        updatedAt: old,
      },
    });
    await setup?.(shop, tracker, fulfillmentId);
    await prisma.trackingLine.updateMany({ where: { trackerId: tracker.id }, data: { updatedAt: old } });
    return prisma.tracker.update({ where: { id: tracker.id }, data: { updatedAt: old } });
  }

  const storeEvent =
    (state: string): Setup =>
    (shop, tracker, fulfillmentId) =>
      prisma.storeFulfillmentEvent.create({
        data: {
          shopId: shop.id,
          trackerId: tracker.id,
          fulfillmentId,
          status: 'DELIVERED',
          happenedAt: old,
          state,
          nextAttemptAt: old,
          ...(state === 'failed' ? { error: 'fulfillmentEventCreate: access denied' } : {}),
        },
      });
  const trackingLink =
    (state: string): Setup =>
    (shop, _tracker, fulfillmentId) =>
      prisma.storeTrackingLink.create({
        data: {
          shopId: shop.id,
          fulfillmentId,
          wanted: 'store',
          applied: state === 'sent' ? 'store' : null,
          state,
        },
      });
  const problem =
    (closedAt: Date | null): Setup =>
    (shop, tracker) =>
      prisma.shipmentProblem.create({
        data: {
          shopId: shop.id,
          trackerId: tracker.id,
          kind: 'carrier_exception',
          since: old,
          openedAt: old,
          closedAt,
          closedReason: closedAt ? 'handled' : null,
        },
      });

  const delivered = {
    desired: 'active',
    remote: 'present',
    syncState: 'synced',
    status: 'delivered',
  } as const;
  const kept: [string, Parameters<typeof createTracker>[2], Setup?][] = [
    [
      'wanted removed but still present at the service (its removal failed)',
      { desired: 'removed', remote: 'present', syncState: 'failed', status: 'in_transit' },
    ],
    [
      'wanted removed, its removal given up (dead) with the service’s answer unknown',
      { desired: 'removed', remote: 'unknown', syncState: 'dead', status: 'in_transit' },
    ],
    [
      'still wanted, at the service, whose polling gave up before a final status',
      { desired: 'active', remote: 'present', syncState: 'synced', status: 'in_transit', nextPollAt: null },
    ],
    [
      'dead: its creation given up, on the merchant’s health line',
      {
        desired: 'active',
        remote: 'absent',
        syncState: 'dead',
        lastErrorReason: 'http_503',
        lastError: 'given up',
      },
    ],
    [
      'failed: refused by the service, on the merchant’s health line',
      {
        desired: 'active',
        remote: 'absent',
        syncState: 'failed',
        lastErrorReason: 'invalid',
        lastError: 'given up',
      },
    ],
    ['delivered, with a store write still pending', delivered, storeEvent('pending')],
    ['delivered, with a store write being sent', delivered, storeEvent('sending')],
    ['delivered, with a store write the store refused', delivered, storeEvent('failed')],
    ['delivered, with a problem still open for the merchant', delivered, problem(null)],
    ['delivered, its fulfilment’s tracking link still to write', delivered, trackingLink('pending')],
    ['delivered, its fulfilment’s tracking link refused', delivered, trackingLink('failed')],
    [
      'delivered, a problem evaluation still due',
      delivered,
      (_shop, tracker) => prisma.tracker.update({ where: { id: tracker.id }, data: { problemCheckAt: old } }),
    ],
  ];

  it.each(kept)('keeps a tracker %s, with its line and fulfilment', async (_name, overrides, setup) => {
    const shop = await createShop(prisma);
    const tracker = await quietTracker(shop, 'F-kept', overrides, setup);
    const before = {
      events: await prisma.storeFulfillmentEvent.count(),
      problems: await prisma.shipmentProblem.count(),
      links: await prisma.storeTrackingLink.count(),
    };

    const pass = await retention().runPass({ now });

    expect(await prisma.tracker.findUnique({ where: { id: tracker.id } })).not.toBeNull();
    expect(pass.rules.trackers).toEqual({ batches: 1, rows: 0 });
    expect(await prisma.trackingLine.count({ where: { trackerId: tracker.id } })).toBe(1);
    expect(await prisma.fulfillment.count({ where: { fulfillmentId: 'F-kept' } })).toBe(1);
    // Its open work stays with it: store writes, problems, its fulfilment's tracking link.
    expect(await prisma.storeFulfillmentEvent.count()).toBe(before.events);
    expect(await prisma.shipmentProblem.count()).toBe(before.problems);
    expect(await prisma.storeTrackingLink.count()).toBe(before.links);
  });

  it('deletes settled trackers: removed and absent, or delivered with every write done and problems closed', async () => {
    const shop = await createShop(prisma);
    const removed = await quietTracker(shop, 'F-removed', {
      desired: 'removed',
      remote: 'absent',
      syncState: 'synced',
      status: 'in_transit',
    });
    const done = await quietTracker(shop, 'F-delivered', delivered, async (...args) => {
      await storeEvent('sent')(...args);
      await trackingLink('sent')(...args);
      await problem(ago(400 * day))(...args);
    });
    const returned = await quietTracker(shop, 'F-returned', { ...delivered, status: 'returned' });
    // Within the retention: kept whatever its state.
    const recent = await createTracker(prisma, shop.id, delivered);
    await line(shop, recent, 'F-recent');

    const pass = await retention().runPass({ now });

    // Three trackers and their three lines.
    expect(pass.rules.trackers!.rows).toBe(6);
    const left = await prisma.tracker.findMany({ select: { id: true } });
    expect(left.map((t) => t.id)).toEqual([recent.id]);
    for (const t of [removed, done, returned])
      expect(await prisma.trackingLine.count({ where: { trackerId: t.id } })).toBe(0);
    // Their events and closed problems went with them; the fulfilments (no line left) and the written link too.
    expect(await prisma.storeFulfillmentEvent.count()).toBe(0);
    expect(await prisma.shipmentProblem.count()).toBe(0);
    expect(await prisma.storeTrackingLink.count()).toBe(0);
    expect(await prisma.fulfillment.count()).toBe(0);
  });

  it('a fulfilment with no line left keeps a tracking link still to write or refused, and stays with it', async () => {
    const shop = await createShop(prisma);
    for (const [fulfillmentId, state] of [
      ['F-pending', 'pending'],
      ['F-failed', 'failed'],
      ['F-sent', 'sent'],
    ] as const) {
      await prisma.fulfillment.create({
        data: {
          shopId: shop.id,
          fulfillmentId,
          orderId: '1',
          status: 'success',
          sourceUpdatedAt: old,
          updatedAt: old,
        },
      });
      await prisma.storeTrackingLink.create({
        data: { shopId: shop.id, fulfillmentId, wanted: 'store', state },
      });
    }

    await retention().runPass({ now });

    const links = await prisma.storeTrackingLink.findMany({ select: { fulfillmentId: true } });
    expect(links.map((l) => l.fulfillmentId).sort()).toEqual(['F-failed', 'F-pending']);
    const fulfillments = await prisma.fulfillment.findMany({ select: { fulfillmentId: true } });
    expect(fulfillments.map((f) => f.fulfillmentId).sort()).toEqual(['F-failed', 'F-pending']);
  });

  it('trackers sharing one time (a bulk update) are all visited by a sweep, none passed over', async () => {
    const shop = await createShop(prisma);
    const at = ago(420 * day);
    for (let i = 0; i < 25; i++) {
      const settledOne = i % 5 === 0;
      const t = await createTracker(
        prisma,
        shop.id,
        settledOne
          ? { desired: 'removed', remote: 'absent', syncState: 'synced' }
          : { desired: 'active', remote: 'absent', syncState: 'dead' },
      );
      await prisma.tracker.update({ where: { id: t.id }, data: { updatedAt: at } });
    }

    const pass = await createRetention({ prisma }, { batchSize: 10 }).runPass({ now });

    // Keys 10 + 10 + 5: every one of the 25 visited, the 5 settled ones deleted.
    expect(pass.rules.trackers).toEqual({ batches: 3, rows: 5 });
    expect(await prisma.tracker.count()).toBe(20);
  });

  it('kept trackers cost one visit a sweep: settled ones behind them still go in the same pass', async () => {
    const shop = await createShop(prisma);
    // 25 kept (dead) trackers quieter than 5 settled ones: a sweep visits them once, oldest first.
    for (let i = 0; i < 25; i++) {
      const t = await createTracker(prisma, shop.id, {
        desired: 'active',
        remote: 'absent',
        syncState: 'dead',
      });
      await prisma.tracker.update({ where: { id: t.id }, data: { updatedAt: ago((450 + i) * day) } });
    }
    for (let i = 0; i < 5; i++) {
      const t = await createTracker(prisma, shop.id, {
        desired: 'removed',
        remote: 'absent',
        syncState: 'synced',
      });
      await prisma.tracker.update({ where: { id: t.id }, data: { updatedAt: ago((410 + i) * day) } });
    }
    const one = createRetention({ prisma }, { batchSize: 10 });

    const first = await one.runPass({ now });
    // Batches of 10 keys: 10 + 10 + 10 (5 kept, 5 settled) + an empty one.
    expect(first.rules.trackers).toEqual({ batches: 4, rows: 5 });
    expect(await prisma.tracker.count()).toBe(25);

    // The next pass, within the day, goes on from where the sweep stopped: the kept ones are not read again.
    const second = await one.runPass({ now: later(60_000) });
    expect(second.rules.trackers).toEqual({ batches: 1, rows: 0 });
  });
});

describe('batches', () => {
  const oldDeliveries = async (count: number) => {
    for (let i = 0; i < count; i++)
      await createDelivery(prisma, '', { state: 'processed', nextAttemptAt: ago(8 * day) });
  };

  it('deletes in statements of batchSize rows: 35 rows in batches of 10 are 4 statements', async () => {
    await oldDeliveries(35);
    const pass = await retention({ batchSize: 10 }).runPass({ now });
    expect(pass.rules.deliveries).toEqual({ batches: 4, rows: 35 });
    expect(pass.done).toBe(true);
    expect(await prisma.webhookDelivery.count()).toBe(0);
  });

  it('a pass stops after maxBatches statements per rule and leaves the rest for the next pass', async () => {
    await oldDeliveries(35);
    const shop = await createShop(prisma);
    for (let i = 0; i < 25; i++) {
      await prisma.fulfillment.create({
        data: {
          shopId: shop.id,
          fulfillmentId: `F-${i}`,
          orderId: '1',
          status: 'success',
          sourceUpdatedAt: ago(500 * day),
          updatedAt: ago((500 + i) * day),
        },
      });
    }
    const settings = { batchSize: 10, maxBatches: 2 };
    const one = createRetention({ prisma }, settings);

    const first = await one.runPass({ now });
    expect(first.rules.deliveries).toEqual({ batches: 2, rows: 20 });
    expect(first.rules.fulfillments).toEqual({ batches: 2, rows: 20 });
    expect(first.done).toBe(false);
    expect(await prisma.webhookDelivery.count()).toBe(15);
    expect(await prisma.fulfillment.count()).toBe(5);

    const second = await one.runPass({ now });
    expect(second.rules.deliveries).toEqual({ batches: 2, rows: 15 });
    expect(second.rules.fulfillments).toEqual({ batches: 1, rows: 5 });
    expect(second.done).toBe(true);
    expect(await prisma.webhookDelivery.count()).toBe(0);
    expect(await prisma.fulfillment.count()).toBe(0);
  });

  it('the lookup-limit counters catch up: every expired one goes in a pass, a statement of batchSize at a time', async () => {
    const shop = await createShop(prisma);
    const counters = (count: number, expiresAt: Date) =>
      prisma.lookupLimit.createMany({
        data: Array.from({ length: count }, () => ({
          id: `${shop.id}:visitor:${randomUUID()}`,
          shopId: shop.id,
          kind: 'visitor',
          count: 1,
          windowStartMs: BigInt(now.getTime() - day),
          lastAtMs: BigInt(now.getTime() - day),
          expiresAt,
        })),
      });
    // More expired than maxBatches statements take (what a flood of addresses leaves), and live ones.
    await counters(35, ago(60_000));
    await counters(3, later(day));
    await oldDeliveries(35);

    const pass = await createRetention({ prisma }, { batchSize: 10, maxBatches: 2 }).runPass({ now });

    expect(pass.rules.lookupLimits).toEqual({ batches: 4, rows: 35 });
    expect(await prisma.lookupLimit.count()).toBe(3);
    // Other rules keep their bound.
    expect(pass.rules.deliveries).toEqual({ batches: 2, rows: 20 });

    // Still bounded: catchUpBatches statements a pass, the rest the next one.
    await counters(35, ago(60_000));
    const bounded = await createRetention({ prisma }, { batchSize: 10, catchUpBatches: 3 }).runPass({ now });
    expect(bounded.rules.lookupLimits).toEqual({ batches: 3, rows: 30 });
    expect(bounded.done).toBe(false);
    expect(await prisma.lookupLimit.count()).toBe(8);
  });

  it.runIf(defaultTestProvider() === 'postgresql')(
    'PostgreSQL: a batch skips rows another transaction holds instead of waiting for them',
    async () => {
      await oldDeliveries(3);
      const [held] = await prisma.webhookDelivery.findMany({ take: 1 });
      const other = await createDatabase(db.url);
      try {
        await other.prisma.$transaction(async (tx) => {
          await tx.$queryRawUnsafe(`SELECT "id" FROM "WebhookDelivery" WHERE "id" = $1 FOR UPDATE`, held!.id);
          // A second connection's pass, while this transaction holds the row.
          const pass = await createRetention({ prisma }, { batchSize: 10 }).runPass({ now });
          expect(pass.rules.deliveries!.rows).toBe(2);
        });
      } finally {
        await other.close();
      }
      expect((await prisma.webhookDelivery.findMany()).map((d) => d.id)).toEqual([held!.id]);
    },
  );
});

describe('the worker', () => {
  it('runs a retention pass every periodic interval', async () => {
    await createDelivery(prisma, '', { state: 'processed', nextAttemptAt: ago(8 * day) });
    const kept = await createDelivery(prisma, '', { state: 'processed', nextAttemptAt: ago(day) });
    const worker = createWorker(
      {
        ...createAppContext({
          prisma,
          keyring: testKeyring(),
          client: createTrackingClient({
            baseUrl: 'http://127.0.0.1:9/v1',
            fetch: () => Promise.reject(new Error('offline')),
          }),
          logger: silentLogger,
        }),
        owner: 'retention-test',
        store: { confirmFulfillments: storeHolding() },
      },
      { concurrency: 1, idlePollMs: 20, periodicEveryMs: 100, retention: { deliveryMs: 7 * day } },
    );
    worker.start();
    try {
      const deadline = Date.now() + 10_000;
      while ((await prisma.webhookDelivery.count()) > 1 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await worker.stop();
    }
    expect((await prisma.webhookDelivery.findMany()).map((d) => d.id)).toEqual([kept.id]);
  });
});
