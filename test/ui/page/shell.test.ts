import { describe, expect, it } from 'vitest';
import { browserSuite } from '../../helpers/browser-suite.js';
import {
  appBridgeCalls,
  installShop,
  openPage,
  readVitals,
  viewports,
  horizontalOverflow,
} from '../../helpers/browser.js';

/**
 * The page's frame in Debian's Chromium with the offline stand-ins for App Bridge and Polaris: the
 * document as the platform requires it, the five pages behind the app menu, moving between them in place.
 */

const suite = browserSuite();

describe('the document', () => {
  it('has the api-key meta tag and App Bridge as the first script in <head>, then Polaris', async () => {
    const shop = 'shell-head.myshopify.com';
    await installShop(suite.app, shop);
    const current = await suite.page();
    await openPage(current.page, suite.app.url, shop);
    const head = await current.page.evaluate(`(() => {
      const scripts = [...document.head.querySelectorAll('script')].map((s) => s.getAttribute('src'));
      const first = document.head.querySelector('script');
      const meta = document.head.querySelector('meta[name="shopify-api-key"]');
      return { scripts, metaBeforeScript: !!(meta && first && meta.compareDocumentPosition(first) & 4),
        apiKey: meta && meta.getAttribute('content'),
        firstScriptIsFirstElementAfterMeta: meta && meta.nextElementSibling === first,
        firstAsync: first.async || first.defer || first.type === 'module' };
    })()`);
    expect(head).toMatchObject({
      scripts: ['/assets/stand-in/app-bridge.js', '/assets/stand-in/polaris.js', '/assets/page.js'],
      metaBeforeScript: true,
      apiKey: 'test-api-key',
      firstAsync: false,
    });
  });
});

describe('pages', () => {
  it('each page loads at its own path, fits 390 px and 1000 px, and the menu moves between them in place', async () => {
    const shop = 'shell-pages.myshopify.com';
    await installShop(suite.app, shop);
    const current = await suite.page();
    const { page } = current;
    await openPage(page, suite.app.url, shop, '/');
    for (const [path, heading] of [
      ['/attention', 'Needs attention'],
      ['/shipments', 'Shipments'],
      ['/tracking-page', 'Tracking page'],
      ['/settings', 'Settings'],
      ['/activity', 'Activity'],
      ['/', 'Overview'],
    ] as const) {
      await page.locator('s-app-nav').getByRole('link', { name: heading }).click();
      await page.waitForURL((url) => url.pathname === path);
      await page.locator(`s-page[heading="${heading}"]`).waitFor();
      for (const size of [viewports.phone, viewports.desktop]) {
        await page.setViewportSize(size);
        const { scrollWidth, innerWidth } = await horizontalOverflow(page);
        expect(scrollWidth, `${path} at ${size.width}`).toBeLessThanOrEqual(innerWidth);
      }
    }
    const navigations = (await appBridgeCalls(page)).filter((c) => c.api === 'navigate');
    expect(navigations.map((c) => c.args[0])).toEqual([
      '/attention',
      '/shipments',
      '/tracking-page',
      '/settings',
      '/activity',
      '/',
    ]);
    // Moved in place: one document load for all six pages.
    expect(await page.evaluate('performance.getEntriesByType("navigation").length')).toBe(1);
    const vitals = await readVitals(page);
    expect(vitals.cls).toBeLessThanOrEqual(0.05);
  });
});
