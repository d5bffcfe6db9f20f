import { silentLogger } from '../../src/logger.js';
/** The use cases behind the CLI's carriers:map and jobs:retry, in-process. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCarrierRepository } from '../../src/carriers/carrier-repository.js';
import { closeSlugs, mapCarrier } from '../../src/trackers/map-carrier.js';
import { createCarrierMatcher } from '../../src/carriers/match.js';
import { listFailed, retryFailed } from '../../src/jobs/retry-failed.js';
import { ensureShop } from '../../src/shops/shop-repository.js';
import { createTrackingClient } from '../../src/tracking/client.js';
import { applyFulfillment } from '../../src/trackers/desired-state.js';
import { fulfillmentPayload } from '../../src/trackers/fulfillment-payload.js';
import { useTestDatabase } from '../helpers/database.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { fixture } from '../helpers/webhooks.js';

const shopDomain = 'usecase-shop.myshopify.com';
const database = useTestDatabase();
let emulator: TestEmulator;

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(async () => {
  await emulator?.close();
});

function deps() {
  return {
    prisma: database.prisma,
    carriers: createCarrierRepository(database.prisma, { matcherTtlMs: 0 }),
    client: createTrackingClient({ baseUrl: emulator.baseUrl, retry: { maxAttempts: 1 } }),
    logger: silentLogger,
  };
}

/** A fulfilment of `carrierName` applied as the webhook worker would, with an empty carrier list. */
async function fulfil(id: number, carrierName: string, trackingNumber: string) {
  const payload = fulfillmentPayload.parse({
    ...fixture('fulfillments-create.ups'),
    id,
    tracking_company: carrierName,
    tracking_number: trackingNumber,
    tracking_numbers: [trackingNumber],
  });
  return database.prisma.$transaction(async (tx) => {
    const shop = await ensureShop(tx, shopDomain);
    return applyFulfillment(tx, shop, payload, { matcher: createCarrierMatcher([]), overrides: new Map() });
  });
}

describe('mapCarrier', () => {
  beforeEach(async () => {
    await database.prisma.carrier.deleteMany({});
    await emulator.control.clearCalls();
  });

  it('refuses invalid input and an unknown shop', async () => {
    expect(await mapCarrier(deps(), { shopDomain: 'nope', carrierName: 'x', slug: 'ups' })).toMatchObject({
      ok: false,
      reason: 'invalid_input',
    });
    expect(
      await mapCarrier(deps(), { shopDomain: shopDomain, carrierName: '!!!', slug: 'ups' }),
    ).toMatchObject({ ok: false, reason: 'invalid_input', message: expect.stringContaining('carrierName') });
    expect(
      await mapCarrier(deps(), { shopDomain: 'ghost.myshopify.com', carrierName: 'Speedy', slug: 'ups' }),
    ).toMatchObject({ ok: false, reason: 'shop_not_found' });
  });

  it('fetches the carrier list first when the cache is empty, then releases the waiting lines', async () => {
    const applied = await fulfil(7001, 'Speedy Parcels Ltd', 'SPD-1');
    expect(applied).toMatchObject({ kind: 'applied', linesWaitingForCarrier: 1 });
    await fulfil(7002, 'speedy parcels ltd.', 'SPD-2'); // the same name, written differently
    await fulfil(7003, 'Other Courier', 'OTH-1');

    const result = await mapCarrier(deps(), {
      shopDomain: 'USECASE-shop.myshopify.com ',
      carrierName: ' Speedy Parcels Ltd',
      slug: 'DPD',
    });
    expect(result).toEqual({
      ok: true,
      shopDomain,
      carrierName: 'Speedy Parcels Ltd',
      slug: 'dpd',
      linesRemapped: 2,
      stillWaiting: 0,
      trackersTouched: 2,
    });
    expect(await emulator.control.calls({ operation: 'providers' })).toHaveLength(1);

    const trackers = await database.prisma.tracker.findMany({ orderBy: { trackingNumber: 'asc' } });
    expect(trackers.map((t) => [t.trackingNumber, t.provider, t.desired, t.syncState])).toEqual([
      ['SPD-1', 'dpd', 'active', 'pending'],
      ['SPD-2', 'dpd', 'active', 'pending'],
    ]);
    const waiting = await database.prisma.trackingLine.findMany({ where: { trackerId: null } });
    expect(waiting.map((l) => l.carrierName)).toEqual(['Other Courier']);
    expect(await database.prisma.carrierMapping.findMany()).toMatchObject([
      { nameKey: 'speedyparcelsltd', carrierName: 'Speedy Parcels Ltd', slug: 'dpd' },
    ]);
  });

  it('moves lines to a new mapping: the old tracker is no longer wanted', async () => {
    const result = await mapCarrier(deps(), {
      shopDomain,
      carrierName: 'Speedy Parcels Ltd',
      slug: 'dpd-uk',
    });
    expect(result).toMatchObject({ ok: true, linesRemapped: 2, stillWaiting: 0, trackersTouched: 4 });
    const byProvider = await database.prisma.tracker.groupBy({
      by: ['provider', 'desired'],
      _count: { _all: true },
      orderBy: { provider: 'asc' },
    });
    expect(byProvider.map((g) => [g.provider, g.desired, g._count._all])).toEqual([
      ['dpd', 'removed', 2],
      ['dpd-uk', 'active', 2],
    ]);
  });

  it('refuses a slug the service does not offer, with close ones', async () => {
    const result = await mapCarrier(deps(), { shopDomain, carrierName: 'Speedy', slug: 'royal' });
    expect(result).toMatchObject({ ok: false, reason: 'unknown_slug' });
    if (!result.ok && result.reason === 'unknown_slug') {
      expect(result.suggestions).toContain('royal-mail');
      expect(result.suggestions.length).toBeLessThanOrEqual(5);
      expect(result.message).toContain('royal-mail');
    }
  });

  it('says so when the list is empty and the service cannot be reached', async () => {
    const unreachable = {
      ...deps(),
      client: createTrackingClient({ baseUrl: 'http://127.0.0.1:9/v1', retry: { maxAttempts: 1 } }),
    };
    const result = await mapCarrier(unreachable, { shopDomain, carrierName: 'Speedy', slug: 'dpd' });
    expect(result).toMatchObject({ ok: false, reason: 'carriers_unavailable' });
  });

  it('closeSlugs: prefixes first, then substrings of slug or label, at most five', () => {
    const providers = [
      { slug: 'dhl', label: 'DHL' },
      { slug: 'dhl-express', label: 'DHL Express' },
      { slug: 'dhl-paket', label: 'DHL Paket' },
      { slug: 'deutsche-post', label: 'Deutsche Post DHL' },
      { slug: 'ups', label: 'UPS' },
    ];
    expect(closeSlugs(providers, 'dhl-exp')).toEqual(['dhl', 'dhl-express']);
    expect(closeSlugs(providers, 'DHL')).toEqual(['dhl', 'dhl-express', 'dhl-paket', 'deutsche-post']);
    expect(closeSlugs(providers, 'express')).toEqual(['dhl-express']);
    expect(closeSlugs(providers, 'zzz')).toEqual([]);
    expect(closeSlugs(providers, 'd', 2)).toHaveLength(2);
  });
});

describe('retryFailed', () => {
  it('retries only the deliveries named, and leaves trackers alone', async () => {
    const shop = await ensureShop(database.prisma, 'retry-shop.myshopify.com');
    const tracker = await database.prisma.tracker.create({
      data: { shopId: shop.id, trackingNumber: 'R-1', provider: 'ups', orderKey: '1', syncState: 'failed' },
    });
    const delivery = await database.prisma.webhookDelivery.create({
      data: {
        shopDomain: shop.domain,
        topic: 'orders/cancelled',
        eventId: 'retry-ev',
        webhookId: 'retry-ev',
        payload: '{}',
        state: 'failed',
      },
    });
    const result = await retryFailed(database.prisma, { deliveryIds: [delivery.id, 'no-such-id'] });
    expect(result).toEqual({
      trackersReset: 0,
      deliveriesReset: 1,
      deliveriesSkipped: 0,
      notFailed: ['no-such-id'],
    });
    expect((await database.prisma.tracker.findUniqueOrThrow({ where: { id: tracker.id } })).syncState).toBe(
      'failed',
    );
    const listed = await listFailed(database.prisma, { shopDomain: shop.domain });
    expect(listed.trackers.map((t) => t.id)).toEqual([tracker.id]);
    expect(listed.deliveries).toEqual([]);
  });
});
