import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/db/client.js';
import type { Tracker } from '../../src/generated/sqlite/client.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  installShop,
  launchBrowser,
  newTestPage,
  openSettings,
  screenshot,
  type TestPage,
} from '../helpers/browser.js';
import { createTracker, type TrackerOverrides } from '../helpers/factories.js';
import { uniqueName } from './api/harness.js';

/**
 * The statuses read back from the tracking service, as the merchant sees them in Chromium: the status of
 * each parcel, the order's "Delivered" badge, the "Needs attention" list (and the updates the store
 * refused), and the settings that change them. Rows are seeded directly for a shop that is installed but
 * not connected, so the worker leaves them as they are.
 */

let app: TestApp;
let browser: Browser;
let prisma: DatabaseClient;
let current: TestPage | null = null;

const day = 86_400_000;
const hour = 3_600_000;
const ago = (ms: number) => new Date(Date.now() - ms);

beforeAll(async () => {
  [app, browser] = await Promise.all([startTestApp({ connect: false }), launchBrowser()]);
  prisma = app.database.prisma;
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

async function seededShop(name: string) {
  const domain = `${uniqueName(name)}.myshopify.com`;
  const shop = await app.runtime.shops.ensure(domain);
  const parcel = async (order: string, number: string, overrides: TrackerOverrides): Promise<Tracker> => {
    const tracker = await createTracker(prisma, shop.id, {
      trackingNumber: number,
      desired: 'active',
      remote: 'present',
      syncState: 'synced',
      syncedAt: ago(hour),
      nextPollAt: null,
      ...overrides,
    });
    await prisma.trackingLine.create({
      data: {
        shopId: shop.id,
        fulfillmentId: `f-${number}`,
        orderId: order,
        orderName: `#${order}`,
        trackingNumber: number,
        carrierName: 'UPS',
        carrierKey: 'ups',
        trackerId: tracker.id,
      },
    });
    return tracker;
  };
  return { domain, id: shop.id, parcel };
}

async function openPage(domain: string): Promise<TestPage> {
  await installShop(app, domain);
  current = await newTestPage(browser);
  await openSettings(current.page, app.url, domain);
  return current;
}

describe('shipment statuses on the page', () => {
  it('shows statuses, the Delivered badge and the Needs attention list; the settings change them', async () => {
    const shop = await seededShop('status-ui');
    const deliveredA = await shop.parcel('5001', 'BR-DELIV-A', {
      status: 'delivered',
      lastEventAt: ago(3 * day),
      lastEventMessage: 'Delivered, front door',
      lastEventLocation: 'Louisville, KY, US',
    });
    // Delivered long ago: final, never late.
    await shop.parcel('5001', 'BR-DELIV-B', { status: 'delivered', lastEventAt: ago(40 * day) });
    const transit = await shop.parcel('5002', 'BR-TRANSIT', {
      status: 'in_transit',
      statusDetail: 'departed_facility',
      estimatedDelivery: '2026-11-24',
      lastEventAt: ago(6 * day + hour),
      lastEventMessage: 'Departed facility',
      lastEventLocation: 'Memphis, TN, US',
      statusCheckedAt: ago(10 * 60_000),
      events: JSON.stringify([
        {
          at: ago(7 * day).toISOString(),
          status: 'pre_transit',
          statusDetail: 'label_created',
          message: 'Shipping label created',
          location: null,
        },
        {
          at: ago(6 * day + hour).toISOString(),
          status: 'in_transit',
          statusDetail: 'departed_facility',
          message: 'Departed facility',
          location: 'Memphis, TN, US',
        },
      ]),
    });
    await shop.parcel('5002', 'BR-OFD', {
      status: 'in_transit',
      statusDetail: 'out_for_delivery',
      lastEventAt: ago(hour),
      lastEventMessage: 'Out for delivery',
    });
    await shop.parcel('5003', 'BR-EXC', {
      status: 'failure',
      lastEventAt: ago(2 * hour),
      lastEventMessage: 'Address not found',
    });
    await shop.parcel('5004', 'BR-QUIET4', { status: 'in_transit', lastEventAt: ago(4 * day + hour) });
    await shop.parcel('5005', 'BR-NEW', { remote: 'absent', syncState: 'failed', syncedAt: null });
    await prisma.storeFulfillmentEvent.create({
      data: {
        shopId: shop.id,
        trackerId: transit.id,
        fulfillmentId: '5521000000002',
        status: 'IN_TRANSIT',
        happenedAt: ago(6 * day + hour),
        state: 'failed',
        error: 'Fulfillment not found',
      },
    });
    await prisma.storeFulfillmentEvent.create({
      data: {
        shopId: shop.id,
        trackerId: deliveredA.id,
        fulfillmentId: '5521000000001',
        status: 'DELIVERED',
        happenedAt: ago(3 * day),
        state: 'sent',
      },
    });

    const { page } = await openPage(shop.domain);

    // Each parcel's status in words; one never read shows where its tracker stands.
    const shipments = page.locator('.shipments-table');
    const statusOf = (number: string) =>
      shipments.locator(`tr:has(code:text-is("${number}")) td.status-cell`).innerText();
    expect(await statusOf('BR-DELIV-A')).toBe('Delivered');
    expect(await statusOf('BR-TRANSIT')).toBe('In transit');
    expect(await statusOf('BR-OFD')).toBe('Out for delivery');
    expect(await statusOf('BR-EXC')).toBe('Delivery attempt failed');
    expect(await statusOf('BR-NEW')).toMatch(/^Failed/);
    const transitRow = shipments.locator('tr:has(code:text-is("BR-TRANSIT"))');
    expect(await transitRow.innerText()).toMatch(/Departed facility[\s\S]*Memphis, TN, US/);
    expect(await transitRow.locator('time').count()).toBe(2); // estimated delivery and last event
    expect(await shipments.getByRole('columnheader', { name: 'Estimated delivery' }).count()).toBe(1);

    // The order whose parcels are all delivered carries the badge; the others do not.
    const orderCell = (order: string) => shipments.locator(`tr.order-start[data-order="${order}"] > th`);
    expect(await orderCell('5001').innerText()).toMatch(/#5001\s*Delivered/);
    for (const order of ['5002', '5003', '5004', '5005']) {
      expect(await orderCell(order).locator('.badge').count(), order).toBe(0);
    }

    // Needs attention: the exception, then the shipment quiet for 6 days; nothing delivered.
    const attention = page.getByRole('region', { name: 'Needs attention' });
    expect(await page.locator('#attention-days').innerText()).toBe('5');
    const rows = attention.locator('.attention-table tbody tr');
    const listed = async () =>
      (await rows.allInnerTexts()).map((text) => /BR-[A-Z0-9-]+/.exec(text)?.[0] ?? text);
    expect(await listed()).toEqual(['BR-EXC', 'BR-TRANSIT']);
    expect(await rows.nth(0).innerText()).toMatch(
      /#5003[\s\S]*Delivery attempt failed[\s\S]*Address not found/,
    );
    expect(await rows.nth(1).innerText()).toMatch(/#5002[\s\S]*No scan for 6 days[\s\S]*In transit/);
    expect(await attention.locator('#attention-status').innerText()).toBe('2 shipments need attention.');

    // The update the store refused is counted and shown with its error.
    const writes = attention.locator('[data-store-writes="failed"]');
    expect(await writes.innerText()).toMatch(/1 tracking update could not be written/);
    expect(await attention.locator('.store-writes-table').innerText()).toMatch(
      /BR-TRANSIT[\s\S]*#5002[\s\S]*In transit[\s\S]*Fulfillment not found/,
    );
    await screenshot(page, 'status-attention');

    // A threshold out of range is refused on the page, the field marked and focused; nothing is saved.
    const days = page.getByLabel('List shipments as late after this many days without a new scan');
    expect(await days.inputValue()).toBe('5');
    await days.fill('0');
    await page.getByRole('button', { name: 'Save behaviour' }).click();
    await page.locator('#settings-status').filter({ hasText: 'Not saved' }).waitFor();
    expect(await page.locator('#settings-status').innerText()).toMatch(/1 to 90/);
    expect(await days.getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate<string>("document.activeElement?.id ?? ''")).toBe('stale-after-days');
    expect((await prisma.shop.findUniqueOrThrow({ where: { id: shop.id } })).staleAfterDays).toBe(5);

    // 7 days: the 6-day quiet shipment is no longer late.
    await days.fill('7');
    await page.getByRole('button', { name: 'Save behaviour' }).click();
    await page.locator('#settings-status').filter({ hasText: 'Behaviour saved.' }).waitFor();
    expect(await days.getAttribute('aria-invalid')).toBeNull();
    await expect.poll(listed).toEqual(['BR-EXC']);
    expect(await page.locator('#attention-days').innerText()).toBe('7');

    // 3 days: the one quiet for 4 days joins, newest problem first.
    await days.fill('3');
    await page.getByRole('button', { name: 'Save behaviour' }).click();
    await expect.poll(listed).toEqual(['BR-EXC', 'BR-QUIET4', 'BR-TRANSIT']);
    expect(await rows.nth(1).innerText()).toMatch(/No scan for 4 days/);
    expect((await prisma.shop.findUniqueOrThrow({ where: { id: shop.id } })).staleAfterDays).toBe(3);
    await screenshot(page, 'status-attention-3-days');

    // The delivered badge follows its setting.
    const showDelivered = page.getByLabel('Show an order as delivered once all its parcels are delivered');
    expect(await showDelivered.isChecked()).toBe(true);
    await showDelivered.uncheck();
    await page.getByRole('button', { name: 'Save behaviour' }).click();
    await expect.poll(() => orderCell('5001').locator('.badge').count()).toBe(0);
    expect(await statusOf('BR-DELIV-A')).toBe('Delivered');
    await showDelivered.check();
    await page.getByRole('button', { name: 'Save behaviour' }).click();
    await expect.poll(() => orderCell('5001').locator('.badge').count()).toBe(1);

    // A reload shows the saved settings.
    await openSettings(page, app.url, shop.domain);
    expect(
      await page.getByLabel('List shipments as late after this many days without a new scan').inputValue(),
    ).toBe('3');
    expect(await page.getByLabel("Write tracking updates to the store's order timeline").isChecked()).toBe(
      true,
    );
  });

  it('the timeline shows the stored status and events when the service cannot be asked, and the store updates', async () => {
    const shop = await seededShop('status-timeline');
    const tracker = await shop.parcel('6001', 'BR-STORED', {
      status: 'in_transit',
      lastEventAt: ago(6 * day),
      lastEventMessage: 'Arrived at facility',
      lastEventLocation: 'Memphis, TN, US',
      estimatedDelivery: '2026-11-24',
      statusCheckedAt: ago(hour),
      events: JSON.stringify([
        {
          at: ago(7 * day).toISOString(),
          status: 'pre_transit',
          statusDetail: 'label_created',
          message: 'Shipping label created',
          location: null,
        },
        {
          at: ago(6 * day).toISOString(),
          status: 'in_transit',
          statusDetail: null,
          message: 'Arrived at facility',
          location: 'Memphis, TN, US',
        },
      ]),
    });
    for (const [status, state, error] of [
      ['LABEL_PRINTED', 'sent', null],
      ['IN_TRANSIT', 'failed', 'Fulfillment is cancelled'],
    ] as const) {
      await prisma.storeFulfillmentEvent.create({
        data: {
          shopId: shop.id,
          trackerId: tracker.id,
          fulfillmentId: '5521000000009',
          status,
          state,
          error,
          happenedAt: status === 'LABEL_PRINTED' ? ago(7 * day) : ago(6 * day),
        },
      });
    }

    const { page } = await openPage(shop.domain);
    // Opened from the Needs attention list, by keyboard.
    const opener = page.getByRole('button', { name: 'Timeline of BR-STORED (needs attention)' });
    await opener.focus();
    await page.keyboard.press('Enter');
    const timeline = page.locator('#timeline');
    await timeline.locator('.events-table').waitFor();
    const text = await timeline.innerText();
    expect(text).toMatch(/did not answer/);
    expect(text).toMatch(/Showing the status the app last read on/);
    expect(text).toMatch(
      /Status\s*In transit[\s\S]*Last event[\s\S]*Arrived at facility[\s\S]*Estimated delivery/,
    );
    const events = timeline.locator('.events-table tbody tr');
    expect(await events.count()).toBe(2);
    expect(await events.first().innerText()).toMatch(/Arrived at facility[\s\S]*Memphis/);
    const updates = timeline.locator('.store-events-table tbody tr');
    expect(await updates.count()).toBe(2);
    expect(await updates.nth(0).innerText()).toMatch(
      /In transit[\s\S]*Failed[\s\S]*Fulfillment is cancelled/,
    );
    expect(await updates.nth(1).innerText()).toMatch(/Label printed[\s\S]*Written/);
    await screenshot(page, 'status-timeline-stored');

    await page.keyboard.press('Escape');
    expect(await timeline.isHidden()).toBe(true);
    expect(await page.evaluate<string>("document.activeElement?.getAttribute('aria-label') ?? ''")).toBe(
      'Timeline of BR-STORED (needs attention)',
    );
  });

  it('nothing to look at: the empty state', async () => {
    const shop = await seededShop('status-empty');
    await shop.parcel('7001', 'BR-FINE', { status: 'in_transit', lastEventAt: ago(hour) });
    const { page } = await openPage(shop.domain);
    expect(await page.locator('#attention-body').innerText()).toMatch(/Nothing needs attention/);
    expect(await page.locator('[data-store-writes="ok"]').innerText()).toMatch(/written to the store/);
    expect(await page.locator('.attention-table').count()).toBe(0);
  });
});
