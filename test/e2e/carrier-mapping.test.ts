import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carrierOverrides } from '../../src/carriers/carrier-repository.js';
import { mapCarrier } from '../../src/trackers/map-carrier.js';
import { remapLines } from '../../src/trackers/desired-state.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addShop, type ScenarioShop, variant } from '../helpers/scenario.js';

/**
 * A carrier the platform does not know arrives as free text: the line waits (no tracker, no call) until the
 * merchant maps the name to a provider; then the tracker is created, once.
 */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ connect: false });
});
afterAll(async () => {
  await app?.close();
});

const speedy = (trackingNumber: string, id: number) =>
  variant('fulfillments-create.ups', {
    id,
    tracking_company: 'Speedy Parcels Ltd',
    tracking_number: trackingNumber,
    tracking_numbers: [trackingNumber],
  });

/** What the settings page does when the merchant maps a carrier name (through the carrier repository). */
async function mapCarrierName(shop: ScenarioShop, carrierName: string, slug: string) {
  const { carriers } = app.runtime.context;
  const prisma = app.runtime.db.prisma;
  const shopRow = (await prisma.shop.findUniqueOrThrow({ where: { id: shop.id } }))!;
  const matcher = await carriers.matcher();
  return prisma.$transaction(async (tx) => {
    await carriers.setOverride(tx, shop.id, carrierName, slug);
    return remapLines(tx, shopRow, { matcher, overrides: await carrierOverrides(tx, shop.id) }, carrierName);
  });
}

describe('an unknown carrier, then mapped', () => {
  it('waits with no call, and is created once after the mapping', async () => {
    const shop = await addShop(app, 'speedy');
    await shop.send('fulfillments/create', speedy('SPEEDY-0001', 9_100_000_000_001));
    await shop.send('fulfillments/create', speedy('SPEEDY-0002', 9_100_000_000_002));
    await shop.settled();

    expect(await shop.calls('create')).toEqual([]);
    expect(await shop.rows()).toEqual([]);
    const waiting = await app.database.prisma.trackingLine.findMany({
      where: { shopId: shop.id },
      orderBy: { trackingNumber: 'asc' },
    });
    expect(waiting.map((l) => [l.trackingNumber, l.active, l.trackerId, l.carrierName])).toEqual([
      ['SPEEDY-0001', true, null, 'Speedy Parcels Ltd'],
      ['SPEEDY-0002', true, null, 'Speedy Parcels Ltd'],
    ]);

    // The merchant spells it differently on the settings page: names are compared folded.
    const outcome = await mapCarrierName(shop, 'speedy parcels ltd.', 'ups');
    expect(outcome).toMatchObject({ linesRemapped: 2, stillWaiting: 0, trackersTouched: 2 });
    app.runtime.worker?.wake();
    await shop.settled();

    const remote = await shop.remote();
    expect(remote.map((t) => [t.tracking_number, t.tracking_provider, t.order_id]).sort()).toEqual([
      ['SPEEDY-0001', 'ups', '6120000000001'],
      ['SPEEDY-0002', 'ups', '6120000000001'],
    ]);
    expect(await shop.calls('create')).toHaveLength(2);
    const lines = await app.database.prisma.trackingLine.findMany({ where: { shopId: shop.id } });
    expect(lines.every((l) => l.trackerId !== null && l.active)).toBe(true);

    // A later fulfilment with that carrier name maps at once through the override.
    await shop.send('fulfillments/create', speedy('SPEEDY-0003', 9_100_000_000_003));
    await shop.settled();
    expect(await shop.remote()).toHaveLength(3);
    expect(await shop.calls('create')).toHaveLength(3);
  });

  it('a mapping for another shop does not release this shop’s line', async () => {
    const mine = await addShop(app, 'speedy-mine');
    const other = await addShop(app, 'speedy-other');
    await mine.send('fulfillments/create', speedy('SPEEDY-1001', 9_100_000_001_001));
    await mine.settled();
    await mapCarrierName(other, 'Speedy Parcels Ltd', 'ups');
    app.runtime.worker?.wake();
    await mine.settled();
    expect(await mine.calls('create')).toEqual([]);
    const [line] = await app.database.prisma.trackingLine.findMany({ where: { shopId: mine.id } });
    expect(line).toMatchObject({ active: true, trackerId: null });
  });

  it('through the operator use case (mapCarrier): the waiting line gets its tracker, created once', async () => {
    const shop = await addShop(app, 'speedy-operator');
    await shop.send('fulfillments/create', speedy('SPEEDY-2001', 9_100_000_002_001));
    await shop.settled();
    expect(await shop.calls('create')).toEqual([]);

    const result = await mapCarrier(app.runtime.context, {
      shopDomain: shop.domain,
      carrierName: 'Speedy Parcels Ltd',
      slug: 'dhl-express',
    });
    expect(result).toMatchObject({ ok: true, linesRemapped: 1, stillWaiting: 0 });
    app.runtime.worker?.wake();
    await shop.settled();
    expect(await shop.remote()).toEqual([
      expect.objectContaining({ tracking_number: 'SPEEDY-2001', tracking_provider: 'dhl-express' }),
    ]);
    expect(await shop.calls('create')).toHaveLength(1);
  });
});
