import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { devAppProxySecret } from '../../src/proxy/dev-proxy.js';
import { startTestApp, type TestApp, waitFor } from '../helpers/app.js';
import {
  horizontalOverflow,
  launchBrowser,
  newTestPage,
  screenshot,
  type TestPage,
} from '../helpers/browser.js';
import { deliver, fixture } from '../helpers/webhooks.js';
import { ensureShop } from '../../src/shops/shop-repository.js';
import { installShop } from '../helpers/install.js';

/**
 * The shoppers' tracking page (its whole-document form) in Debian's Chromium, through the store's app
 * proxy as `npm run dev` plays it (GET /apps/track signs and hands on to GET /proxy): the forms work
 * without JavaScript, the page fits 390 px and 1280 px, and loads nothing from elsewhere.
 */

let app: TestApp;
let browser: Browser;
let current: TestPage | null = null;

beforeAll(async () => {
  const domain = 'tracking-page.myshopify.com';
  [app, browser] = await Promise.all([
    // The dev app proxy runs only with the development secret (the app's, for webhooks too).
    startTestApp({
      connect: false,
      config: {
        shopify: { apiKey: 'test-api-key', apiSecret: devAppProxySecret, appUrl: 'http://127.0.0.1:3000' },
      },
      runtime: { devAppProxyShop: domain },
    }),
    launchBrowser(),
  ]);
  // A store installed, not connected to the service yet: its fulfilments are recorded (not yet scanned).
  await ensureShop(app.database.prisma, domain);
  await installShop(app, domain);
  await deliver(app.url, {
    topic: 'fulfillments/create',
    shop: domain,
    body: fixture('fulfillments-create.dhl-two-parcels'),
    secret: devAppProxySecret,
  });
  await waitFor(
    'the fulfilment recorded',
    async () => (await app.database.prisma.trackingLine.count()) === 2,
  );
});
afterEach(async () => {
  const page = current;
  current = null;
  if (!page) return;
  expect(page.blocked).toEqual([]);
  expect(page.errors).toEqual([]);
  await page.close();
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function fits(page: TestPage['page'], name: string): Promise<void> {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const { scrollWidth, innerWidth } = await horizontalOverflow(page);
    expect(scrollWidth, `${name} at ${width}`).toBeLessThanOrEqual(innerWidth);
    await screenshot(page, `${name}-${width}`);
  }
}

describe('the shoppers’ tracking page', () => {
  it('order number and email → the order’s parcels, without JavaScript, at 390 px and 1280 px', async () => {
    current = await newTestPage(browser);
    const { page } = current;
    await current.context.setExtraHTTPHeaders({ 'accept-language': 'en-GB' });
    await page.goto(`${app.url}/apps/track?format=html`);
    await page.getByRole('heading', { level: 1, name: 'Track your order' }).waitFor();
    await fits(page, 'tracking-page-form');
    await page.getByLabel('Order number').fill('1002');
    await page.getByLabel('Email').fill('M.Keller@example.de');
    await page.getByRole('button', { name: 'Track' }).first().click();
    await page.getByRole('heading', { level: 2, name: 'Order #1002' }).waitFor();
    expect(await page.getByRole('heading', { level: 2, name: '1234567890' }).count()).toBe(1);
    expect(await page.getByRole('heading', { level: 2, name: '1234567891' }).count()).toBe(1);
    expect(await page.locator('a[href^="https://www.dhl.com/"]').count()).toBe(2);
    await fits(page, 'tracking-page-order');
  });

  it('a tracking number → that parcel; a wrong one → not found; in German when the store speaks it', async () => {
    current = await newTestPage(browser);
    const { page } = current;
    await page.goto(`${app.url}/apps/track?format=html&locale=de`);
    await page.getByLabel('Sendungsnummer').fill('1234567891');
    await page.getByRole('button', { name: 'Verfolgen' }).last().click();
    await page.getByRole('heading', { level: 2, name: '1234567891' }).waitFor();
    expect(await page.locator('dd[data-group]').innerText()).toBe('Noch nicht erfasst');
    await fits(page, 'tracking-page-parcel-de');
    await page.goto(`${app.url}/apps/track?format=html&tracking=NOPE-1`);
    await page.getByText('We could not find a shipment with these details.').waitFor();
  });
});
