import { beforeAll, describe, expect, it } from 'vitest';
import { createCarrierRepository } from '../../src/carriers/carrier-repository.js';
import type { DatabaseClient } from '../../src/db/client.js';
import type { Shop } from '../../src/generated/sqlite/client.js';
import { minTransitSamples, noteDelivered, refreshTransitStats } from '../../src/shipments/estimates.js';
import { storeShipmentRead } from '../../src/shipments/poll-statuses.js';
import { compactRollups } from '../../src/shipments/queries/rollup-folds.js';
import { createShopRepository } from '../../src/shops/shop-repository.js';
import type { Shipment, TrackingEvent } from '../../src/tracking/types.js';
import { deliveryAnalytics } from '../../src/ui/api/analytics.js';
import { useTestDatabase } from '../helpers/database.js';
import { createShop, createTracker, testKeyring } from '../helpers/factories.js';

/**
 * Delivery estimates on a real database (both providers): the transit statistics' median and 90th
 * percentile worked out in SQL against figures worked out by hand, the pass's bounds, and the predicted
 * estimate a stored read writes, clears, sends to the store and measures on-time against.
 */

const db = useTestDatabase({ timeout: 120_000 });
let prisma: DatabaseClient;
const hour = 3_600;
const dayMs = 86_400_000;
const now = new Date('2026-11-24T12:00:00.000Z');
const ago = (days: number) => new Date(now.getTime() - days * dayMs);
let seq = 0;

beforeAll(async () => {
  prisma = db.prisma;
});

/**
 * Delivered trackers of one key, one per transit time (seconds), delivered `daysAgo` days before now; the key
 * made known to the statistics as a delivered read makes it (noteDelivered).
 */
async function delivered(
  shop: Shop,
  provider: string,
  country: string | null,
  transits: readonly number[],
  daysAgo = 10,
): Promise<void> {
  await prisma.tracker.createMany({
    data: transits.map((transitSeconds) => ({
      shopId: shop.id,
      trackingNumber: `EST${String(++seq).padStart(8, '0')}`,
      provider,
      orderKey: `o${seq}`,
      destinationCountry: country,
      remote: 'present',
      syncState: 'synced',
      status: 'delivered',
      deliveredAt: ago(daysAgo),
      transitSeconds,
    })),
  });
  await noteDelivered(prisma, { shopId: shop.id, provider, destinationCountry: country });
}

const statOf = (shop: Shop, provider: string, destinationCountry: string) =>
  prisma.transitStat.findUnique({
    where: { shopId_provider_destinationCountry: { shopId: shop.id, provider, destinationCountry } },
  });

/** 24 h, 26 h, … 84 h: 31 transit times, given in a scrambled order (the SQL must sort them). */
const thirtyOne = Array.from({ length: 31 }, (_, k) => (24 + 2 * ((k * 7) % 31)) * hour);

describe('refreshTransitStats: the median and 90th percentile in SQL', () => {
  it('31 parcels: the 16th and 28th smallest (54 h, 78 h); the window, other keys and shops left out', async () => {
    const shop = await createShop(prisma);
    const other = await createShop(prisma);
    expect([...thirtyOne].sort((a, b) => a - b)).toEqual(
      Array.from({ length: 31 }, (_, k) => (24 + 2 * k) * hour),
    );
    await delivered(shop, 'ups', 'DE', thirtyOne);
    // Not of the key's figures: delivered 91 days ago, another country, another shop, not delivered.
    await delivered(shop, 'ups', 'DE', [1 * hour, 2 * hour, 3 * hour], 91);
    await delivered(shop, 'ups', 'FR', [1 * hour]);
    await delivered(other, 'ups', 'DE', [1 * hour, 2 * hour]);
    await createTracker(prisma, shop.id, { provider: 'ups', status: 'in_transit' });

    const result = await refreshTransitStats(prisma, { batch: 10, now });
    // Every key that delivered is computed; only one has the 30 samples a prediction needs.
    expect(result).toEqual({ saved: 3, removed: 0 });
    expect(await statOf(shop, 'ups', 'DE')).toEqual({
      shopId: shop.id,
      provider: 'ups',
      destinationCountry: 'DE',
      samples: 31,
      medianSeconds: 54 * hour,
      p90Seconds: 78 * hour,
      computedAt: now,
    });
    expect(await statOf(shop, 'ups', 'FR')).toMatchObject({ samples: 1 });
    expect(await statOf(other, 'ups', 'DE')).toMatchObject({ samples: 2 });
  });

  it('30 parcels, no country (NULL and "" alike): the 15th and 27th smallest; 29 parcels: kept, too few', async () => {
    const shop = await createShop(prisma);
    // 1 h … 30 h, half with no country and half with an empty one, in reverse order.
    const hours = Array.from({ length: 30 }, (_, k) => (30 - k) * hour);
    await delivered(shop, 'dhl', null, hours.slice(0, 15));
    await delivered(shop, 'dhl', '', hours.slice(15));
    await delivered(
      shop,
      'usps',
      'US',
      Array.from({ length: minTransitSamples - 1 }, () => 5 * hour),
    );

    await refreshTransitStats(prisma, { batch: 10, now });
    expect(await statOf(shop, 'dhl', '')).toMatchObject({
      samples: 30,
      medianSeconds: 15 * hour,
      p90Seconds: 27 * hour,
    });
    expect(await statOf(shop, 'usps', 'US')).toMatchObject({ samples: minTransitSamples - 1 });
  });

  it('recomputes the oldest rows first, a batch at a time; a key with no delivery left in the window loses its row', async () => {
    const shop = await createShop(prisma);
    // Rows computed long ago: MX's with wrong figures, and GB's whose deliveries have all left the window.
    await prisma.transitStat.createMany({
      data: [
        {
          shopId: shop.id,
          provider: 'fedex',
          destinationCountry: 'MX',
          samples: 99,
          medianSeconds: 1,
          p90Seconds: 2,
          computedAt: ago(3),
        },
        {
          shopId: shop.id,
          provider: 'fedex',
          destinationCountry: 'GB',
          samples: 40,
          medianSeconds: 1,
          p90Seconds: 2,
          computedAt: ago(2),
        },
      ],
    });
    await delivered(shop, 'fedex', 'MX', thirtyOne);
    await delivered(shop, 'fedex', 'GB', [hour, hour, hour], 95);
    // CA delivers now: its key is due at once (noted as computed at the epoch).
    await delivered(shop, 'fedex', 'CA', thirtyOne);
    // Only this shop's keys are due: the rows of the tests above were computed `now`.
    const later = new Date(now.getTime() + 60_000);

    expect(await refreshTransitStats(prisma, { batch: 1, now: later })).toEqual({ saved: 1, removed: 0 });
    expect(await statOf(shop, 'fedex', 'CA')).toMatchObject({ samples: 31, p90Seconds: 78 * hour });
    expect(await statOf(shop, 'fedex', 'MX')).toMatchObject({ samples: 99 });

    expect(await refreshTransitStats(prisma, { batch: 1, now: later })).toEqual({ saved: 1, removed: 0 });
    expect(await statOf(shop, 'fedex', 'MX')).toMatchObject({ samples: 31, medianSeconds: 54 * hour });

    expect(await refreshTransitStats(prisma, { batch: 1, now: later })).toEqual({ saved: 0, removed: 1 });
    expect(await statOf(shop, 'fedex', 'GB')).toBeNull();
    // Everything is fresh: nothing to do until the rows are 12 hours old.
    expect(await refreshTransitStats(prisma, { batch: 10, now: later })).toEqual({ saved: 0, removed: 0 });
  });
});

/** A service event at a UTC time. */
function event(status: string, at: string): TrackingEvent {
  return {
    message: status,
    description: null,
    status,
    statusDetail: null,
    datetime: at,
    source: null,
    location: null,
  };
}

function shipment(trackingNumber: string, events: TrackingEvent[], estimate: string | null = null): Shipment {
  return {
    orderId: '1001',
    trackingNumber,
    trackingProvider: 'ups',
    status: events.at(-1)?.status ?? 'pending',
    estimatedDeliveryDate: estimate,
    originCountry: 'US',
    destinationCountry: 'DE',
    deliveryNumber: null,
    deliveryProvider: null,
    shippingService: null,
    shippingServiceRaw: null,
    lastEventTime: events.at(-1)?.datetime ?? null,
    events,
    destinationEvents: [],
  };
}

/** The tracker as a read loads it (with its wanted lines and its shop). */
function readTarget(id: string) {
  return prisma.tracker.findUniqueOrThrow({
    where: { id },
    include: { shop: true, lines: { where: { active: true }, select: { fulfillmentId: true } } },
  });
}

describe('the predicted estimate of a stored read', () => {
  /** A shop whose UPS parcels to Germany take 74 hours (median), and one such parcel on fulfilment F1. */
  async function parcel(stat = true) {
    const shop = await createShop(prisma);
    if (stat) {
      await prisma.transitStat.create({
        data: {
          shopId: shop.id,
          provider: 'ups',
          destinationCountry: 'DE',
          samples: 40,
          medianSeconds: 74 * hour,
          p90Seconds: 100 * hour,
          computedAt: now,
        },
      });
    }
    const tracker = await createTracker(prisma, shop.id, {
      provider: 'ups',
      destinationCountry: 'DE',
      remote: 'present',
      syncState: 'synced',
      createdAt: new Date('2026-11-19T10:00:00.000Z'),
    });
    await prisma.trackingLine.create({
      data: {
        shopId: shop.id,
        fulfillmentId: 'F1',
        orderId: '1001',
        trackingNumber: tracker.trackingNumber,
        trackerId: tracker.id,
      },
    });
    const read = async (events: TrackingEvent[], estimate: string | null = null) =>
      storeShipmentRead(
        { prisma },
        await readTarget(tracker.id),
        shipment(tracker.trackingNumber, events, estimate),
        now,
        { guard: {} },
      );
    const stored = () => prisma.tracker.findUniqueOrThrow({ where: { id: tracker.id } });
    return { shop, tracker, read, stored };
  }

  it('first scan + median, as a UTC date; from the creation before any scan; sent to the store', async () => {
    const { tracker, read, stored } = await parcel();
    // Created 2026-11-19 10:00 + 74 h = 2026-11-22 12:00.
    expect((await read([])).predictedDelivery).toBe('2026-11-22');
    expect((await stored()).predictedDelivery).toBe('2026-11-22');
    // Scanned 2026-11-20 22:00 + 74 h = 2026-11-24 00:00 (UTC): the 24th.
    const scanned = [event('in_transit', '2026-11-20 22:00:00')];
    await read(scanned);
    expect(await stored()).toMatchObject({ estimatedDelivery: null, predictedDelivery: '2026-11-24' });
    const queued = await prisma.storeFulfillmentEvent.findMany({ where: { trackerId: tracker.id } });
    expect(queued.map((e) => [e.status, e.estimatedDeliveryAt?.toISOString()])).toEqual([
      ['IN_TRANSIT', '2026-11-24T00:00:00.000Z'],
    ]);
  });

  it('the service’s own estimate clears it, and is what the store is sent', async () => {
    const { tracker, read, stored } = await parcel();
    await read([event('in_transit', '2026-11-20 22:00:00')]);
    expect((await stored()).predictedDelivery).toBe('2026-11-24');
    await read(
      [event('in_transit', '2026-11-20 22:00:00'), event('out_for_delivery', '2026-11-23 07:00:00')],
      '2026-11-23',
    );
    expect(await stored()).toMatchObject({ estimatedDelivery: '2026-11-23', predictedDelivery: null });
    const ofd = await prisma.storeFulfillmentEvent.findFirstOrThrow({
      where: { trackerId: tracker.id, status: 'OUT_FOR_DELIVERY' },
    });
    expect(ofd.estimatedDeliveryAt?.toISOString()).toBe('2026-11-23T00:00:00.000Z');
  });

  it('fewer than 30 deliveries of the key (no statistics): nothing predicted', async () => {
    const { shop, read, stored } = await parcel(false);
    await delivered(
      shop,
      'ups',
      'DE',
      Array.from({ length: minTransitSamples - 1 }, () => 50 * hour),
    );
    await refreshTransitStats(prisma, { batch: 100, now });
    expect(await statOf(shop, 'ups', 'DE')).toMatchObject({ samples: minTransitSamples - 1 });
    expect((await read([event('in_transit', '2026-11-20 22:00:00')])).predictedDelivery).toBeNull();
    expect((await stored()).predictedDelivery).toBeNull();
  });

  it('a parcel read as delivered makes its key known to the statistics (once), due at once', async () => {
    const { shop, read } = await parcel(false);
    expect(await statOf(shop, 'ups', 'DE')).toBeNull();
    await read([event('in_transit', '2026-11-20 22:00:00'), event('delivered', '2026-11-22 10:00:00')]);
    expect(await statOf(shop, 'ups', 'DE')).toMatchObject({ samples: 0, computedAt: new Date(0) });
    await refreshTransitStats(prisma, { batch: 100, now });
    expect(await statOf(shop, 'ups', 'DE')).toMatchObject({ samples: 1, computedAt: now });
  });

  it('a tracker the service cannot follow gets none', async () => {
    const { read, stored } = await parcel();
    await read([event('invalid_tracking', '2026-11-20 22:00:00')]);
    expect(await stored()).toMatchObject({ status: 'invalid_tracking', predictedDelivery: null });
  });

  it('delivered: cleared, on time against it (kept on later reads), counted by the analytics', async () => {
    const { shop, read, stored } = await parcel();
    const scan = event('in_transit', '2026-11-20 22:00:00');
    await read([scan]);
    expect((await stored()).predictedDelivery).toBe('2026-11-24');
    // Delivered on the 24th, before the end of the predicted day.
    const history = [scan, event('delivered', '2026-11-24 09:00:00')];
    await read(history);
    expect(await stored()).toMatchObject({
      predictedDelivery: null,
      estimatedDelivery: null,
      deliveredOnTime: true,
      transitSeconds: (3 * 24 + 11) * hour,
    });
    // The merchant opens it again: the same read, no estimate either; the verdict stays.
    await read(history);
    expect((await stored()).deliveredOnTime).toBe(true);
    await compactRollups(prisma);
    const analytics = await deliveryAnalytics(
      {
        prisma,
        shops: createShopRepository(prisma, testKeyring()),
        carriers: createCarrierRepository(prisma),
      },
      shop.domain,
      30,
      now,
    );
    expect(analytics.total.onTime).toEqual({ measured: 1, onTime: 1, rate: 1 });
  });

  it('delivered after the predicted day: late', async () => {
    const { read, stored } = await parcel();
    const scan = event('in_transit', '2026-11-20 22:00:00');
    await read([scan]);
    await read([scan, event('delivered', '2026-11-25 00:30:00')]);
    expect(await stored()).toMatchObject({ predictedDelivery: null, deliveredOnTime: false });
  });
});

describe('the last-mile carrier’s number', () => {
  it('is stored when a read gives it, kept when a later read leaves it out', async () => {
    const shop = await createShop(prisma);
    const tracker = await createTracker(prisma, shop.id, { remote: 'present', syncState: 'synced' });
    const stored = () => prisma.tracker.findUniqueOrThrow({ where: { id: tracker.id } });
    const withNumber = {
      ...shipment(tracker.trackingNumber, [event('in_transit', '2026-11-20 22:00:00')]),
      deliveryNumber: 'DP-778899',
      deliveryProvider: 'Deutsche Post',
    };
    await storeShipmentRead({ prisma }, await readTarget(tracker.id), withNumber, now, { guard: {} });
    expect(await stored()).toMatchObject({ deliveryNumber: 'DP-778899', deliveryProvider: 'Deutsche Post' });
    const without = shipment(tracker.trackingNumber, [
      event('in_transit', '2026-11-20 22:00:00'),
      event('out_for_delivery', '2026-11-21 07:00:00'),
    ]);
    await storeShipmentRead({ prisma }, await readTarget(tracker.id), without, now, { guard: {} });
    expect(await stored()).toMatchObject({
      status: 'out_for_delivery',
      deliveryNumber: 'DP-778899',
      deliveryProvider: 'Deutsche Post',
    });
  });
});
