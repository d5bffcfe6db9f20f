import { describe, expect, it } from 'vitest';
import { carrierOverrides, createCarrierRepository } from '../../src/carriers/carrier-repository.js';
import { type CarrierMatcher, createCarrierMatcher } from '../../src/carriers/match.js';
import type { Shop, Tracker } from '../../src/generated/sqlite/client.js';
import {
  applyFulfillment,
  applyOrderCancelled,
  inSync,
  isCancelledStatus,
  orderKeyFor,
  recompute,
  remapLines,
} from '../../src/trackers/desired-state.js';
import { orderCancelledPayload } from '../../src/trackers/fulfillment-payload.js';
import { useTestDatabase } from '../helpers/database.js';
import {
  createShop,
  type FulfillmentBodyOptions,
  fulfillment,
  type ShopOverrides,
} from '../helpers/factories.js';
import { fixture } from '../helpers/webhooks.js';
import { fulfillmentPayload } from '../../src/trackers/fulfillment-payload.js';

const db = useTestDatabase({ reset: true });

const noList = createCarrierMatcher([]);

async function shopWith(settings: ShopOverrides = {}): Promise<Shop> {
  return createShop(db.prisma, settings);
}

function apply(shop: Shop, options: FulfillmentBodyOptions, matcher: CarrierMatcher = noList) {
  return db.prisma.$transaction(async (tx) =>
    applyFulfillment(tx, shop, fulfillment(options), {
      matcher,
      overrides: await carrierOverrides(tx, shop.id),
    }),
  );
}

function cancelOrder(shop: Shop, orderId: number | string) {
  return db.prisma.$transaction((tx) =>
    applyOrderCancelled(
      tx,
      shop,
      orderCancelledPayload.parse({ id: orderId, cancelled_at: '2026-11-19T00:00:00Z' }),
    ),
  );
}

async function trackers(shop: Shop): Promise<Tracker[]> {
  return db.prisma.tracker.findMany({
    where: { shopId: shop.id },
    orderBy: [{ trackingNumber: 'asc' }, { provider: 'asc' }],
  });
}

/** The trackers the shop wants, as "number@provider". */
async function wanted(shop: Shop): Promise<string[]> {
  return (await trackers(shop))
    .filter((t) => t.desired === 'active')
    .map((t) => `${t.trackingNumber}@${t.provider}`);
}

const t = (minute: number) => new Date(Date.UTC(2026, 10, 18, 12, minute));

describe('helpers', () => {
  it('cancelled statuses', () => {
    for (const s of ['cancelled', 'Canceled', 'error', 'failure']) expect(isCancelledStatus(s)).toBe(true);
    for (const s of ['success', 'open', 'pending']) expect(isCancelledStatus(s)).toBe(false);
  });

  it('orderKeyFor: the order id, or the name without # when the shop says so', () => {
    expect(orderKeyFor({ orderIdSource: 'id' }, '6120000000001', '#1001')).toBe('6120000000001');
    expect(orderKeyFor({ orderIdSource: 'name' }, '6120000000001', '#1001')).toBe('1001');
    expect(orderKeyFor({ orderIdSource: 'name' }, '6120000000001', null)).toBe('6120000000001');
    expect(orderKeyFor({ orderIdSource: 'name' }, '6120000000001', '#')).toBe('6120000000001');
  });

  it('inSync', () => {
    expect(inSync('active', 'present')).toBe(true);
    expect(inSync('removed', 'absent')).toBe(true);
    expect(inSync('active', 'absent')).toBe(false);
    expect(inSync('active', 'unknown')).toBe(false);
    expect(inSync('removed', 'unknown')).toBe(false);
    expect(inSync('removed', 'present')).toBe(false);
  });
});

describe('applyFulfillment', () => {
  it('makes one line and one pending tracker per tracking number', async () => {
    const shop = await shopWith();
    const outcome = await db.prisma.$transaction((tx) =>
      applyFulfillment(tx, shop, fulfillmentPayload.parse(fixture('fulfillments-create.dhl-two-parcels')), {
        matcher: noList,
        overrides: new Map(),
      }),
    );
    expect(outcome).toEqual({ kind: 'applied', trackersTouched: 2, linesWaitingForCarrier: 0 });
    const rows = await trackers(shop);
    expect(rows).toEqual([
      expect.objectContaining({
        trackingNumber: '1234567890',
        provider: 'dhl-express',
        orderKey: '6120000000002',
        postalCode: '80331',
        destinationCountry: 'DE',
        desired: 'active',
        remote: 'absent',
        syncState: 'pending',
        attempts: 0,
      }),
      expect.objectContaining({ trackingNumber: '1234567891', provider: 'dhl-express', desired: 'active' }),
    ]);
    const lines = await db.prisma.trackingLine.findMany({ where: { shopId: shop.id } });
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.active && l.trackerId !== null && l.orderName === '#1002')).toBe(true);
    expect(await db.prisma.fulfillment.findFirst({ where: { shopId: shop.id } })).toMatchObject({
      fulfillmentId: '5521012345690',
      orderId: '6120000000002',
      status: 'success',
      carrierName: 'DHL Express',
    });
  });

  it('keeps a line waiting (no tracker) while its carrier maps to no provider', async () => {
    const shop = await shopWith();
    const outcome = await apply(shop, { carrier: 'Acme Couriers', trackingNumbers: ['AC1', 'AC2'] });
    expect(outcome).toEqual({ kind: 'applied', trackersTouched: 0, linesWaitingForCarrier: 2 });
    expect(await trackers(shop)).toEqual([]);
    const lines = await db.prisma.trackingLine.findMany({ where: { shopId: shop.id } });
    expect(lines.map((l) => [l.trackerId, l.carrierKey, l.active])).toEqual([
      [null, 'acmecouriers', true],
      [null, 'acmecouriers', true],
    ]);
  });

  it('is idempotent: the same event twice changes nothing', async () => {
    const shop = await shopWith();
    await apply(shop, { updatedAt: t(1), trackingNumbers: ['A1', 'A2'] });
    const before = await trackers(shop);
    const outcome = await apply(shop, { updatedAt: t(1), trackingNumbers: ['A1', 'A2'] });
    expect(outcome.kind).toBe('applied');
    expect(await trackers(shop)).toEqual(before);
  });

  it('newest updated_at wins: an older update arriving late is stale', async () => {
    const shop = await shopWith();
    await apply(shop, { updatedAt: t(5), trackingNumbers: ['NEW'] });
    const outcome = await apply(shop, { updatedAt: t(1), trackingNumbers: ['OLD'] });
    expect(outcome).toEqual({ kind: 'stale', why: expect.stringMatching(/newer/) });
    expect(await wanted(shop)).toEqual(['NEW@ups']);
    expect(
      (await db.prisma.fulfillment.findFirstOrThrow({ where: { shopId: shop.id } })).sourceUpdatedAt,
    ).toEqual(t(5));
  });

  it('an updated_at far ahead is taken as now: it applies, and a later real update is not turned away', async () => {
    const shop = await shopWith();
    const before = Date.now();
    const first = await apply(shop, {
      updatedAt: new Date('9999-12-31T00:00:00Z'),
      trackingNumbers: ['FAR'],
    });
    expect(first.kind).toBe('applied');
    const row = () => db.prisma.fulfillment.findFirstOrThrow({ where: { shopId: shop.id } });
    const clamped = (await row()).sourceUpdatedAt.getTime();
    expect(clamped).toBeGreaterThanOrEqual(before);
    expect(clamped).toBeLessThanOrEqual(Date.now());
    const later = new Date(clamped + 1000);
    expect((await apply(shop, { updatedAt: later, trackingNumbers: ['REAL'] })).kind).toBe('applied');
    expect(await wanted(shop)).toEqual(['REAL@ups']);
    expect((await row()).sourceUpdatedAt).toEqual(later);
  });

  it('a far-future updated_at stored before the bound holds no update back', async () => {
    const shop = await shopWith();
    await apply(shop, { updatedAt: t(1), trackingNumbers: ['OLD'] });
    await db.prisma.fulfillment.updateMany({
      where: { shopId: shop.id },
      data: { sourceUpdatedAt: new Date('9999-12-31T00:00:00Z') },
    });
    expect((await apply(shop, { updatedAt: t(2), trackingNumbers: ['NEW'] })).kind).toBe('applied');
    expect(await wanted(shop)).toEqual(['NEW@ups']);
  });

  it('a cancellation is final: a later non-cancelled update, even a newer one, is stale', async () => {
    const shop = await shopWith();
    await apply(shop, { updatedAt: t(1), trackingNumbers: ['A1'] });
    expect(
      await apply(shop, { updatedAt: t(2), status: 'cancelled', trackingNumbers: ['A1'] }),
    ).toMatchObject({
      kind: 'applied',
      trackersTouched: 1,
    });
    expect(await wanted(shop)).toEqual([]);
    expect(await apply(shop, { updatedAt: t(9), trackingNumbers: ['A1', 'A2'] })).toMatchObject({
      kind: 'stale',
    });
    expect(await wanted(shop)).toEqual([]);
    expect(await db.prisma.trackingLine.count({ where: { shopId: shop.id, active: true } })).toBe(0);
  });

  it('a cancellation wins even when it is older than the update already applied', async () => {
    const shop = await shopWith();
    await apply(shop, { updatedAt: t(5), trackingNumbers: ['A1'] });
    expect(await apply(shop, { updatedAt: t(1), status: 'cancelled' })).toMatchObject({ kind: 'applied' });
    expect(await wanted(shop)).toEqual([]);
    const row = await db.prisma.fulfillment.findFirstOrThrow({ where: { shopId: shop.id } });
    expect(row).toMatchObject({ status: 'cancelled', sourceUpdatedAt: t(5) });
  });

  it('a fulfilment first seen cancelled makes no tracker', async () => {
    const shop = await shopWith();
    await apply(shop, { updatedAt: t(2), status: 'cancelled', trackingNumbers: ['A1'] });
    expect(await apply(shop, { updatedAt: t(1), trackingNumbers: ['A1'] })).toMatchObject({ kind: 'stale' });
    expect(await wanted(shop)).toEqual([]);
  });

  it('changed numbers: the dropped lines go inactive, new ones are made', async () => {
    const shop = await shopWith();
    await apply(shop, { updatedAt: t(1), trackingNumbers: ['A1', 'A2'] });
    await apply(shop, { updatedAt: t(2), trackingNumbers: ['A1', 'A3'] });
    expect(await wanted(shop)).toEqual(['A1@ups', 'A3@ups']);
    const lines = await db.prisma.trackingLine.findMany({
      where: { shopId: shop.id },
      orderBy: { trackingNumber: 'asc' },
    });
    expect(lines.map((l) => [l.trackingNumber, l.active])).toEqual([
      ['A1', true],
      ['A2', false],
      ['A3', true],
    ]);
    const a2 = (await trackers(shop)).find((x) => x.trackingNumber === 'A2')!;
    expect(a2).toMatchObject({ desired: 'removed', syncState: 'synced' }); // never created remotely
  });

  it('a number dropped and then listed again is wanted again', async () => {
    const shop = await shopWith();
    await apply(shop, { updatedAt: t(1), trackingNumbers: ['A1'] });
    await apply(shop, { updatedAt: t(2), trackingNumbers: ['B1'] });
    await apply(shop, { updatedAt: t(3), trackingNumbers: ['A1'] });
    expect(await wanted(shop)).toEqual(['A1@ups']);
  });

  it('the DHL correction fixture: the corrected parcel replaces the wrong one', async () => {
    const shop = await shopWith();
    for (const name of ['fulfillments-create.dhl-two-parcels', 'fulfillments-update.tracking-corrected']) {
      await db.prisma.$transaction((tx) =>
        applyFulfillment(tx, shop, fulfillmentPayload.parse(fixture(name)), {
          matcher: noList,
          overrides: new Map(),
        }),
      );
    }
    expect(await wanted(shop)).toEqual(['1234567890@dhl-express', '1234567899@dhl-express']);
  });

  it('changed carrier: the line is re-pointed to the other provider’s tracker', async () => {
    const shop = await shopWith();
    await apply(shop, { updatedAt: t(1), carrier: 'UPS', trackingNumbers: ['X1'] });
    const outcome = await apply(shop, { updatedAt: t(2), carrier: 'FedEx', trackingNumbers: ['X1'] });
    expect(outcome).toMatchObject({ kind: 'applied', trackersTouched: 2 });
    expect(await wanted(shop)).toEqual(['X1@fedex']);
    const line = await db.prisma.trackingLine.findFirstOrThrow({ where: { shopId: shop.id } });
    const fedex = (await trackers(shop)).find((x) => x.provider === 'fedex')!;
    expect(line).toMatchObject({
      carrierName: 'FedEx',
      carrierKey: 'fedex',
      trackerId: fedex.id,
      active: true,
    });
  });

  it('a carrier changed to one that maps to nothing leaves the line waiting and the old tracker unwanted', async () => {
    const shop = await shopWith();
    await apply(shop, { updatedAt: t(1), carrier: 'UPS', trackingNumbers: ['X1'] });
    expect(await apply(shop, { updatedAt: t(2), carrier: 'Acme', trackingNumbers: ['X1'] })).toMatchObject({
      linesWaitingForCarrier: 1,
    });
    expect(await wanted(shop)).toEqual([]);
    expect(
      (await db.prisma.trackingLine.findFirstOrThrow({ where: { shopId: shop.id } })).trackerId,
    ).toBeNull();
  });

  it('a number on two fulfilments stays wanted until both let it go', async () => {
    const shop = await shopWith();
    await apply(shop, { id: 1, updatedAt: t(1), trackingNumbers: ['SHARED'] });
    await apply(shop, { id: 2, updatedAt: t(1), trackingNumbers: ['SHARED'] });
    expect(await trackers(shop)).toHaveLength(1);
    await apply(shop, { id: 1, updatedAt: t(2), status: 'cancelled' });
    expect(await wanted(shop)).toEqual(['SHARED@ups']);
    await apply(shop, { id: 2, updatedAt: t(2), status: 'cancelled' });
    expect(await wanted(shop)).toEqual([]);
  });

  it('createOnFulfillment off: lines are kept but want no tracker', async () => {
    const shop = await shopWith({ createOnFulfillment: false });
    await apply(shop, { updatedAt: t(1), trackingNumbers: ['A1'] });
    await apply(shop, { updatedAt: t(2), trackingNumbers: ['A1', 'A2'] });
    expect(await wanted(shop)).toEqual([]);
    expect(await db.prisma.tracker.count({ where: { shopId: shop.id, syncState: 'pending' } })).toBe(0);
    expect(await db.prisma.trackingLine.count({ where: { shopId: shop.id, active: false } })).toBe(2);
  });

  it('deleteOnCancel off: a cancelled fulfilment keeps its trackers', async () => {
    const shop = await shopWith({ deleteOnCancel: false });
    await apply(shop, { updatedAt: t(1), trackingNumbers: ['A1'] });
    await apply(shop, { updatedAt: t(2), status: 'cancelled' });
    expect(await wanted(shop)).toEqual(['A1@ups']);
  });

  it('orderIdSource name: sends the order name without #', async () => {
    const shop = await shopWith({ orderIdSource: 'name' });
    await apply(shop, { name: '#1001.1', trackingNumbers: ['N1'] });
    await apply(shop, { id: 2, orderId: 42, name: null, trackingNumbers: ['N2'] });
    const rows = await trackers(shop);
    expect(rows.map((r) => [r.trackingNumber, r.orderKey])).toEqual([
      ['N1', '1001'],
      ['N2', '42'],
    ]);
  });

  it('a fulfilment without tracking numbers lets go of every line', async () => {
    const shop = await shopWith();
    await apply(shop, { updatedAt: t(1), trackingNumbers: ['A1'] });
    await apply(shop, { updatedAt: t(2), trackingNumbers: [], trackingNumber: null });
    expect(await wanted(shop)).toEqual([]);
  });
});

describe('applyOrderCancelled', () => {
  it('after fulfilments: every tracker of the order goes, other orders are untouched', async () => {
    const shop = await shopWith();
    await apply(shop, { id: 1, orderId: 100, trackingNumbers: ['A1', 'A2'] });
    await apply(shop, { id: 2, orderId: 100, trackingNumbers: ['A3'] });
    await apply(shop, { id: 3, orderId: 200, trackingNumbers: ['B1'] });
    expect(await cancelOrder(shop, 100)).toEqual({
      kind: 'applied',
      trackersTouched: 3,
      linesWaitingForCarrier: 0,
    });
    expect(await wanted(shop)).toEqual(['B1@ups']);
    expect(await db.prisma.cancelledOrder.count({ where: { shopId: shop.id } })).toBe(1);
  });

  it('before fulfilments: fulfilments of the order that arrive later make no tracker', async () => {
    const shop = await shopWith();
    await cancelOrder(shop, 100);
    await apply(shop, { id: 1, orderId: 100, updatedAt: t(1), trackingNumbers: ['A1'] });
    await apply(shop, { id: 1, orderId: 100, updatedAt: t(2), trackingNumbers: ['A1', 'A2'] });
    expect(await wanted(shop)).toEqual([]);
    expect(await db.prisma.trackingLine.count({ where: { shopId: shop.id, active: true } })).toBe(0);
  });

  it('is idempotent', async () => {
    const shop = await shopWith();
    await apply(shop, { orderId: 100, trackingNumbers: ['A1'] });
    await cancelOrder(shop, 100);
    const before = await trackers(shop);
    expect(await cancelOrder(shop, 100)).toMatchObject({ trackersTouched: 0 });
    expect(await trackers(shop)).toEqual(before);
  });

  it('deleteOnCancel off: the order’s trackers stay, whether the cancel comes before or after', async () => {
    const after = await shopWith({ deleteOnCancel: false });
    await apply(after, { orderId: 100, updatedAt: t(1), trackingNumbers: ['A1'] });
    await cancelOrder(after, 100);
    await apply(after, { orderId: 100, updatedAt: t(2), trackingNumbers: ['A1', 'A2'] });

    const before = await shopWith({ deleteOnCancel: false });
    await cancelOrder(before, 100);
    await apply(before, { orderId: 100, updatedAt: t(1), trackingNumbers: ['A1'] });
    await apply(before, { orderId: 100, updatedAt: t(2), trackingNumbers: ['A1', 'A2'] });

    expect(await wanted(after)).toEqual(['A1@ups', 'A2@ups']);
    expect(await wanted(before)).toEqual(['A1@ups', 'A2@ups']);
  });
});

describe('remapLines', () => {
  it('after a mapping is saved, points the lines with that carrier name at the mapped provider', async () => {
    const shop = await shopWith();
    await apply(shop, { id: 1, carrier: 'Acme Couriers', trackingNumbers: ['AC1', 'AC2'] });
    await apply(shop, { id: 2, carrier: 'Other Post', trackingNumbers: ['OP1'] });
    const carriers = createCarrierRepository(db.prisma);
    await carriers.setOverride(db.prisma, shop.id, 'ACME couriers', 'dhl');
    const outcome = await db.prisma.$transaction(async (tx) =>
      remapLines(
        tx,
        shop,
        { matcher: noList, overrides: await carrierOverrides(tx, shop.id) },
        'acme-couriers',
      ),
    );
    expect(outcome).toEqual({ trackersTouched: 2, linesRemapped: 2, stillWaiting: 0 });
    expect(await wanted(shop)).toEqual(['AC1@dhl', 'AC2@dhl']);
    expect(await db.prisma.tracker.count({ where: { shopId: shop.id, syncState: 'pending' } })).toBe(2);
  });

  it('after a mapping changes, the old provider’s trackers are let go', async () => {
    const shop = await shopWith();
    const carriers = createCarrierRepository(db.prisma);
    await carriers.setOverride(db.prisma, shop.id, 'Acme', 'dhl');
    await apply(shop, { carrier: 'Acme', trackingNumbers: ['AC1'] });
    expect(await wanted(shop)).toEqual(['AC1@dhl']);
    await carriers.setOverride(db.prisma, shop.id, 'Acme', 'gls');
    await db.prisma.$transaction(async (tx) =>
      remapLines(tx, shop, { matcher: noList, overrides: await carrierOverrides(tx, shop.id) }, 'Acme'),
    );
    expect(await wanted(shop)).toEqual(['AC1@gls']);
  });

  it('without a carrier name, retries every waiting line (after the carrier list grew)', async () => {
    const shop = await shopWith();
    await apply(shop, { id: 1, carrier: 'Acme Couriers', trackingNumbers: ['AC1'] });
    await apply(shop, { id: 2, carrier: 'Nobody Post', trackingNumbers: ['NP1'] });
    const matcher = createCarrierMatcher([{ slug: 'acme', label: 'Acme Couriers' }]);
    const outcome = await db.prisma.$transaction((tx) =>
      remapLines(tx, shop, { matcher, overrides: new Map() }),
    );
    expect(outcome).toEqual({ trackersTouched: 1, linesRemapped: 2, stillWaiting: 1 });
    expect(await wanted(shop)).toEqual(['AC1@acme']);
  });

  it('leaves inactive lines alone', async () => {
    const shop = await shopWith();
    await apply(shop, { orderId: 100, carrier: 'Acme', trackingNumbers: ['AC1'] });
    await cancelOrder(shop, 100);
    const matcher = createCarrierMatcher([{ slug: 'acme', label: 'Acme' }]);
    expect(
      await db.prisma.$transaction((tx) => remapLines(tx, shop, { matcher, overrides: new Map() })),
    ).toEqual({
      trackersTouched: 0,
      linesRemapped: 0,
      stillWaiting: 0,
    });
    expect(await wanted(shop)).toEqual([]);
  });
});

describe('recompute', () => {
  async function markSynced(id: string, patch: Partial<Tracker> = {}) {
    await db.prisma.tracker.update({
      where: { id },
      data: { remote: 'present', syncState: 'synced', syncedAt: new Date(), ...patch },
    });
  }

  it('leaves a synced tracker alone when nothing about it changed (no version bump)', async () => {
    const shop = await shopWith();
    await apply(shop, { updatedAt: t(1), trackingNumbers: ['A1'] });
    const [tracker] = await trackers(shop);
    await markSynced(tracker!.id);
    const before = await db.prisma.tracker.findUniqueOrThrow({ where: { id: tracker!.id } });
    await apply(shop, { updatedAt: t(2), trackingNumbers: ['A1'] });
    await db.prisma.$transaction((tx) => recompute(tx, [tracker!.id]));
    expect(await db.prisma.tracker.findUniqueOrThrow({ where: { id: tracker!.id } })).toEqual(before);
  });

  it('does not change the destination of a tracker the service already holds', async () => {
    const shop = await shopWith();
    await apply(shop, { updatedAt: t(1), trackingNumbers: ['A1'] });
    const [tracker] = await trackers(shop);
    await markSynced(tracker!.id);
    await apply(shop, {
      updatedAt: t(2),
      trackingNumbers: ['A1'],
      destination: { zip: '99999', country_code: 'CA' },
    });
    expect(await db.prisma.tracker.findUniqueOrThrow({ where: { id: tracker!.id } })).toMatchObject({
      syncState: 'synced',
      postalCode: '40003',
    });
  });

  it('puts a failed tracker back to pending only when its details changed', async () => {
    const shop = await shopWith();
    await apply(shop, {
      updatedAt: t(1),
      carrier: 'PostNL International 3S',
      trackingNumbers: ['3S1'],
      destination: null,
    });
    const [tracker] = await trackers(shop);
    await db.prisma.tracker.update({
      where: { id: tracker!.id },
      data: {
        syncState: 'failed',
        attempts: 1,
        lastErrorReason: 'destination_required',
        lastError: 'postal_code…',
      },
    });

    await apply(shop, {
      updatedAt: t(2),
      carrier: 'PostNL International 3S',
      trackingNumbers: ['3S1'],
      destination: null,
    });
    expect(await db.prisma.tracker.findUniqueOrThrow({ where: { id: tracker!.id } })).toMatchObject({
      syncState: 'failed',
      attempts: 1,
    });

    const versionBefore = (await db.prisma.tracker.findUniqueOrThrow({ where: { id: tracker!.id } })).version;
    await apply(shop, {
      updatedAt: t(3),
      carrier: 'PostNL International 3S',
      trackingNumbers: ['3S1'],
      destination: { zip: '1015 CV', country_code: 'NL' },
    });
    const after = await db.prisma.tracker.findUniqueOrThrow({ where: { id: tracker!.id } });
    expect(after).toMatchObject({
      syncState: 'pending',
      attempts: 0,
      postalCode: '1015 CV',
      destinationCountry: 'NL',
      lastError: null,
      lastErrorReason: null,
    });
    expect(after.version).toBe(versionBefore + 1);
    expect(after.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('a tracker let go and wanted again before it was deleted is simply back in sync', async () => {
    const shop = await shopWith();
    await apply(shop, { updatedAt: t(1), trackingNumbers: ['A1'] });
    const [tracker] = await trackers(shop);
    await markSynced(tracker!.id);
    await apply(shop, { updatedAt: t(2), trackingNumbers: ['B1'] });
    expect(await db.prisma.tracker.findUniqueOrThrow({ where: { id: tracker!.id } })).toMatchObject({
      desired: 'removed',
      syncState: 'pending',
    });
    await apply(shop, { updatedAt: t(3), trackingNumbers: ['A1'] });
    expect(await db.prisma.tracker.findUniqueOrThrow({ where: { id: tracker!.id } })).toMatchObject({
      desired: 'active',
      remote: 'present',
      syncState: 'synced',
    });
  });

  it('every write bumps the optimistic version; a missing tracker is skipped', async () => {
    const shop = await shopWith();
    await apply(shop, { updatedAt: t(1), trackingNumbers: ['A1'] });
    const [tracker] = await trackers(shop);
    const v0 = tracker!.version;
    await apply(shop, { updatedAt: t(2), trackingNumbers: [] });
    const v1 = (await db.prisma.tracker.findUniqueOrThrow({ where: { id: tracker!.id } })).version;
    expect(v1).toBe(v0 + 1);
    await db.prisma.$transaction((tx) => recompute(tx, ['no-such-tracker', tracker!.id]));
    expect((await db.prisma.tracker.findUniqueOrThrow({ where: { id: tracker!.id } })).version).toBe(v1);
  });
});
