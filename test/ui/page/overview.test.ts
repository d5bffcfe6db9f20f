import { describe, expect, it } from 'vitest';
import { browserSuite } from '../../helpers/browser-suite.js';
import type { Analytics } from '../../../src/ui/api/analytics.js';
import {
  installShop,
  openPage,
  expectVitals,
  readVitals,
  gapBetween,
  screenshot,
  screenshotBothWidths,
  sessionTokenFor,
  setSessionToken,
  waitForPageReady,
} from '../../helpers/browser.js';
import { createTracker } from '../../helpers/factories.js';
import { addShop } from '../../helpers/scenario.js';

/**
 * The Overview in Debian's Chromium: the setup guide for a new store; health and delivery analytics for
 * a running one, their numbers held against seeded data; one banner when the session expires.
 */

const suite = browserSuite();

const dayMs = 86_400_000;

/** UPS: delivered in 2 and 4 days (one on time, one late); DHL: one exception and one in transit. */
async function runningShop() {
  const shop = await addShop(suite.app, 'overview');
  await installShop(suite.app, shop.domain);
  const now = Date.now();
  const ago = (days: number) => new Date(now - days * dayMs);
  const events = (...list: Array<[Date, string]>) =>
    JSON.stringify(list.map(([at, status]) => ({ at: at.toISOString(), status, message: status })));
  const base = { desired: 'active', remote: 'present', syncState: 'synced' } as const;
  await createTracker(suite.app.database.prisma, shop.id, {
    ...base,
    trackingNumber: '1ZOVERVIEW1',
    provider: 'ups',
    createdAt: ago(6),
    status: 'delivered',
    events: events([ago(5), 'in_transit'], [ago(3), 'delivered']),
    estimatedDelivery: ago(3).toISOString().slice(0, 10),
  });
  await createTracker(suite.app.database.prisma, shop.id, {
    ...base,
    trackingNumber: '1ZOVERVIEW2',
    provider: 'ups',
    createdAt: ago(6),
    status: 'delivered',
    events: events([ago(5), 'in_transit'], [ago(1), 'delivered']),
    estimatedDelivery: ago(2).toISOString().slice(0, 10),
  });
  await createTracker(suite.app.database.prisma, shop.id, {
    ...base,
    trackingNumber: 'DHLOVERVIEW1',
    provider: 'dhl',
    createdAt: ago(4),
    status: 'exception',
    events: events([ago(3), 'exception']),
  });
  await createTracker(suite.app.database.prisma, shop.id, {
    ...base,
    trackingNumber: 'DHLOVERVIEW2',
    provider: 'dhl',
    createdAt: ago(2),
    status: 'in_transit',
  });
  // Each parcel on a fulfilment, as the store made it: the Overview's Shipments figure is the Shipments
  // page's count of these lines (issue 32: the summary equals the rows).
  const prisma = suite.app.database.prisma;
  for (const [i, t] of (await prisma.tracker.findMany({ where: { shopId: shop.id } })).entries()) {
    await prisma.trackingLine.create({
      data: {
        shopId: shop.id,
        fulfillmentId: `overview-${i}`,
        orderId: t.orderKey,
        trackingNumber: t.trackingNumber,
        carrierName: t.provider.toUpperCase(),
        carrierKey: t.provider,
        trackerId: t.id,
        createdAt: t.createdAt,
      },
    });
  }
  return shop;
}

describe('a new store', () => {
  it('shows the setup guide with what to do first', async () => {
    const domain = 'overview-new.myshopify.com';
    await installShop(suite.app, domain);
    const current = await suite.page();
    const { page } = current;
    await openPage(page, suite.app.url, domain, '/');
    const guide = page.locator('s-section[heading="Set up Tracksync"]');
    await guide.waitFor();
    expect(await guide.innerText()).toContain('1 of 3 steps done.');
    await guide.getByRole('link', { name: 'Connect your tracking service account' }).waitFor();
    expect(await page.locator('s-badge', { hasText: 'Not syncing' }).count()).toBe(1);
    const trackingPage = page.locator('s-section[heading="Tracking page for your customers"]');
    expect(await trackingPage.locator('s-link').first().getAttribute('href')).toBe(
      `https://${domain}/apps/track`,
    );
    expect(await page.getByTestId('tracking-page-lookups').innerText()).toBe('0 lookups answered so far.');
    expect(await page.getByTestId('tracking-links').innerText()).toContain(
      'Shipping emails link to the carriers’ sites.',
    );
    await screenshotBothWidths(page, 'overview-setup');
    expectVitals('overview (new store)', await readVitals(page), (ok, why) => expect(ok, why).toBe(true));
  });
});

describe('a running store', () => {
  it('shows health and delivery analytics whose numbers match the data, for 7/30/90 days', async () => {
    const shop = await runningShop();
    const current = await suite.page();
    const { page } = current;
    await openPage(page, suite.app.url, shop.domain, '/');
    expect(await page.locator('s-section[heading="Set up Tracksync"]').count()).toBe(0);
    expect(await page.locator('s-badge', { hasText: 'Connected' }).count()).toBe(1);

    const metric = (key: string) => page.locator(`[data-metric="${key}"] .metric-value`).innerText();
    expect(await metric('shipments')).toBe('4');
    expect(await metric('delivered')).toBe('2');
    expect(await metric('avg-transit')).toBe('3.0 d');
    expect(await metric('on-time')).toBe('50%');
    expect(await metric('exceptions')).toBe('1');

    // Carrier rows, readable without the chart, equal the API's figures.
    const api = (await (
      await fetch(`${suite.app.url}/api/analytics?days=30`, {
        headers: { authorization: `Bearer ${sessionTokenFor(shop.domain)}` },
      })
    ).json()) as Analytics;
    for (const carrier of api.carriers) {
      const cells = await page
        .locator(`s-table-row[data-carrier="${carrier.provider}"] s-table-cell`)
        .allInnerTexts();
      expect(cells.slice(0, 3)).toEqual([
        carrier.label,
        String(carrier.shipments),
        String(carrier.delivered),
      ]);
    }
    const ups = await page.locator('s-table-row[data-carrier="ups"] s-table-cell').allInnerTexts();
    expect(ups.slice(3)).toEqual(['3.0 d', '4.0 d', '50%', '0', '0']);
    const byStatus = page.locator('figure[aria-label="Shipments by status"]');
    expect(await byStatus.locator('[data-label="Delivered"] .bar-chart-value').innerText()).toBe('2');
    expect(await byStatus.locator('[data-label="Exception"] .bar-chart-value').innerText()).toBe('1');
    expectVitals('overview', await readVitals(page), (ok, why) => expect(ok, why).toBe(true));
    await screenshotBothWidths(page, 'overview');
    // At 1280 px too: no empty band between the figures and the charts, nor under the charts.
    await page.setViewportSize({ width: 1280, height: 900 });
    const gaps = {
      toCharts: await gapBetween(
        page,
        '[data-metric="failed-attempts"]',
        'figure[aria-label="Shipments by status"]',
      ),
      toTable: await gapBetween(
        page,
        'figure[aria-label="Shipments by status"]',
        's-table[aria-label="Deliveries by carrier"]',
      ),
    };
    await screenshot(page, 'overview-1280');
    expect(gaps.toCharts).toBeLessThan(60);
    expect(gaps.toTable).toBeLessThan(60);
    await page.setViewportSize({ width: 1000, height: 900 });

    // A real click (a trusted input, which INP counts), then the choice.
    await page.getByLabel('Period').click();
    await page.keyboard.press('Escape');
    await page.getByLabel('Period').selectOption('7');
    await page.waitForURL((url) => url.searchParams.get('days') === '7');
    await expect.poll(() => metric('shipments')).toBe('4');
    const vitals = await readVitals(page);
    expect(vitals.interactions).toBeGreaterThan(0);
    expectVitals('overview (after choosing a period)', vitals, (ok, why) => expect(ok, why).toBe(true));
  });

  it('an expired session shows one banner for the whole page; Try again brings it back', async () => {
    const shop = await runningShop();
    const current = await suite.page();
    const { page } = current;
    await openPage(page, suite.app.url, shop.domain, '/');
    await setSessionToken(page, 'not-a-valid-token');
    await page.locator('s-app-nav').getByRole('link', { name: 'Shipments' }).click();
    await page.locator('[data-testid="session-expired"]').waitFor();
    await waitForPageReady(page);
    expect(await page.locator('s-banner').count()).toBe(1);
    expect(await page.locator('s-banner[tone="critical"]').getAttribute('heading')).toBe(
      'Your session has expired',
    );
    await screenshotBothWidths(page, 'session-expired');

    await setSessionToken(page, null);
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.locator('[data-testid="session-expired"]').waitFor({ state: 'detached' });
    // The list is back (the shop's parcels are on fulfilments, so it has rows).
    await page.getByText('1ZOVERVIEW1').first().waitFor();
    expect(await page.locator('s-banner').count()).toBe(0);
  });
});
