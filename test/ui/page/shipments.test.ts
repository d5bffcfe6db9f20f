import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserSuite } from '../../helpers/browser-suite.js';
import type { ShipmentsList } from '../../../src/ui/api/shipment-list.js';
import {
  installShop,
  openPage,
  expectVitals,
  readVitals,
  screenshot,
  screenshotBothWidths,
  wordsBrokenMidWord,
  sessionTokenFor,
  type TestPage,
  toasts,
  waitForPageReady,
} from '../../helpers/browser.js';
import { createTracker } from '../../helpers/factories.js';
import { addShop, type ScenarioShop, variant } from '../../helpers/scenario.js';
import { fixture } from '../../helpers/webhooks.js';

/**
 * The Shipments page in Debian's Chromium against the real app and the emulator: one row per parcel,
 * parcel status and sync apart, filters whose counts match the rows, links to the admin order and the
 * carrier's page, the timeline, CSV export.
 */

const suite = browserSuite();
let shop: ScenarioShop;

const dayMs = 86_400_000;

beforeAll(async () => {
  shop = await addShop(suite.app, 'shipments-page');
  await installShop(suite.app, shop.domain);
  // Real intake: a UPS parcel, two DHL parcels, a carrier nobody mapped, then one fulfilment cancelled.
  await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));
  await shop.send('fulfillments/create', fixture('fulfillments-create.dhl-two-parcels'));
  await shop.send(
    'fulfillments/create',
    variant('fulfillments-create.ups', {
      id: 5521099999999,
      order_id: 6120000000099,
      name: '#1099.1',
      tracking_company: 'Speedy Parcels Ltd',
      tracking_number: 'SPEEDY-1099',
      tracking_numbers: ['SPEEDY-1099'],
      tracking_urls: [],
      tracking_url: null,
    }),
  );
  await shop.settled();
  await shop.send('fulfillments/update', fixture('fulfillments-update.cancelled'));
  await shop.settled();
  // Parcels further along, as the status poller stores them.
  const now = Date.now();
  for (let i = 0; i < 55; i++) {
    const tracker = await createTracker(suite.app.database.prisma, shop.id, {
      trackingNumber: `1ZBULK${String(i).padStart(10, '0')}`,
      desired: 'active',
      remote: 'present',
      syncState: 'synced',
      status: i % 5 === 0 ? 'delivered' : i % 7 === 0 ? 'exception' : 'in_transit',
      statusDetail: i % 3 === 0 ? 'out_for_delivery' : null,
      lastEventAt: new Date(now - i * 3_600_000),
      lastEventMessage: 'Arrived at facility',
      lastEventLocation: 'Louisville, KY, US',
      createdAt: new Date(now - (i + 1) * dayMs),
    });
    await suite.app.database.prisma.trackingLine.create({
      data: {
        shopId: shop.id,
        fulfillmentId: `bulk-${i}`,
        fulfillmentName: `#2${String(i).padStart(3, '0')}.1`,
        orderId: String(7_000_000 + i),
        orderName: `#2${String(i).padStart(3, '0')}`,
        trackingNumber: tracker.trackingNumber,
        trackingUrl: `https://www.ups.com/track?tracknum=${tracker.trackingNumber}`,
        carrierName: 'UPS',
        carrierKey: 'ups',
        trackerId: tracker.id,
        createdAt: new Date(now - (i + 1) * dayMs),
      },
    });
  }
});

async function apiList(query = ''): Promise<ShipmentsList> {
  const res = await fetch(`${suite.app.url}/api/shipments${query}`, {
    headers: { authorization: `Bearer ${sessionTokenFor(shop.domain)}` },
  });
  return (await res.json()) as ShipmentsList;
}

interface HTMLElementLike {
  dataset: Record<string, string | undefined>;
}

/** The rows the page shows: their tracking numbers, in order. */
async function shownNumbers(page: TestPage['page']): Promise<string[]> {
  return page
    .locator('s-table-body s-table-row')
    .evaluateAll((rows) => rows.map((r) => (r as HTMLElementLike).dataset.number ?? ''));
}

describe('the list', () => {
  it('shows one row per parcel with its order, fulfilment, number links, parcel status and sync apart', async () => {
    const current = await suite.page();
    const { page } = current;
    await openPage(page, suite.app.url, shop.domain, '/shipments');
    expectVitals('shipments', await readVitals(page), (ok, why) => expect(ok, why).toBe(true));

    const list = await apiList();
    expect(await page.locator('s-table-body s-table-row').count()).toBe(list.rows.length);
    expect(await page.getByText(`${list.total} shipments · showing 1–50`).count()).toBe(1);

    // The DHL fulfilment: its name, each number a link to DHL's page (from the store's fulfilment).
    const dhl = page.locator('s-table-row', { hasText: '1234567890' }).first();
    await dhl.waitFor();
    expect(await dhl.innerText()).toContain('Fulfilment #1002.1');
    expect(await dhl.locator('s-link[href^="shopify://admin/orders/"]').count()).toBe(1);
    expect(await dhl.locator('s-link[target="_blank"]').getAttribute('href')).toMatch(
      /^https:\/\/www\.dhl\.com\//,
    );

    // The cancelled UPS fulfilment: the sync column says so; the parcel column keeps the parcel's words.
    const cancelled = page.locator('s-table-row', { hasText: '1Z999AA10123456784' });
    expect(await cancelled.innerText()).toContain('Fulfilment cancelled — tracker removed');

    // The unmapped carrier: waiting, with the action beside it.
    const waiting = page.locator('s-table-row', { hasText: 'SPEEDY-1099' });
    expect(await waiting.innerText()).toContain('Waiting: map this carrier');
    expect(await waiting.locator('s-link', { hasText: 'Map carrier' }).getAttribute('href')).toMatch(
      /^\/settings\?.*section=carriers/,
    );
    await screenshotBothWidths(page, 'shipments');
    // At 1280 px no word of a table cell is broken mid-word ("Tracke" / "d" in the Sync column).
    await page.setViewportSize({ width: 1280, height: 900 });
    const broken = await wordsBrokenMidWord(page, 's-table-cell');
    await screenshot(page, 'shipments-1280');
    expect(broken).toEqual([]);
    await page.setViewportSize({ width: 1000, height: 900 });
  });

  it('filters by parcel status and sync: each option counts exactly the rows it shows', async () => {
    const current = await suite.page();
    const { page } = current;
    await openPage(page, suite.app.url, shop.domain, '/shipments');
    const all = await apiList();
    for (const [group, label] of [
      ['delivered', 'Delivered'],
      ['out_for_delivery', 'Out for delivery'],
      ['exception', 'Exception'],
    ] as const) {
      await page.getByLabel('Parcel status', { exact: true }).selectOption(group);
      await page.waitForURL((url) => url.searchParams.get('parcel') === group);
      await waitForPageReady(page);
      await page.locator(`s-table-body s-table-row`).first().waitFor();
      await expect
        .poll(async () => (await shownNumbers(page)).length)
        .toBe(Math.min(50, all.counts.parcel[group]));
      const option = await page
        .getByLabel('Parcel status', { exact: true })
        .locator(`option[value="${group}"]`)
        .innerText();
      expect(option).toBe(`${label} (${all.counts.parcel[group]})`);
      const filtered = await apiList(`?parcel=${group}`);
      expect(await shownNumbers(page)).toEqual(filtered.rows.map((r) => r.trackingNumber));
    }
    await page.getByLabel('Parcel status', { exact: true }).selectOption('');
    await page.getByLabel('Sync', { exact: true }).selectOption('problem');
    await page.waitForURL((url) => url.searchParams.get('sync') === 'problem');
    await expect.poll(() => shownNumbers(page)).toEqual(['SPEEDY-1099']);
    expect(all.counts.sync.problem).toBe(1);
    await screenshotBothWidths(page, 'shipments-filtered');
  });

  it('searches and pages by shipment; the address keeps the filters (reload and back)', async () => {
    const current = await suite.page();
    const { page } = current;
    await openPage(page, suite.app.url, shop.domain, '/shipments');
    expect(await page.locator('s-table-body s-table-row').count()).toBe(50);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.waitForURL((url) => url.searchParams.get('page') === '2' && url.searchParams.has('after'));
    const second = await apiList(`?after=${(await apiList('')).nextCursor}`);
    await expect.poll(() => shownNumbers(page)).toEqual(second.rows.map((r) => r.trackingNumber));
    // And back to the first page.
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.waitForURL((url) => url.searchParams.has('before'));
    await expect
      .poll(() => shownNumbers(page))
      .toEqual((await apiList('')).rows.map((r) => r.trackingNumber));

    await page.getByLabel('Search shipments').fill('#1002');
    await page.waitForURL((url) => url.searchParams.get('search') === '#1002');
    const found = await apiList('?search=%231002');
    expect(found.total).toBeGreaterThan(0);
    await expect.poll(() => shownNumbers(page)).toEqual(found.rows.map((r) => r.trackingNumber));
    await page.reload();
    await waitForPageReady(page);
    expect(await page.getByLabel('Search shipments').inputValue()).toBe('#1002');
    expect((await shownNumbers(page)).length).toBe((await apiList('?search=%231002')).total);
  });

  it('opens a shipment timeline and exports the list as CSV', async () => {
    const current = await suite.page();
    const { page } = current;
    await openPage(page, suite.app.url, shop.domain, '/shipments');
    await page.getByLabel('Search shipments').fill('1234567890');
    await expect.poll(async () => (await shownNumbers(page)).length).toBe(1);
    // The parcel moves on at the service; the timeline reads it live, and the list then says the same.
    await suite.app.emulator.control.advanceClock(50 * 3600);
    await page.getByRole('button', { name: 'Timeline of 1234567890' }).click();
    const timeline = page.locator('s-section[heading="Timeline of 1234567890"]');
    await timeline.waitFor();
    await expect.poll(() => timeline.locator('s-table-body s-table-row').count()).toBeGreaterThanOrEqual(4);
    expect(await timeline.locator('s-table-body s-table-row').first().innerText()).toMatch(/Delivered/i);
    const row = page.locator('s-table-body s-table-row[data-number="1234567890"]');
    await expect.poll(() => row.locator('s-badge').first().innerText()).toBe('Delivered');
    await page.getByRole('button', { name: 'Close timeline' }).click();
    await timeline.waitFor({ state: 'detached' });

    await page.getByLabel('Search shipments').fill('');
    await expect.poll(async () => (await shownNumbers(page)).length).toBe(50);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^tracksync-shipments-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = (await readFile((await file.path())!, 'utf8')).replace(/^\uFEFF/, '');
    const all = await apiList();
    expect(csv.trimEnd().split('\r\n')).toHaveLength(all.total + 1);
    expect((await toasts(page)).map((t) => t.message)).toContain('Shipments exported');
    const vitals = await readVitals(page);
    expect(vitals.interactions).toBeGreaterThan(0);
    expectVitals('shipments (after filtering and export)', vitals, (ok, why) => expect(ok, why).toBe(true));
  });
});
