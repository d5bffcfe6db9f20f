import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite } from '../../helpers/browser-suite.js';
import { waitFor } from '../../helpers/app.js';
import {
  installShop,
  openPage,
  expectVitals,
  readVitals,
  screenshotBothWidths,
  type TestPage,
  setSessionToken,
  toasts,
} from '../../helpers/browser.js';
import { createDelivery, createTracker } from '../../helpers/factories.js';
import {
  type FakeAdminGraphql,
  startFakeAdminGraphql,
  upsNumber,
  upsOrder,
} from '../../helpers/fake-admin-graphql.js';
import { addShop, numbersOf, variant } from '../../helpers/scenario.js';

/**
 * Activity in Debian's Chromium against the real app, the worker, the emulator and a fake Admin GraphQL
 * API: failures with what to do and Retry, refused store updates counted and listed, and importing past
 * fulfilments to the end. (Shipments late or in trouble are Needs attention's: attention.test.ts.)
 */

const suite = browserSuite();
let fake: FakeAdminGraphql;

beforeAll(async () => {
  fake = await startFakeAdminGraphql(2);
});
afterAll(async () => {
  await fake?.close();
});

async function activityFor(domain: string): Promise<TestPage> {
  await installShop(suite.app, domain);
  const current = await suite.page();
  await openPage(current.page, suite.app.url, domain, '/activity');
  return current;
}

describe('problems', () => {
  it('a failed tracker says what happened and what to do, once; Retry sends it round again', async () => {
    const shop = await addShop(suite.app, 'activity-failed');
    await shop.send(
      'fulfillments/create',
      variant('fulfillments-create.postnl-needs-postcode', { destination: null }),
    );
    await shop.settled();
    const [before] = await shop.rows();
    expect(before).toMatchObject({ syncState: 'failed', lastErrorReason: 'destination_required' });
    // Refused store writes.
    for (let i = 0; i < 3; i++) {
      await suite.app.database.prisma.storeFulfillmentEvent.create({
        data: {
          shopId: shop.id,
          trackerId: before!.id,
          fulfillmentId: 'f-1',
          status: 'IN_TRANSIT',
          happenedAt: new Date(Date.now() - i * 60_000),
          state: 'failed',
          attempts: 4,
          error: 'Fulfillment is already delivered',
        },
      });
    }
    const { page } = await activityFor(shop.domain);
    const row = page.locator(`s-table-row[data-tracker="${before!.id}"]`);
    const text = await row.innerText();
    expect(text).toContain('3SABCD0123456');
    expect(text.match(/The carrier needs the destination/g)).toHaveLength(1);
    expect(text).toContain('Add the shipping address to the order in your store, then retry.');
    expect(await page.locator('s-section[heading="Failures (1)"]').count()).toBe(1);

    // Refused writes: counted, listed, and never "all written".
    const writes = page.locator('s-section[heading="Tracking updates refused by your store (3)"]');
    expect(await writes.locator('s-table-body s-table-row').count()).toBe(3);
    expect(await page.getByText('Every tracking update so far was written').count()).toBe(0);

    await screenshotBothWidths(page, 'activity-problems');

    const createsBefore = (await shop.calls('create')).length;
    await row.getByRole('button', { name: 'Retry 3SABCD0123456' }).click();
    await expect.poll(async () => (await toasts(page)).at(-1)?.message).toBe('Retrying 3SABCD0123456');
    await waitFor('the retried create', async () => (await shop.calls('create')).length > createsBefore);
    const vitals = await readVitals(page);
    expect(vitals.interactions).toBeGreaterThan(0);
    expectVitals('activity', vitals, (ok, why) => expect(ok, why).toBe(true));
  });

  it('store updates not applied and Retry all; the switched-off note beside refused writes; Retry disabled while the session is expired', async () => {
    const shop = await addShop(suite.app, 'activity-deliveries');
    await suite.app.database.prisma.shop.update({
      where: { id: shop.id },
      data: { postFulfillmentEvents: false },
    });
    const tracker = await createTracker(suite.app.database.prisma, shop.id, {
      syncState: 'failed',
      lastErrorReason: 'destination_required',
    });
    await suite.app.database.prisma.storeFulfillmentEvent.create({
      data: {
        shopId: shop.id,
        trackerId: tracker.id,
        fulfillmentId: 'f-1',
        status: 'IN_TRANSIT',
        happenedAt: new Date(),
        state: 'failed',
        error: 'Refused',
      },
    });
    await createDelivery(suite.app.database.prisma, { id: 1 }, { shopDomain: shop.domain, state: 'failed' });

    const { page } = await activityFor(shop.domain);
    const failures = page.locator('s-section[heading="Failures (2)"]');
    expect(await failures.locator('s-table-row[data-delivery]').innerText()).toContain('A new fulfilment');
    expect(await failures.locator(`s-table-row[data-tracker="${tracker.id}"]`).count()).toBe(1);
    await page.getByTestId('writes-switched-off').waitFor();
    expect(
      await page
        .locator('s-section[heading="Tracking updates refused by your store (1)"] s-table-body s-table-row')
        .count(),
    ).toBe(1);

    // The session expires: one banner, and no Retry can be pressed.
    await setSessionToken(page, 'expired-token');
    await failures.getByRole('button', { name: 'Retry all' }).click();
    await page.getByTestId('session-expired').waitFor();
    const actions = await page.locator('s-button[data-needs-session]').all();
    expect(actions.length).toBeGreaterThanOrEqual(3);
    for (const button of actions) expect(await button.getAttribute('disabled')).not.toBeNull();
    expect((await toasts(page)).filter((t) => t.isError)).toEqual([]);

    // Back: Retry all sends both round again.
    await setSessionToken(page, null);
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByTestId('session-expired').waitFor({ state: 'detached' });
    await page.locator('body[data-ready="true"]').waitFor();
    await page
      .locator('s-section[heading="Failures (2)"]')
      .getByRole('button', { name: 'Retry all' })
      .click();
    await expect.poll(async () => (await toasts(page)).at(-1)?.message).toBe('Retrying 2 failed items');
  });

  it('long lists come 50 at a time, counted in all: Load more adds the next page until none is left', async () => {
    const prisma = suite.app.database.prisma;
    const shop = await addShop(suite.app, 'activity-many');
    const failed = Array.from({ length: 57 }, (_, i) => ({
      id: randomUUID(),
      shopId: shop.id,
      trackingNumber: `1ZFAIL${String(i).padStart(8, '0')}`,
      provider: 'ups',
      orderKey: String(7_000 + i),
      syncState: 'failed',
      lastErrorReason: 'destination_required',
      lastErrorAt: new Date(Date.now() - i * 60_000),
    }));
    await prisma.tracker.createMany({ data: failed });
    await prisma.storeFulfillmentEvent.createMany({
      data: Array.from({ length: 53 }, (_, i) => ({
        shopId: shop.id,
        trackerId: failed[i % failed.length]!.id,
        fulfillmentId: `f-${i}`,
        status: 'IN_TRANSIT',
        happenedAt: new Date(Date.now() - i * 60_000),
        state: 'failed',
        attempts: 3,
        error: 'Fulfillment is already delivered',
      })),
    });

    const { page } = await activityFor(shop.domain);
    const failures = page.locator('s-section[heading="Failures (57)"]');
    const trackerRows = failures.locator('s-table-row[data-tracker]');
    expect(await trackerRows.count()).toBe(50);
    // The newest failure first.
    expect(await trackerRows.first().getAttribute('data-tracker')).toBe(failed[0]!.id);
    await failures.getByRole('button', { name: 'Load more failed trackers' }).click();
    await expect.poll(() => trackerRows.count()).toBe(57);
    expect(await failures.getByRole('button', { name: 'Load more failed trackers' }).count()).toBe(0);
    const shown = await trackerRows.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-tracker')));
    expect(shown).toEqual(failed.map((t) => t.id));

    const writes = page.locator('s-section[heading="Tracking updates refused by your store (53)"]');
    const writeRows = writes.locator('s-table-body s-table-row');
    expect(await writeRows.count()).toBe(50);
    await writes.getByRole('button', { name: 'Load more refused updates' }).click();
    await expect.poll(() => writeRows.count()).toBe(53);
    expect(await writes.getByRole('button', { name: 'Load more refused updates' }).count()).toBe(0);
  });

  it('all clear: says so in each section', async () => {
    const shop = await addShop(suite.app, 'activity-clear');
    const { page } = await activityFor(shop.domain);
    await page.getByText('Nothing failed: every tracker and store update went through.').waitFor();
    await page.getByText('Every tracking update so far was written to your store.').waitFor();
    await page.getByText('No import has run for this store yet.').waitFor();
    expect(await page.getByText('late or in trouble').count()).toBe(0);
    await screenshotBothWidths(page, 'activity-all-clear');
  });
});

describe('import past fulfilments', () => {
  it('refuses a bad number of days, then imports with progress until done', async () => {
    const shop = await addShop(suite.app, 'activity-backfill');
    const numbers = [1, 2, 3, 4, 5].map((i) => upsNumber(900 + i));
    fake.setOrders(shop.domain, [
      upsOrder(901, [[numbers[0]!]]),
      upsOrder(902, [[numbers[1]!]]),
      upsOrder(903, [[numbers[2]!, numbers[3]!]]),
      upsOrder(904, []),
      upsOrder(905, [[numbers[4]!]]),
    ]);
    const { page } = await activityFor(shop.domain);
    const days = page.getByLabel('Days back');
    await days.fill('400');
    await days.press('Enter');
    await expect
      .poll(() => page.locator('s-number-field').getAttribute('error'))
      .toBe('Enter a whole number of days from 1 to 365.');
    await days.fill('60');
    await page.getByRole('button', { name: 'Import' }).click();
    await page.locator('s-banner[heading="Imported the last 60 days"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('s-banner[heading="Imported the last 60 days"]').innerText()).toContain(
      '3 pages of orders read, 4 fulfilments seen, 5 tracking numbers to track.',
    );
    expect((await toasts(page)).map((t) => t.message)).toContain('Importing the last 60 days');
    await shop.settled();
    expect(numbersOf(await shop.remote())).toEqual([...numbers].sort());
  });
});
