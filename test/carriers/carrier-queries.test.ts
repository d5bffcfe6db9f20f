import { beforeAll, describe, expect, it } from 'vitest';
import { seenCarriers } from '../../src/carriers/carrier-queries.js';
import { createCarrierRepository } from '../../src/carriers/carrier-repository.js';
import { normaliseCarrierName } from '../../src/carriers/match.js';
import { compactRollups } from '../../src/shipments/queries/rollup-folds.js';
import { useTestDatabase } from '../helpers/database.js';
import { createShop, createTracker } from '../helpers/factories.js';

const db = useTestDatabase();
let shopId: string;

beforeAll(async () => {
  shopId = (await createShop(db.prisma)).id;
  const other = (await createShop(db.prisma)).id;
  const tracked = await createTracker(db.prisma, shopId, { trackingNumber: 'UPS-1' });
  const line = (
    shop: string,
    fulfillmentId: string,
    trackingNumber: string,
    carrierName: string | null,
    extra: { active?: boolean; trackerId?: string; updatedAt?: Date } = {},
  ) => ({
    shopId: shop,
    fulfillmentId,
    orderId: fulfillmentId,
    trackingNumber,
    carrierName,
    carrierKey: carrierName ? normaliseCarrierName(carrierName) : null,
    ...extra,
  });
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 10, minute));
  await db.prisma.trackingLine.createMany({
    data: [
      // Three spellings of one carrier over four parcels; the spelling with the most lines is shown. Three
      // wanted lines without a tracker wait; an ended one does not.
      line(shopId, 'f1', 'SP-1', 'Speedy Parcels Ltd', { updatedAt: at(1) }),
      line(shopId, 'f1', 'SP-2', 'Speedy Parcels Ltd', { updatedAt: at(2) }),
      line(shopId, 'f2', 'SP-3', 'speedy parcels ltd.', { updatedAt: at(5) }),
      line(shopId, 'f3', 'SP-4', 'SPEEDY PARCELS LTD', { updatedAt: at(3), active: false }),
      line(shopId, 'f4', 'UPS-1', 'UPS', { trackerId: tracked.id }),
      line(shopId, 'f5', 'AZ-1', 'Aramex'),
      line(shopId, 'f6', 'NONE-1', null),
      // Another shop's carrier is never seen here.
      line(other, 'g1', 'DPD-1', 'DPD'),
    ],
  });
});

describe('seenCarriers', () => {
  const seen = {
    carriers: [
      { key: 'aramex', name: 'Aramex', shipments: 1, waiting: 1 },
      { key: 'speedyparcelsltd', name: 'Speedy Parcels Ltd', shipments: 4, waiting: 3 },
      { key: 'ups', name: 'UPS', shipments: 1, waiting: 0 },
    ],
    next: null,
  };

  it('one row per carrier key: the most used spelling, its shipments, wanted lines waiting', async () => {
    expect(await seenCarriers(db.prisma, shopId)).toEqual(seen);
  });

  it('reads the rollup and the changes not yet folded into it alike; lines that change move', async () => {
    await compactRollups(db.prisma);
    expect(await db.prisma.carrierCountDelta.count()).toBe(0);
    expect(await seenCarriers(db.prisma, shopId)).toEqual(seen);
    // The Aramex line gets a tracker (no longer waiting), one Speedy line ends, one goes.
    const tracker = await createTracker(db.prisma, shopId, { trackingNumber: 'AZ-1' });
    await db.prisma.trackingLine.updateMany({
      where: { shopId, trackingNumber: 'AZ-1' },
      data: { trackerId: tracker.id },
    });
    await db.prisma.trackingLine.updateMany({
      where: { shopId, trackingNumber: 'SP-3' },
      data: { active: false },
    });
    await db.prisma.trackingLine.deleteMany({ where: { shopId, trackingNumber: 'SP-2' } });
    const moved = {
      carriers: [
        { key: 'aramex', name: 'Aramex', shipments: 1, waiting: 0 },
        // One line of each spelling now: the first in key order is shown.
        { key: 'speedyparcelsltd', name: 'SPEEDY PARCELS LTD', shipments: 3, waiting: 1 },
        { key: 'ups', name: 'UPS', shipments: 1, waiting: 0 },
      ],
      next: null,
    };
    expect(await seenCarriers(db.prisma, shopId)).toEqual(moved);
    await compactRollups(db.prisma);
    expect(await seenCarriers(db.prisma, shopId)).toEqual(moved);
    // Put back as they were for the paging test.
    await db.prisma.trackingLine.updateMany({
      where: { shopId, trackingNumber: 'AZ-1' },
      data: { trackerId: null },
    });
  });

  it('pages by carrier key: each page after the last key of the one before, until none is left', async () => {
    const first = await seenCarriers(db.prisma, shopId, { limit: 2 });
    expect(first.carriers.map((c) => c.key)).toEqual(['aramex', 'speedyparcelsltd']);
    expect(first.next).toBe('speedyparcelsltd');
    const second = await seenCarriers(db.prisma, shopId, { after: first.next!, limit: 2 });
    expect(second).toEqual({
      carriers: [{ key: 'ups', name: 'UPS', shipments: 1, waiting: 0 }],
      next: null,
    });
  });
});

describe('labelsOf', () => {
  it('reads the labels of the slugs asked for only', async () => {
    const carriers = createCarrierRepository(db.prisma);
    await carriers.replaceProviders([
      { slug: 'ups', label: 'UPS' },
      { slug: 'dhl-express', label: 'DHL Express' },
    ]);
    expect(await carriers.labelsOf(['dhl-express', 'nope', 'dhl-express'])).toEqual(
      new Map([['dhl-express', 'DHL Express']]),
    );
    expect(await carriers.labelsOf([])).toEqual(new Map());
  });
});
