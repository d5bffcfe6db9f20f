import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_SECRET, type TestApp, waitFor } from '../helpers/app.js';
import {
  installShop,
  launchBrowser,
  newTestPage,
  openSettings,
  screenshot,
  type TestPage,
} from '../helpers/browser.js';
import { addShop, variant } from '../helpers/scenario.js';
import { deliver, fixture } from '../helpers/webhooks.js';

/**
 * The merchant's settings page in Debian's Chromium, against the real app (page, session-token check,
 * JSON API, worker) and the emulator. Only loopback is reachable: the page needs no CDN.
 */

let app: TestApp;
let browser: Browser;
let current: TestPage | null = null;

beforeAll(async () => {
  [app, browser] = await Promise.all([startTestApp({ connect: false }), launchBrowser()]);
});
afterEach(async () => {
  const page = current;
  current = null;
  if (!page) return;
  // Nothing outside loopback was asked for, and the page threw nothing.
  expect(page.blocked).toEqual([]);
  expect(page.errors).toEqual([]);
  await page.close();
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function pageFor(shop: string): Promise<TestPage> {
  await installShop(app, shop);
  current = await newTestPage(browser);
  await openSettings(current.page, app.url, shop);
  return current;
}

/** An account at the emulator and a shop installed but not yet connected to it. */
async function unconnectedShop(name: string) {
  const tag = `${name}-${randomBytes(4).toString('hex')}`;
  const account = {
    apiKey: `key-${tag}`,
    appName: `store-${tag}`,
    plan: 'Pro',
    balance: 750,
    https: true,
  };
  await app.emulator.control.addAccount(account);
  return { domain: `${tag}.myshopify.com`, ...account };
}

describe('connection', () => {
  it('a wrong key is refused with the cause, and the key field is never filled in', async () => {
    const shop = await unconnectedShop('bad-key');
    const { page } = await pageFor(shop.domain);
    await page.getByRole('heading', { level: 2, name: 'Connection' }).waitFor();
    await page
      .locator('#connection-banners')
      .filter({ hasText: /Not connected yet/ })
      .waitFor();

    await page.getByLabel('App name').fill(shop.appName);
    await page.getByLabel('API key').fill('not-the-right-key');
    await page.getByRole('button', { name: 'Save connection' }).click();

    const status = page.locator('#connection-status');
    await status.filter({ hasText: 'Not saved' }).waitFor();
    expect(await status.innerText()).toMatch(/unauthorized\)\. Wrong API key or wrong store/);
    expect(await status.getAttribute('aria-live')).toBe('polite');
    expect(await page.getByLabel('API key').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#connection-details').isHidden()).toBe(true);
    await screenshot(page, 'connection-bad-key');
  });

  it('a good key is saved; balance and plan (known once a tracker exists) are shown, the key is not', async () => {
    const shop = await unconnectedShop('good-key');
    const { page } = await pageFor(shop.domain);
    await page.getByLabel('App name').fill(shop.appName);
    await page.getByLabel('API key').fill(shop.apiKey);
    await page.getByRole('button', { name: 'Save connection' }).click();

    // The check costs no balance, so the service has not told the balance yet.
    await page.locator('#connection-status').filter({ hasText: 'Connected' }).waitFor();
    expect(await page.locator('#api-key-stored').isVisible()).toBe(true);
    expect(await page.getByLabel('API key').inputValue()).toBe('');
    expect(await page.getByLabel('API key').getAttribute('type')).toBe('password');
    expect(await page.locator('#trackers-balance').innerText()).toMatch(/Not known yet/);

    // A fulfilment creates a tracker: the service's answer carries balance and plan.
    await deliver(app.url, {
      topic: 'fulfillments/create',
      shop: shop.domain,
      body: fixture('fulfillments-create.ups'),
      secret: TEST_SECRET,
    });
    await waitFor(
      'the tracker at the emulator',
      async () => (await app.emulator.control.trackers(shop.appName)).length === 1,
    );
    await waitFor('the balance recorded', async () => {
      const row = await app.database.prisma.shop.findUnique({ where: { domain: shop.domain } });
      return row?.trackersBalance === 749;
    });

    // Saving again (as the merchant would after a key change) shows them; so does a reload.
    await page.getByLabel('API key').fill(shop.apiKey);
    await page.getByRole('button', { name: 'Save connection' }).click();
    await page
      .locator('#connection-status')
      .filter({ hasText: 'Trackers balance: 749; plan: Pro.' })
      .waitFor();
    expect(await page.locator('#trackers-balance').innerText()).toBe('749');
    expect(await page.locator('#user-plan').innerText()).toBe('Pro');
    expect(await page.getByLabel('API key').inputValue()).toBe('');
    await screenshot(page, 'connection-good-key');

    await openSettings(page, app.url, shop.domain);
    expect(await page.locator('#trackers-balance').innerText()).toBe('749');
    expect(await page.getByLabel('App name').inputValue()).toBe(shop.appName);
    expect(await page.getByLabel('API key').inputValue()).toBe('');
  });

  it('keyboard only: the connection form is filled and submitted without the mouse', async () => {
    const shop = await unconnectedShop('keyboard');
    const { page } = await pageFor(shop.domain);
    const focusedId = () => page.evaluate<string>("document.activeElement?.id ?? ''");

    // Tab from the top of the page to the first field (skip link and section links come first).
    for (let i = 0; i < 15 && (await focusedId()) !== 'app-name'; i += 1) await page.keyboard.press('Tab');
    expect(await focusedId()).toBe('app-name');
    // The focus is visible.
    const outline = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');
    expect(outline).not.toBe('none');
    await page.keyboard.type(shop.appName);
    await page.keyboard.press('Tab');
    expect(await focusedId()).toBe('api-key');
    await page.keyboard.type(shop.apiKey);
    await screenshot(page, 'keyboard-connection-filled');
    await page.keyboard.press('Enter');

    await page.locator('#connection-status').filter({ hasText: 'Connected' }).waitFor();
    expect(await page.locator('#api-key-stored').isVisible()).toBe(true);
    await screenshot(page, 'keyboard-connection-saved');
  });
});

describe('carrier mapping', () => {
  it('an unmapped carrier is listed first and distinct with 1 waiting; mapping it to ups creates its tracker', async () => {
    const shop = await addShop(app, 'speedy-ui');
    await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));
    await shop.send(
      'fulfillments/create',
      variant('fulfillments-create.ups', {
        id: 9_300_000_000_001,
        tracking_company: 'Speedy Parcels Ltd',
        tracking_number: 'SPEEDY-UI-0001',
        tracking_numbers: ['SPEEDY-UI-0001'],
      }),
    );
    await shop.settled();
    expect((await shop.remote()).map((t) => t.tracking_number)).toEqual(['1Z999AA10123456784']);

    const { page } = await pageFor(shop.domain);
    const rows = page.locator('.carriers-table tbody tr');
    await expect(rows.count()).resolves.toBe(2);
    const first = rows.first();
    expect(await first.getAttribute('data-carrier')).toBe('Speedy Parcels Ltd');
    expect(await first.getAttribute('class')).toContain('unmapped');
    expect(await first.innerText()).toMatch(/Not mapped[\s\S]*1 waiting/);
    expect(await rows.nth(1).innerText()).toMatch(/Mapped to ups/);
    // Visually distinct: the unmapped row has its own background.
    const [unmappedBg, mappedBg] = await Promise.all(
      [0, 1].map((i) =>
        page.evaluate<string>(
          `getComputedStyle(document.querySelectorAll('.carriers-table tbody tr')[${i}]).backgroundColor`,
        ),
      ),
    );
    expect(unmappedBg).not.toBe(mappedBg);
    await screenshot(page, 'carrier-unmapped');

    // The searchable choice: typing asks the service's carrier list and fills the datalist.
    const choice = page.getByLabel('Tracking service carrier for Speedy Parcels Ltd');
    await choice.fill('UPS');
    await page.locator('#carrier-options option[value="ups"]').waitFor({ state: 'attached' });
    await first.getByRole('button', { name: 'Save' }).click();

    const status = page.locator('#carriers-status');
    await status.filter({ hasText: 'released' }).waitFor();
    expect(await status.innerText()).toMatch(/“Speedy Parcels Ltd” mapped to UPS\. 1 tracker released\./);
    await page.locator('.carriers-table tr[data-carrier="Speedy Parcels Ltd"].mapped').waitFor();

    await waitFor('the released tracker at the emulator', async () =>
      (await app.emulator.control.trackers(shop.appName)).some((t) => t.tracking_number === 'SPEEDY-UI-0001'),
    );
    const remote = await app.emulator.control.trackers(shop.appName);
    expect(remote.find((t) => t.tracking_number === 'SPEEDY-UI-0001')?.tracking_provider).toBe('ups');
    await screenshot(page, 'carrier-mapped');
  });
});

describe('shipments', () => {
  it('lists orders with trackers, charts them by state, and opens a timeline with its events', async () => {
    const shop = await addShop(app, 'timeline-ui');
    await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));
    await shop.send('fulfillments/create', fixture('fulfillments-create.dhl-two-parcels'));
    await shop.settled();
    await app.emulator.control.advanceClock(3 * 24 * 3600);

    const { page } = await pageFor(shop.domain);
    const chart = page.locator('#summary-body');
    expect(await chart.locator('li[data-state="active"] .bar-value').innerText()).toBe('3');
    expect(await chart.locator('figcaption').innerText()).toBe('3 trackers in total');

    const table = page.locator('.shipments-table');
    expect(await table.locator('tbody tr').count()).toBe(3);
    expect(await table.innerText()).toMatch(/1Z999AA10123456784/);

    // Search narrows the list.
    await page.getByLabel('Order name or tracking number').fill('1Z999AA10123456784');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('#shipments-status').filter({ hasText: 'matching' }).waitFor();
    expect(await table.locator('tbody tr').count()).toBe(1);

    await page.getByRole('button', { name: 'Timeline of 1Z999AA10123456784' }).click();
    const timeline = page.locator('#timeline');
    await timeline.locator('.events-table').waitFor();
    const events = timeline.locator('.events-table tbody tr');
    expect(await events.count()).toBeGreaterThan(1);
    expect(await timeline.innerText()).toMatch(/Status[\s\S]*Last event[\s\S]*Estimated delivery/);
    expect(await events.first().locator('time').getAttribute('datetime')).toBeTruthy();
    await screenshot(page, 'shipment-timeline');

    // Escape closes it and gives the focus back to the button that opened it.
    await page.keyboard.press('Escape');
    expect(await timeline.isHidden()).toBe(true);
    expect(await page.evaluate<string>('document.activeElement?.textContent')).toBe('Timeline');
  });

  it('an empty shop shows empty states, not blanks', async () => {
    const shop = await addShop(app, 'empty-ui');
    const { page } = await pageFor(shop.domain);
    expect(await page.locator('#carriers-body').innerText()).toMatch(/No carrier names yet/);
    expect(await page.locator('#shipments-body').innerText()).toMatch(/No shipments yet/);
    expect(await page.locator('#summary-body').innerText()).toMatch(/No trackers yet/);
    expect(await page.locator('#failed-body').innerText()).toMatch(/Nothing has failed/);
    await screenshot(page, 'empty-shop');
  });
});

describe('failed operations', () => {
  it('a failed tracker is listed with its reason; Retry sends it round again', async () => {
    const shop = await addShop(app, 'failed-ui');
    await shop.send(
      'fulfillments/create',
      variant('fulfillments-create.postnl-needs-postcode', { destination: null }),
    );
    await shop.settled();
    const [before] = await shop.rows();
    expect(before).toMatchObject({ syncState: 'failed', lastErrorReason: 'destination_required' });
    const createsBefore = (await shop.calls('create')).length;

    const { page } = await pageFor(shop.domain);
    const row = page.locator(`.failed-table tr[data-tracker="${before!.id}"]`);
    expect(await row.innerText()).toMatch(/3SABCD0123456[\s\S]*destination_required/);
    await screenshot(page, 'failed-listed');

    await row.getByRole('button', { name: 'Retry 3SABCD0123456' }).click();
    await page.locator('#failed-status').filter({ hasText: 'Retrying 1 tracker' }).waitFor();

    // It went round again: a second create at the service (which refuses it the same way).
    await waitFor('the retried create', async () => (await shop.calls('create')).length > createsBefore);
    await shop.settled();
    const [after] = await shop.rows();
    expect(after!.updatedAt.getTime()).toBeGreaterThan(before!.updatedAt.getTime());
    expect(after!.attempts).toBe(1);
    await screenshot(page, 'failed-retried');
  });
});
