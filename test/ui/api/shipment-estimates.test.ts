import { beforeAll, describe, expect, it } from 'vitest';
import { createCarrierRepository } from '../../../src/carriers/carrier-repository.js';
import type { DatabaseClient } from '../../../src/db/client.js';
import type { Shop } from '../../../src/generated/sqlite/client.js';
import { createShopRepository } from '../../../src/shops/shop-repository.js';
import { createTrackingClient, type TrackingClient } from '../../../src/tracking/client.js';
import type { Shipment } from '../../../src/tracking/types.js';
import { getShipmentDetail } from '../../../src/ui/api/shipment-detail.js';
import { listShipments, shipmentsQuery } from '../../../src/ui/api/shipment-list.js';
import { useTestDatabase } from '../../helpers/database.js';
import { createShop, createTracker, type TrackerOverrides, testKeyring } from '../../helpers/factories.js';

/**
 * The merchant's shipment list and detail say which estimate they show: `estimate: { date, predicted }`,
 * the service's own else the predicted one, and none at all for a number the service cannot follow (the
 * older `estimatedDelivery` fields agree).
 */

const db = useTestDatabase();
let prisma: DatabaseClient;
let deps: Parameters<typeof listShipments>[0] & Parameters<typeof getShipmentDetail>[0];
let shop: Shop;
let seq = 0;

beforeAll(async () => {
  prisma = db.prisma;
  deps = {
    prisma,
    shops: createShopRepository(prisma, testKeyring()),
    carriers: createCarrierRepository(prisma),
    // The shop is not connected: the detail answers from what is stored, without a call.
    client: createTrackingClient({
      baseUrl: 'http://127.0.0.1:9/v1',
      retry: { maxAttempts: 1 },
      timeoutMs: 100,
    }),
  };
  shop = await createShop(prisma);
}, 120_000);

/** A wanted parcel with this stored status and estimates; returns its number and tracker id. */
async function parcel(overrides: TrackerOverrides, predictedDelivery: string | null) {
  const trackingNumber = `1ZLISTEST${String(++seq).padStart(7, '0')}`;
  const tracker = await createTracker(prisma, shop.id, {
    trackingNumber,
    remote: 'present',
    syncState: 'synced',
    statusCheckedAt: new Date(),
    ...overrides,
  });
  await prisma.tracker.update({ where: { id: tracker.id }, data: { predictedDelivery } });
  await prisma.trackingLine.create({
    data: {
      shopId: shop.id,
      fulfillmentId: `f-${seq}`,
      orderId: `o-${seq}`,
      trackingNumber,
      carrierName: 'UPS',
      trackerId: tracker.id,
    },
  });
  return { trackingNumber, id: tracker.id };
}

async function shown(overrides: TrackerOverrides, predictedDelivery: string | null) {
  const { trackingNumber, id } = await parcel(overrides, predictedDelivery);
  const list = await listShipments(deps, shop.domain, shipmentsQuery.parse({ search: trackingNumber }));
  expect(list.rows).toHaveLength(1);
  const detail = await getShipmentDetail(deps, shop.domain, id);
  expect(detail?.error?.reason).toBe('not_connected');
  return { row: list.rows[0]!, detail: detail! };
}

describe('the estimate in the shipment list and detail', () => {
  it('the service’s own: not predicted; it wins over a predicted one', async () => {
    const { row, detail } = await shown(
      { status: 'in_transit', estimatedDelivery: '2026-11-27' },
      '2026-11-30',
    );
    expect(row).toMatchObject({
      estimatedDelivery: '2026-11-27',
      estimate: { date: '2026-11-27', predicted: false },
    });
    expect(detail.estimate).toEqual({ date: '2026-11-27', predicted: false });
    expect(detail.tracker.estimatedDelivery).toBe('2026-11-27');
    expect(detail.stored?.estimatedDelivery).toBe('2026-11-27');
  });

  it('a predicted one where the service gives none, labelled predicted', async () => {
    const { row, detail } = await shown({ status: 'in_transit' }, '2026-11-30');
    expect(row).toMatchObject({ estimatedDelivery: null, estimate: { date: '2026-11-30', predicted: true } });
    expect(detail.estimate).toEqual({ date: '2026-11-30', predicted: true });
  });

  it('none at all for a number the service cannot follow', async () => {
    for (const status of ['invalid_tracking', 'carrier_unsupported', 'connection_issue']) {
      const { row, detail } = await shown({ status, estimatedDelivery: '2026-11-27' }, '2026-11-30');
      expect(row.parcel.group, status).toBe('not_followed');
      expect(row, status).toMatchObject({ estimatedDelivery: null, estimate: null });
      expect(detail.estimate, status).toBeNull();
      expect(detail.tracker.estimatedDelivery, status).toBeNull();
      expect(detail.stored?.estimatedDelivery, status).toBeNull();
    }
  });

  it('after a live read: as that read stored it (predicted where the service gave none)', async () => {
    const live = await createShop(prisma);
    await deps.shops.saveCredentials(live.domain, { apiKey: 'key-estimates', appName: 'estimates' });
    await prisma.transitStat.create({
      data: {
        shopId: live.id,
        provider: 'ups',
        destinationCountry: 'US',
        samples: 30,
        medianSeconds: 48 * 3_600,
        p90Seconds: 60 * 3_600,
        computedAt: new Date(),
      },
    });
    const tracker = await createTracker(prisma, live.id, { remote: 'present', syncState: 'synced' });
    // Picked up a day ago; the median is 48 hours: expected tomorrow (UTC).
    const pickedUp = new Date(Date.now() - 86_400_000);
    const at = pickedUp.toISOString().slice(0, 19).replace('T', ' ');
    const expected = new Date(pickedUp.getTime() + 48 * 3_600_000).toISOString().slice(0, 10);
    const scanned: Shipment = {
      orderId: tracker.orderKey,
      trackingNumber: tracker.trackingNumber,
      trackingProvider: 'ups',
      status: 'in_transit',
      estimatedDeliveryDate: null,
      originCountry: 'US',
      destinationCountry: 'US',
      deliveryNumber: null,
      deliveryProvider: null,
      shippingService: null,
      shippingServiceRaw: null,
      lastEventTime: at,
      events: [
        {
          message: 'Picked up',
          description: null,
          status: 'in_transit',
          statusDetail: null,
          datetime: at,
          source: null,
          location: null,
        },
      ],
      destinationEvents: [],
    };
    const client: TrackingClient = {
      ...deps.client,
      getShipment: () => Promise.resolve({ ok: true, value: scanned, deprecation: null, attempts: 1 }),
    };
    const detail = await getShipmentDetail({ ...deps, client }, live.domain, tracker.id);
    expect(detail?.error).toBeNull();
    expect(detail?.estimate).toEqual({ date: expected, predicted: true });
    expect(detail?.shipment?.estimatedDeliveryDate).toBeNull();
    const stored = await prisma.tracker.findUniqueOrThrow({ where: { id: tracker.id } });
    expect(stored.predictedDelivery).toBe(expected);
  });

  it('none before any estimate', async () => {
    const { row, detail } = await shown({ status: 'pending' }, null);
    expect(row.estimate).toBeNull();
    expect(detail.estimate).toBeNull();
  });
});
