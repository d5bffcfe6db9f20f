import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackerOverrides } from '../helpers/factories.js';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/app.js';
import { createTracker } from '../helpers/factories.js';
import { installShop } from '../helpers/install.js';
import { clientAddress, signedProxyQuery } from '../helpers/proxy.js';

/**
 * GET /proxy: the shopper's page says when a parcel should arrive, "Arriving …" for the service's own
 * estimate and "Expected by …" for one predicted from the store's deliveries, never for a delivered parcel
 * nor a number the service cannot follow.
 */

let app: TestApp;
let shopId: string;
const shop = 'proxy-estimates.myshopify.com';
let seq = 0;

beforeAll(async () => {
  app = await startTestApp({ connect: false });
  shopId = (await app.database.prisma.shop.create({ data: { domain: shop } })).id;
  await installShop(app, shop);
});
afterAll(async () => {
  await app?.close();
});

/** A wanted parcel with this stored status and estimates; returns its tracking number. */
async function parcel(overrides: TrackerOverrides, predictedDelivery: string | null = null): Promise<string> {
  const trackingNumber = `1ZESTIMATE${String(++seq).padStart(7, '0')}`;
  const tracker = await createTracker(app.database.prisma, shopId, {
    trackingNumber,
    desired: 'active',
    remote: 'present',
    syncState: 'synced',
    statusCheckedAt: new Date(),
    ...overrides,
  });
  await app.database.prisma.tracker.update({ where: { id: tracker.id }, data: { predictedDelivery } });
  await app.database.prisma.trackingLine.create({
    data: {
      shopId,
      fulfillmentId: `f-estimate-${seq}`,
      orderId: `o-estimate-${seq}`,
      trackingNumber,
      carrierName: 'UPS',
      trackerId: tracker.id,
    },
  });
  return trackingNumber;
}

async function page(tracking: string, locale?: string): Promise<string> {
  const query = signedProxyQuery(
    { shop, path_prefix: '/apps/track', tracking, ...(locale ? { locale } : {}) },
    TEST_SECRET,
  );
  const res = await fetch(`${app.url}/proxy?${query}`, { headers: { 'x-forwarded-for': clientAddress() } });
  expect(res.status).toBe(200);
  return res.text();
}

describe('the shoppers’ page: when the parcel should arrive', () => {
  it('the service’s estimate: "Arriving Thursday, 27 November"', async () => {
    const number = await parcel({ status: 'in_transit', estimatedDelivery: '2025-11-27' }, null);
    const body = await page(number);
    expect(body).toContain('data-estimate="service">Arriving Thursday, 27 November</h2>');
    expect(body).not.toContain('Expected by');
  });

  it('a predicted one: "Expected by Thursday, 26 November"; the service’s own wins over it', async () => {
    const predicted = await parcel({ status: 'in_transit', estimatedDelivery: null }, '2026-11-26');
    expect(await page(predicted)).toContain(
      'data-estimate="predicted">Expected by Thursday, 26 November</h2>',
    );
    const both = await parcel({ status: 'in_transit', estimatedDelivery: '2025-11-27' }, '2026-11-26');
    const body = await page(both);
    expect(body).toContain('Arriving Thursday, 27 November');
    expect(body).not.toContain('Expected by');
  });

  it('in the store’s language', async () => {
    const service = await parcel({ status: 'in_transit', estimatedDelivery: '2025-11-27' });
    const predicted = await parcel({ status: 'pending' }, '2026-11-26');
    expect(await page(service, 'de')).toContain('Zustellung am Donnerstag, 27. November');
    expect(await page(predicted, 'de')).toContain('Voraussichtlich bis Donnerstag, 26. November');
    expect(await page(predicted, 'fr')).toContain('Livraison prévue d’ici le jeudi 26 novembre');
  });

  it('none for a delivered parcel, nor for a number the service cannot follow', async () => {
    for (const overrides of [
      { status: 'delivered', estimatedDelivery: '2025-11-27' },
      { status: 'invalid_tracking', estimatedDelivery: '2025-11-27' },
      { status: 'connection_issue' },
    ]) {
      const body = await page(await parcel(overrides, '2026-11-26'));
      expect(body, overrides.status).toContain('data-group=');
      expect(body, overrides.status).not.toMatch(/data-estimate|Arriving|Expected by/);
    }
  });
});
