import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { installShop, launchBrowser, newTestPage, openSettings, screenshot } from '../helpers/browser.js';
import {
  type FakeAdminGraphql,
  startFakeAdminGraphql,
  upsNumber,
  upsOrder,
} from '../helpers/fake-admin-graphql.js';
import { addShop, numbersOf } from '../helpers/scenario.js';

/**
 * The page's Backfill section in Debian's Chromium, against the real app and worker, a fake Admin GraphQL
 * API (3 pages of orders) and the emulator.
 */

let app: TestApp;
let browser: Browser;
let fake: FakeAdminGraphql;

beforeAll(async () => {
  [app, browser, fake] = await Promise.all([
    startTestApp({ connect: false }),
    launchBrowser(),
    startFakeAdminGraphql(2),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await fake?.close();
  await app?.close();
});

describe('backfill section', () => {
  it('keyboard only: starts a backfill and the progress reaches done with the counts', async () => {
    const shop = await addShop(app, 'bf-page');
    await installShop(app, shop.domain);
    const numbers = [1, 2, 3, 4, 5].map((i) => upsNumber(900 + i));
    fake.setOrders(shop.domain, [
      upsOrder(901, [[numbers[0]!]]),
      upsOrder(902, [[numbers[1]!]]),
      upsOrder(903, [[numbers[2]!, numbers[3]!]]),
      upsOrder(904, []),
      upsOrder(905, [[numbers[4]!]]),
    ]);

    const current = await newTestPage(browser);
    try {
      const { page } = current;
      await openSettings(page, app.url, shop.domain);
      await page.getByRole('heading', { level: 2, name: 'Backfill' }).waitFor();
      await page
        .locator('#backfill-status')
        .filter({ hasText: /No backfill/ })
        .waitFor();
      const progress = page.getByRole('progressbar', { name: 'Backfill progress' });
      expect(await progress.count()).toBe(1);

      const days = page.getByLabel('Days back (1 to 365)');
      await days.focus();
      await days.press('ControlOrMeta+a');
      await page.keyboard.type('400');
      await page.keyboard.press('Enter');
      await page.locator('#backfill-status').filter({ hasText: 'from 1 to 365' }).waitFor();
      expect(await days.getAttribute('aria-invalid')).toBe('true');

      await days.press('ControlOrMeta+a');
      await page.keyboard.type('60');
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string>("document.activeElement?.id ?? ''")).toBe('backfill-start');
      await page.keyboard.press('Enter');

      await page.locator('#backfill[data-state="done"]').waitFor({ timeout: 15_000 });
      expect(await page.locator('#backfill-status').innerText()).toBe(
        'Done (last 60 days): 3 page(s) of orders read, 4 fulfilment(s) seen, 5 tracking number(s) wanted.',
      );
      expect(await progress.getAttribute('value')).toBe('3');
      expect(await progress.getAttribute('max')).toBe('3');
      expect(await page.locator('#backfill-status').getAttribute('aria-live')).toBe('polite');
      await screenshot(page, 'backfill-done');

      await shop.settled();
      expect(numbersOf(await shop.remote())).toEqual([...numbers].sort());
      expect(current.blocked).toEqual([]);
      expect(current.errors).toEqual([]);
    } finally {
      await current.close();
    }
  });
});
