import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { devAppProxySecret } from '../../tools/dev/dev-proxy.js';
import { withDevExtras } from '../../tools/dev/dev-app.js';
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
import { createTracker } from '../helpers/factories.js';
import { proxyMessages } from '../../src/proxy/messages.js';

/**
 * The shoppers' tracking page (its whole-document form) in Debian's Chromium, through the store's app
 * proxy as `npm run dev` plays it (GET /apps/track signs and hands on to GET /proxy): the answer first with
 * its steps, the forms folded under it and working without JavaScript, the share link opening the same
 * view, at 390 px and 1280 px, in English, German and Arabic (right to left), loading nothing from elsewhere.
 */

const domain = 'tracking-page.myshopify.com';
let app: TestApp;
let browser: Browser;
let current: TestPage | null = null;

const hour = 3_600_000;
function eventsJson(count: number, status: string): string {
  const now = Date.now();
  return JSON.stringify(
    Array.from({ length: count }, (_, i) => ({
      at: new Date(now - (count - i) * 5 * hour).toISOString(),
      status: i === count - 1 ? status : 'in_transit',
      statusDetail: null,
      message:
        i === 0
          ? 'Shipment picked up'
          : i === count - 1
            ? `Carrier status: ${status}`
            : `Processed at hub ${i}`,
      location: i % 2 === 0 ? 'Leipzig, SN, DE' : 'Köln, NW, DE',
    })),
  );
}

/** The two parcels' trackers, as reads would have left them. */
async function setParcel(number: string, status: string, extra: Record<string, unknown> = {}): Promise<void> {
  const prisma = app.database.prisma;
  const line = await prisma.trackingLine.findFirstOrThrow({ where: { trackingNumber: number } });
  const data = {
    status,
    statusDetail: null,
    events: eventsJson(7, status),
    lastEventAt: new Date(),
    statusCheckedAt: new Date(),
    remote: 'present' as const,
    syncState: 'synced' as const,
    ...extra,
  };
  if (line.trackerId) await prisma.tracker.update({ where: { id: line.trackerId }, data });
  else {
    const tracker = await createTracker(prisma, line.shopId, {
      trackingNumber: number,
      provider: 'dhl',
      orderKey: line.orderId,
      ...data,
    });
    await prisma.trackingLine.update({ where: { id: line.id }, data: { trackerId: tracker.id } });
  }
}

beforeAll(async () => {
  [app, browser] = await Promise.all([
    // The dev app proxy runs only with the development secret (the app's, for webhooks too).
    startTestApp({
      connect: false,
      config: {
        shopify: { apiKey: 'test-api-key', apiSecret: devAppProxySecret, appUrl: 'http://127.0.0.1:3000' },
      },
      runtime: { serve: (inner) => withDevExtras(inner, { secret: devAppProxySecret, shop: domain }) },
    }),
    launchBrowser(),
  ]);
  await ensureShop(app.database.prisma, domain);
  await installShop(app, domain);
  // The store's contact e-mail and zone, as the worker reads them from the store's profile.
  app.store.setShopProfile(domain, { timezone: 'Europe/Berlin', contactEmail: 'help@tracking-page.example' });
  await app.database.prisma.shop.update({
    where: { domain },
    data: { contactEmail: 'help@tracking-page.example', timezone: 'Europe/Berlin' },
  });
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
  // The order as the store holds it: the fulfilment's items (pictures left out: the test page loads nothing
  // from elsewhere; test/proxy/render.test.ts writes them).
  app.store.setOrders(domain, [
    {
      legacyResourceId: '6120000000002',
      name: '#1002',
      cancelledAt: null,
      shippingAddress: null,
      fulfillments: [
        {
          legacyResourceId: '5521012345690',
          status: 'SUCCESS',
          createdAt: null,
          updatedAt: null,
          trackingInfo: [],
          lineItems: [
            { title: 'Desk Lamp', variantTitle: 'Brass', quantity: 1 },
            { title: 'Bulb Pack', variantTitle: null, quantity: 2 },
          ],
        },
      ],
    },
  ]);
  const inThreeDays = new Date(Date.now() + 3 * 24 * hour).toISOString().slice(0, 10);
  await setParcel('1234567890', 'in_transit', {
    estimatedDelivery: inThreeDays,
    deliveryNumber: 'DE-LOCAL-778899',
    deliveryProvider: 'Deutsche Post',
  });
  await setParcel('1234567891', 'delivered', { deliveredAt: new Date(Date.now() - 4 * hour) });
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

/** No sideways scroll at 390 px and 1280 px; a screenshot of each. */
async function fits(page: Page, name: string): Promise<void> {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 844 });
    const { scrollWidth, innerWidth } = await horizontalOverflow(page);
    expect(scrollWidth, `${name} at ${width}`).toBeLessThanOrEqual(innerWidth);
    await screenshot(page, `${name}-${width}`);
  }
}

/** The bottom edge of the first match, in page pixels. */
async function bottomOf(page: Page, selector: string): Promise<number> {
  const box = await page.locator(selector).first().boundingBox();
  if (!box) throw new Error(`${selector} is not shown`);
  return box.y + box.height;
}

async function lookUpOrder(page: Page, query = ''): Promise<void> {
  await page.goto(`${app.url}/apps/track?format=html${query}`);
  await page.getByLabel('Order number').fill('1002');
  await page.getByLabel('Email').fill('M.Keller@example.de');
  await page.getByRole('button', { name: 'Track' }).first().click();
}

describe('the shoppers’ tracking page', () => {
  it('an order: the answer first, one card per parcel with its steps, the forms folded under it', async () => {
    current = await newTestPage(browser);
    const { page } = current;
    await page.setViewportSize({ width: 390, height: 844 });
    await lookUpOrder(page);
    await page.getByRole('heading', { level: 2, name: 'Order #1002' }).waitFor();
    // Above the fold on a phone: the first parcel's headline and its steps.
    expect(await bottomOf(page, '.ts-card .ts-steps')).toBeLessThanOrEqual(844);
    const cards = page.locator('article.ts-card');
    expect(await cards.count()).toBe(2);
    expect(await cards.locator('.ts-count').allInnerTexts()).toEqual(['Parcel 1 of 2', 'Parcel 2 of 2']);
    const first = cards.filter({ hasText: '1234567890' });
    expect(await first.getByRole('heading', { level: 3 }).innerText()).toMatch(/^Arriving \w+day, \d+ \w+$/);
    expect(await first.locator('[aria-current="step"]').innerText()).toBe('In transit');
    expect(await first.locator('.ts-steps .ts-done').allInnerTexts()).toEqual(['Ordered', 'Shipped']);
    expect(await first.getByText('DE-LOCAL-778899').count()).toBe(1);
    // The parcel's items, from the store's order.
    expect(await first.locator('.ts-items li').allInnerTexts()).toEqual([
      expect.stringMatching(/^Desk Lamp\s+Brass\s+Quantity: 1$/),
      expect.stringMatching(/^Bulb Pack\s+Quantity: 2$/),
    ]);
    const second = cards.filter({ hasText: '1234567891' });
    expect(await second.getByRole('heading', { level: 3 }).innerText()).toMatch(
      /^Delivered on \w+day, \d+ \w+$/,
    );
    expect(await second.locator('[aria-current="step"]').innerText()).toBe('Delivered');
    // The history: five updates shown, the rest folded.
    expect(await first.locator('.ts-events:not(.ts-one) > li:visible').count()).toBe(5);
    await first.getByText('Show all 7 updates').click();
    expect(await first.locator('.ts-events:not(.ts-one) li:visible').count()).toBe(7);
    // The forms are folded under the answer, the contact line below.
    expect(await page.getByLabel('Order number').isVisible()).toBe(false);
    expect(await page.locator('a[href="mailto:help@tracking-page.example"]').innerText()).toBe(
      'Email the store',
    );
    expect(await page.locator('a[href^="https://www.dhl.com/"]').count()).toBe(2);
    await fits(page, 'tracking-page-order');
  });

  it('the share link opens the same view without the e-mail; Copy link copies it', async () => {
    current = await newTestPage(browser);
    const { page, context } = current;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    await lookUpOrder(page);
    await page.getByRole('heading', { level: 2, name: 'Order #1002' }).waitFor();
    const href = await page.getByRole('link', { name: 'Link to this page' }).getAttribute('href');
    expect(href).toMatch(/^\/apps\/track\?view=[\w-]+\.[\w-]+&format=html$/);
    await page.getByRole('button', { name: 'Copy link' }).click();
    await page.getByRole('button', { name: 'Link copied' }).waitFor();
    const copied = await page.evaluate(() =>
      (
        globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
      ).navigator.clipboard.readText(),
    );
    expect(copied).toBe(new URL(href!, app.url).href);
    const shared = await newTestPage(browser);
    try {
      await shared.page.goto(copied);
      await shared.page.getByRole('heading', { level: 2, name: 'Order #1002' }).waitFor();
      expect(await shared.page.locator('article.ts-card').count()).toBe(2);
      expect(shared.errors).toEqual([]);
      // A link changed by one character opens nothing.
      await shared.page.goto(copied.replace(/view=(.)/, (_, c: string) => `view=${c === 'A' ? 'B' : 'A'}`));
      await shared.page.getByText('This link has expired.').waitFor();
    } finally {
      await shared.close();
    }
  });

  it('a parcel by its number: the step and the trouble on it, for every kind of status', async () => {
    current = await newTestPage(browser);
    const { page } = current;
    const cases: Array<[status: string, step: string, trouble: string | null]> = [
      ['pending', 'Shipped', null],
      ['info_received', 'Shipped', null],
      ['in_transit', 'In transit', null],
      ['out_for_delivery', 'Out for delivery', null],
      ['available_for_pickup', 'Out for delivery', 'Ready for pickup'],
      ['attempt_fail', 'Out for delivery', 'The carrier could not deliver'],
      ['exception', 'In transit', 'The carrier reported a problem'],
      ['on_hold', 'In transit', 'Held by the carrier'],
      ['return_to_sender', 'In transit', 'On its way back to the store'],
      ['invalid_tracking', 'In transit', 'Tracking is not available'],
      ['delivered', 'Delivered', null],
    ];
    try {
      for (const [status, step, trouble] of cases) {
        await setParcel('1234567891', status, { deliveredAt: status === 'delivered' ? new Date() : null });
        await page.goto(`${app.url}/apps/track?format=html&tracking=1234567891`);
        const card = page.locator('article.ts-card');
        expect(await card.locator('[aria-current="step"]').innerText(), status).toBe(step);
        const alert = card.locator('.ts-alert[role="note"]');
        if (trouble) {
          expect(await card.locator('.ts-head').innerText(), status).toBe(trouble);
          expect(await alert.count(), status).toBe(1);
        } else expect(await alert.count(), status).toBe(0);
        if (status === 'attempt_fail') await fits(page, 'tracking-page-failed-attempt');
      }
    } finally {
      await setParcel('1234567891', 'delivered', { deliveredAt: new Date(Date.now() - 4 * hour) });
    }
  });

  it('in German and in Arabic (right to left), fitting both widths', async () => {
    current = await newTestPage(browser);
    const { page } = current;
    await page.goto(`${app.url}/apps/track?format=html&locale=de&tracking=1234567890`);
    expect(await page.locator('[aria-current="step"]').innerText()).toBe(
      proxyMessages('de').steps.in_transit,
    );
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
    await fits(page, 'tracking-page-parcel-de');
    await page.goto(`${app.url}/apps/track?format=html&locale=ar&order=1002&email=M.Keller%40example.de`);
    await page.locator('article.ts-card').first().waitFor();
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('ar');
    // Right to left: the journey starts on the right.
    const steps = page.locator('article.ts-card').first().locator('.ts-steps li');
    const ordered = await steps.first().boundingBox();
    const delivered = await steps.last().boundingBox();
    expect(ordered!.x).toBeGreaterThan(delivered!.x);
    await fits(page, 'tracking-page-order-ar');
  });

  it('not found says so and keeps the forms open', async () => {
    current = await newTestPage(browser);
    const { page } = current;
    await page.goto(`${app.url}/apps/track?format=html&tracking=NOPE-1`);
    await page.getByText('We could not find a shipment with these details.').waitFor();
    expect(await page.getByLabel('Tracking number').isVisible()).toBe(true);
    await fits(page, 'tracking-page-not-found');
  });
});

interface AxeResult {
  violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }>;
  passes: Array<{ id: string }>;
}

describe('a Lighthouse-style audit of the whole document', () => {
  // Six audited loads: 13 s alone on a 2-core machine, 19–21 s while the rest of the suite runs beside it.
  it(
    'weighs under 30 KB, blocks no rendering, and passes axe-core’s WCAG 2.1 AA and best-practice rules in en, de and ar',
    { timeout: 60_000 },
    async () => {
      const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
      const figures: string[] = [];
      for (const locale of ['en', 'de', 'ar']) {
        const url = `${app.url}/apps/track?format=html&locale=${locale}&order=1002&email=M.Keller%40example.de`;
        const html = await (await fetch(url)).text();
        const bytes = Buffer.byteLength(html);
        const css = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].reduce(
          (n, m) => n + Buffer.byteLength(m[1]!),
          0,
        );
        expect(bytes, locale).toBeLessThanOrEqual(30 * 1024);
        for (const width of [390, 1280]) {
          // The audit's script is added past the page's policy (as Lighthouse's is); nothing else is.
          const context = await browser.newContext({ bypassCSP: true, viewport: { width, height: 844 } });
          try {
            const page = await context.newPage();
            const requests: string[] = [];
            // The browser's own favicon request is not the page's.
            page.on('request', (r) => {
              if (!r.url().endsWith('/favicon.ico')) requests.push(r.url());
            });
            await page.goto(url);
            const blocking = await page.evaluate(() => {
              const d = (
                globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }
              ).document;
              return d.querySelectorAll(
                'head script, script[src], link[rel="stylesheet"], link[rel="preload"]',
              ).length;
            });
            expect(blocking, `${locale} render-blocking resources`).toBe(0);
            expect(requests, `${locale} requests besides the document`).toEqual([
              url,
              expect.stringContaining('/proxy?'),
            ]);
            await page.addScriptTag({ content: axeSource });
            const result = await page.evaluate(
              () =>
                (
                  globalThis as unknown as {
                    axe: { run(o: unknown): Promise<AxeResult> };
                  }
                ).axe.run({
                  runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice'] },
                }) as Promise<AxeResult>,
            );
            const violations = result.violations.map(
              (v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.map((n) => n.target))}`,
            );
            expect(violations, `${locale} at ${width}`).toEqual([]);
            if (width === 390)
              figures.push(
                `${locale}: ${bytes} B (${css} B of CSS), ${result.passes.length} axe rules passed`,
              );
          } finally {
            await context.close();
          }
        }
      }
      // For the record in docs/shoppers.md (what this run saw).
      console.info(`tracking page audit: ${figures.join('; ')}`);
    },
  );
});
