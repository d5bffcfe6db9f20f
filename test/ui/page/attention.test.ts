import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { problemKinds, problemWords } from '../../../src/shipments/problem-words.js';
import { problemKindLabels } from '../../../src/ui/vocabulary.js';
import { browserSuite } from '../../helpers/browser-suite.js';
import {
  expectVitals,
  installShop,
  openPage,
  readVitals,
  screenshotBothWidths,
  type TestPage,
  toasts,
  viewports,
  waitForPageReady,
} from '../../helpers/browser.js';
import { addShop } from '../../helpers/scenario.js';

/**
 * Needs attention in Debian's Chromium against the real app: the shop's open shipment problems, seeded
 * in the database, with a count per kind that filters them; each row's words and links; Handled with a
 * note and Snooze to a day taking the row away and the counts with it; Load more across two pages; the
 * way in from the app menu and the Overview; the list at 390 px and 1000 px.
 */

const suite = browserSuite();

const dayMs = 86_400_000;

interface ParcelOptions {
  status?: string | null;
  statusDetail?: string | null;
  orderId?: string;
  /** The store's order name (its tracking line); null: no line, the order shows by its id. */
  orderName?: string | null;
}

/** A shop with the app installed, and helpers to seed its parcels and their problems. */
async function problemShop(name: string) {
  const prisma = suite.app.database.prisma;
  const shop = await addShop(suite.app, name);
  await installShop(suite.app, shop.domain);
  const now = Date.now();
  return {
    shop,
    /** A tracker at the service (left alone by the worker: nothing due), with its order's line. */
    async parcel(trackingNumber: string, options: ParcelOptions = {}): Promise<string> {
      const orderId = options.orderId ?? String(6_000_000 + Math.floor(Math.random() * 1_000_000));
      const tracker = await prisma.tracker.create({
        data: {
          shopId: shop.id,
          trackingNumber,
          provider: 'ups',
          orderKey: orderId,
          desired: 'active',
          remote: 'present',
          syncState: 'synced',
          status: options.status === undefined ? 'in_transit' : options.status,
          statusDetail: options.statusDetail ?? null,
        },
      });
      if (options.orderName !== null) {
        await prisma.trackingLine.create({
          data: {
            shopId: shop.id,
            fulfillmentId: `f-${trackingNumber}`,
            orderId,
            orderName: options.orderName ?? `#${orderId}`,
            trackingNumber,
            carrierName: 'UPS',
            carrierKey: 'ups',
            trackerId: tracker.id,
          },
        });
      }
      return tracker.id;
    },
    /** An open problem of `kind` on a tracker since `daysAgo` days. */
    async problem(
      trackerId: string,
      kind: (typeof problemKinds)[number],
      daysAgo: number,
      more: { detail?: string | null; closedAt?: Date; snoozedUntil?: Date } = {},
    ) {
      return prisma.shipmentProblem.create({
        data: {
          shopId: shop.id,
          trackerId,
          kind,
          since: new Date(now - daysAgo * dayMs),
          detail: more.detail ?? null,
          ...(more.closedAt ? { closedAt: more.closedAt, closedReason: 'moved' } : {}),
          ...(more.snoozedUntil ? { snoozedUntil: more.snoozedUntil } : {}),
        },
      });
    },
  };
}

/**
 * Opens Needs attention the way a merchant gets there: the app (the Overview), then its item in the
 * app menu, which the page follows in place.
 */
async function openAttention(domain: string): Promise<TestPage> {
  const current = await suite.page();
  const { page } = current;
  await openPage(page, suite.app.url, domain, '/');
  await page.locator('s-app-nav').getByRole('link', { name: 'Needs attention' }).click();
  await page.waitForURL((url) => url.pathname === '/attention');
  await page.locator('s-page[heading="Needs attention"]').waitFor();
  await waitForPageReady(page);
  return current;
}

/** What the tests read of an element in the page (the test program has no DOM library). */
interface HTMLElementLike {
  dataset: Record<string, string | undefined>;
}

const rows = (page: Page) => page.locator('s-table-body s-table-row');
const chipTexts = (page: Page) =>
  page.locator('s-clickable-chip').evaluateAll((chips) => chips.map((c) => c.textContent ?? ''));
const summary = (page: Page) => page.getByText(/^Showing \d+ of \d+ problems?, oldest first\.$/);
const dateOf = (daysAgo: number, now: number) =>
  new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium' }).format(new Date(now - daysAgo * dayMs));

/** The table lays out within its section: nothing scrolls inside it either. */
async function tableFits(page: Page): Promise<void> {
  const overflow = await page.locator('s-table').evaluate((table) => {
    const scroll = table.shadowRoot?.querySelector('.scroll');
    return scroll ? scroll.scrollWidth - scroll.clientWidth : 0;
  });
  expect(overflow).toBeLessThanOrEqual(0);
}

describe('the list', () => {
  it('counts each kind as a filter choice, and each row says what happened, since when, which parcel, where it stands and what to do', async () => {
    const seed = await problemShop('attention-list');
    const now = Date.now();
    const stalled = await seed.parcel('1ZATTN00000001', { orderId: '3001', orderName: '#3001' });
    const exception = await seed.parcel('1ZATTN00000002', { status: 'exception', orderName: '#3002' });
    const unnamed = await seed.parcel('1ZATTN00000003', { status: null, orderId: '9003', orderName: null });
    const another = await seed.parcel('1ZATTN00000004', { orderName: '#3004' });
    const done = await seed.parcel('1ZATTN00000005', { orderName: '#3005' });
    await seed.problem(stalled, 'stalled', 6, { detail: 'Arrived at facility' });
    await seed.problem(exception, 'carrier_exception', 4, { detail: 'Address information needed' });
    await seed.problem(unnamed, 'not_picked_up', 9);
    await seed.problem(stalled, 'past_estimate', 2);
    await seed.problem(another, 'stalled', 3, { detail: 'Departed facility' });
    // Closed, and snoozed until tomorrow: not listed, not counted.
    await seed.problem(done, 'stalled', 8, { closedAt: new Date() });
    await seed.problem(done, 'failed_attempt', 7, { snoozedUntil: new Date(now + dayMs) });

    const { page } = await openAttention(seed.shop.domain);
    expectVitals('needs attention', await readVitals(page), (ok, why) => expect(ok, why).toBe(true));

    // A chip per kind that has problems, in the API's order, with the same words as its rows.
    expect(await chipTexts(page)).toEqual([
      'All (5)',
      `${problemWords.not_picked_up.label} (1)`,
      `${problemWords.stalled.label} (2)`,
      `${problemWords.past_estimate.label} (1)`,
      `${problemWords.carrier_exception.label} (1)`,
    ]);
    expect(await page.locator('s-clickable-chip[data-kind="all"]').getAttribute('color')).toBe('strong');
    await summary(page).waitFor();
    expect(await summary(page).innerText()).toBe('Showing 5 of 5 problems, oldest first.');

    // Oldest first.
    const kinds = await rows(page).evaluateAll((list) =>
      list.map((r) => (r as HTMLElementLike).dataset.kind),
    );
    expect(kinds).toEqual(['not_picked_up', 'stalled', 'carrier_exception', 'stalled', 'past_estimate']);

    // A row's words: what happened and its detail, since when, the order and number, the status, what to do.
    const row = rows(page).nth(1);
    const text = await row.innerText();
    for (const words of [
      'Stalled',
      'Arrived at facility',
      dateOf(6, now),
      '6 days ago',
      '#3001',
      '1ZATTN00000001',
      'UPS',
      'In transit',
      problemWords.stalled.todo,
    ])
      expect(text).toContain(words);
    expect(await row.locator('s-link').first().getAttribute('href')).toBe('shopify://admin/orders/3001');
    expect(await row.locator('s-link').first().getAttribute('target')).toBe('_top');
    const numberLink = row.getByRole('link', { name: 'Shipment 1ZATTN00000001' });
    const href = new URL((await numberLink.getAttribute('href'))!, suite.app.url);
    expect(href.pathname).toBe('/shipments');
    expect(href.searchParams.get('search')).toBe('1ZATTN00000001');
    expect(href.searchParams.get('detail')).toBe(stalled);
    expect(await row.locator('s-badge').innerText()).toBe('In transit');
    // No order name: the order by its id; no status read yet: said so.
    const first = await rows(page).first().innerText();
    expect(first).toContain('Order 9003');
    expect(first).toContain('No status yet');
    expect(first).toContain(problemWords.not_picked_up.todo);
    expect(await rows(page).nth(2).locator('s-badge').getAttribute('tone')).toBe('critical');

    await tableFits(page);
    await screenshotBothWidths(page, 'attention');
    for (const size of [viewports.phone, viewports.desktop]) {
      await page.setViewportSize(size);
      await tableFits(page);
    }

    // One kind: its rows only, kept in the address.
    await page.getByRole('button', { name: 'Stalled (2)' }).click();
    await page.waitForURL((url) => url.searchParams.get('kind') === 'stalled');
    await expect
      .poll(() => rows(page).evaluateAll((list) => list.map((r) => (r as HTMLElementLike).dataset.kind)))
      .toEqual(['stalled', 'stalled']);
    expect(await summary(page).innerText()).toBe('Showing 2 of 2 problems, oldest first.');
    expect(await page.locator('s-clickable-chip[data-kind="stalled"]').getAttribute('color')).toBe('strong');
    await screenshotBothWidths(page, 'attention-filtered');
    await page.getByRole('button', { name: 'All (5)' }).click();
    await expect.poll(() => rows(page).count()).toBe(5);
    expect(new URL(page.url()).searchParams.get('kind')).toBeNull();

    // The number leads to the shipment: the Shipments page with its row and its timeline.
    await rows(page).nth(1).getByRole('link', { name: 'Shipment 1ZATTN00000001' }).click();
    await page.waitForURL((url) => url.pathname === '/shipments');
    expect(new URL(page.url()).searchParams.get('detail')).toBe(stalled);
    await page.locator('s-page[heading="Shipments"]').waitFor();
    await page.locator('s-table-row[data-number="1ZATTN00000001"]').waitFor();
  });

  it('the page and the API say each kind alike', () => {
    expect(Object.keys(problemKindLabels)).toEqual([...problemKinds]);
    for (const kind of problemKinds) expect(problemKindLabels[kind]).toBe(problemWords[kind].label);
  });

  it('Load more brings the next 50, oldest first, until none is left', async () => {
    const seed = await problemShop('attention-many');
    const prisma = suite.app.database.prisma;
    const now = Date.now();
    const trackers = Array.from({ length: 57 }, (_, i) => ({
      id: randomUUID(),
      shopId: seed.shop.id,
      trackingNumber: `1ZMANY${String(i).padStart(8, '0')}`,
      provider: 'ups',
      orderKey: String(8_000 + i),
      desired: 'active',
      remote: 'present',
      syncState: 'synced',
      status: 'in_transit',
    }));
    await prisma.tracker.createMany({ data: trackers });
    const kinds = ['stalled', 'past_estimate', 'not_picked_up'] as const;
    const problems = trackers.map((t, i) => ({
      id: randomUUID(),
      shopId: seed.shop.id,
      trackerId: t.id,
      kind: kinds[i % 3]!,
      // The oldest first: i = 0 is the oldest.
      since: new Date(now - (100 - i) * 3_600_000),
      detail: `Scan ${i}`,
    }));
    await prisma.shipmentProblem.createMany({ data: problems });

    const { page } = await openAttention(seed.shop.domain);
    expect(await rows(page).count()).toBe(50);
    expect(await summary(page).innerText()).toBe('Showing 50 of 57 problems, oldest first.');
    expect((await chipTexts(page))[0]).toBe('All (57)');
    await page.getByRole('button', { name: 'Load more problems' }).click();
    await expect.poll(() => rows(page).count()).toBe(57);
    expect(await page.getByRole('button', { name: 'Load more problems' }).count()).toBe(0);
    expect(await summary(page).innerText()).toBe('Showing 57 of 57 problems, oldest first.');
    const shown = await rows(page).evaluateAll((list) =>
      list.map((r) => (r as HTMLElementLike).dataset.problem),
    );
    expect(shown).toEqual(problems.map((p) => p.id));

    // One kind across pages: 19 stalled, all on the first page.
    await page.getByRole('button', { name: 'Stalled (19)' }).click();
    await expect.poll(() => rows(page).count()).toBe(19);
    expect(await page.getByRole('button', { name: 'Load more problems' }).count()).toBe(0);
  });

  it('nothing open: says nothing needs attention', async () => {
    const seed = await problemShop('attention-clear');
    const tracker = await seed.parcel('1ZCLEAR0000001');
    await seed.problem(tracker, 'stalled', 5, { closedAt: new Date() });
    const { page } = await openAttention(seed.shop.domain);
    await page.locator('s-empty-state[heading="Nothing needs attention"]').waitFor();
    expect(await chipTexts(page)).toEqual([]);
    expect(await rows(page).count()).toBe(0);
    await screenshotBothWidths(page, 'attention-all-clear');
  });
});

describe('acting on a problem', () => {
  it('Handled with a note closes it, Snooze hides it until the day chosen; each row leaves and the counts follow', async () => {
    const seed = await problemShop('attention-act');
    const prisma = suite.app.database.prisma;
    const first = await seed.parcel('1ZACT000000001', { orderName: '#4001' });
    const second = await seed.parcel('1ZACT000000002', { status: 'exception', orderName: '#4002' });
    const third = await seed.parcel('1ZACT000000003', { status: 'exception', orderName: '#4003' });
    const stalled = await seed.problem(first, 'stalled', 5, { detail: 'Arrived at facility' });
    const exception = await seed.problem(second, 'carrier_exception', 4, { detail: 'Damaged' });
    const closedMeanwhile = await seed.problem(third, 'carrier_exception', 3, { detail: 'Held' });

    const { page } = await openAttention(seed.shop.domain);
    expect(await chipTexts(page)).toEqual(['All (3)', 'Stalled (1)', 'Carrier exception (2)']);

    // Handled, with a note.
    const stalledRow = page.locator(`s-table-row[data-problem="${stalled.id}"]`);
    await stalledRow.getByRole('button', { name: 'Handled: Stalled, 1ZACT000000001' }).click();
    const note = stalledRow.getByLabel('Note (optional)');
    await expect.poll(() => note.evaluate((input) => input.matches(':focus'))).toBe(true);
    await note.fill('Opened a trace with UPS');
    await screenshotBothWidths(page, 'attention-handled-form');
    await stalledRow.getByRole('button', { name: 'Mark handled' }).click();
    await stalledRow.waitFor({ state: 'detached' });
    await expect
      .poll(async () => (await toasts(page)).at(-1))
      .toEqual({ message: 'Marked handled', isError: false });
    expect(await chipTexts(page)).toEqual(['All (2)', 'Carrier exception (2)']);
    expect(await summary(page).innerText()).toBe('Showing 2 of 2 problems, oldest first.');
    const handled = await prisma.shipmentProblem.findUniqueOrThrow({ where: { id: stalled.id } });
    expect(handled).toMatchObject({ closedReason: 'handled', note: 'Opened a trace with UPS' });
    expect(handled.closedAt).not.toBeNull();

    // Snooze: three days ahead unless changed; a day that is not after today, or more than a year ahead, is
    // refused on the page.
    const exceptionRow = page.locator(`s-table-row[data-problem="${exception.id}"]`);
    await exceptionRow.getByRole('button', { name: 'Snooze: Carrier exception, 1ZACT000000002' }).click();
    const until = exceptionRow.getByLabel('Snooze until');
    const today = await page.evaluate(() => {
      const d = new Date();
      const pad = (n: number) => String(n).padStart(2, '0');
      return { now: `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}` };
    });
    const inDays = (n: number) => {
      const [y, m, d] = today.now.split('-').map(Number);
      return new Date(Date.UTC(y!, m! - 1, d! + n)).toISOString().slice(0, 10);
    };
    expect(await until.inputValue()).toBe(inDays(3));
    await until.fill(today.now);
    await exceptionRow.getByRole('button', { name: 'Snooze', exact: true }).click();
    await expect
      .poll(() => exceptionRow.locator('s-date-field').getAttribute('error'))
      .toBe('Choose a day after today.');
    // Nor one more than a year ahead (the API refuses it too).
    await until.fill(inDays(366));
    await exceptionRow.getByRole('button', { name: 'Snooze', exact: true }).click();
    await expect
      .poll(() => exceptionRow.locator('s-date-field').getAttribute('error'))
      .toBe('Choose a day within a year.');
    await until.fill(inDays(5));
    await exceptionRow.getByRole('button', { name: 'Snooze', exact: true }).click();
    await exceptionRow.waitFor({ state: 'detached' });
    expect(await chipTexts(page)).toEqual(['All (1)', 'Carrier exception (1)']);
    const snoozed = await prisma.shipmentProblem.findUniqueOrThrow({ where: { id: exception.id } });
    expect(snoozed.closedAt).toBeNull();
    expect(snoozed.snoozedUntil?.toISOString()).toBe(`${inDays(5)}T00:00:00.000Z`);
    expect((await toasts(page)).at(-1)?.message).toMatch(/^Snoozed until /);

    // Closed by the sweep meanwhile (the parcel moved on): the row leaves all the same, saying so.
    await prisma.shipmentProblem.update({
      where: { id: closedMeanwhile.id },
      data: { closedAt: new Date(), closedReason: 'moved' },
    });
    const lastRow = page.locator(`s-table-row[data-problem="${closedMeanwhile.id}"]`);
    await lastRow.getByRole('button', { name: /^Handled: / }).click();
    await lastRow.getByRole('button', { name: 'Mark handled' }).click();
    await lastRow.waitFor({ state: 'detached' });
    expect((await toasts(page)).at(-1)?.message).toBe('This problem was closed already: nothing left to do.');
    expect(
      (await prisma.shipmentProblem.findUniqueOrThrow({ where: { id: closedMeanwhile.id } })).closedReason,
    ).toBe('moved');
    await page.locator('s-empty-state[heading="Nothing needs attention"]').waitFor();

    // Reloaded, the snoozed and handled ones stay away.
    await page.locator('s-app-nav').getByRole('link', { name: 'Shipments' }).click();
    await page.locator('s-app-nav').getByRole('link', { name: 'Needs attention' }).click();
    await page.locator('s-empty-state[heading="Nothing needs attention"]').waitFor();
    const vitals = await readVitals(page);
    expect(vitals.interactions).toBeGreaterThan(0);
    expectVitals('needs attention (after acting)', vitals, (ok, why) => expect(ok, why).toBe(true));
  });

  it('Handled without a note, one kind shown: when that kind is done the list says so and leads back to all', async () => {
    const seed = await problemShop('attention-kind-done');
    const a = await seed.parcel('1ZKIND00000001');
    const b = await seed.parcel('1ZKIND00000002');
    const stalled = await seed.problem(a, 'stalled', 5);
    await seed.problem(b, 'past_estimate', 1);
    const { page } = await openAttention(seed.shop.domain);
    await page.getByRole('button', { name: 'Stalled (1)' }).click();
    await expect.poll(() => rows(page).count()).toBe(1);
    const row = page.locator(`s-table-row[data-problem="${stalled.id}"]`);
    await row.getByRole('button', { name: /^Handled: / }).click();
    await row.getByRole('button', { name: 'Mark handled' }).click();
    await page.locator('s-empty-state[heading="No problems of this kind"]').waitFor();
    expect(await chipTexts(page)).toEqual(['All (1)', 'Stalled (0)', 'Past its estimate (1)']);
    expect(
      await suite.app.database.prisma.shipmentProblem.findUniqueOrThrow({ where: { id: stalled.id } }),
    ).toMatchObject({ closedReason: 'handled', note: null });
    await page.getByRole('button', { name: 'Show all 1' }).click();
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(new URL(page.url()).searchParams.get('kind')).toBeNull();
    expect(await chipTexts(page)).toEqual(['All (1)', 'Past its estimate (1)']);
  });

  it('a list that cannot be loaded says so in a banner; an action that fails says so in a toast and the row stays', async () => {
    const seed = await problemShop('attention-errors');
    const tracker = await seed.parcel('1ZFAIL00000001');
    const problem = await seed.problem(tracker, 'stalled', 5);
    const { page } = await openAttention(seed.shop.domain);

    await page.route(`**/api/problems/${problem.id}/handled`, (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"internal_error"}' }),
    );
    const row = page.locator(`s-table-row[data-problem="${problem.id}"]`);
    await row.getByRole('button', { name: /^Handled: / }).click();
    await row.getByRole('button', { name: 'Mark handled' }).click();
    await expect
      .poll(async () => (await toasts(page)).at(-1))
      .toEqual({
        message: 'The app could not complete the request (HTTP 500). Please try again.',
        isError: true,
      });
    expect(await row.count()).toBe(1);
    expect(
      (await suite.app.database.prisma.shipmentProblem.findUniqueOrThrow({ where: { id: problem.id } }))
        .closedAt,
    ).toBeNull();

    await page.route(
      (url) => url.pathname === '/api/problems',
      (route) =>
        route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":"unavailable"}' }),
    );
    await page.getByRole('button', { name: 'Stalled (1)' }).click();
    const banner = page.locator('s-banner[heading="Problems could not be loaded"]');
    await banner.waitFor();
    expect(await banner.getAttribute('tone')).toBe('critical');
    expect(await banner.innerText()).toContain('The app could not complete the request (HTTP 503).');
  });
});

describe('the way in', () => {
  it('the Overview counts the open problems and leads to them; Activity no longer lists late shipments', async () => {
    const seed = await problemShop('attention-overview');
    const a = await seed.parcel('1ZWAY000000001');
    const b = await seed.parcel('1ZWAY000000002');
    await seed.problem(a, 'stalled', 5);
    await seed.problem(b, 'past_estimate', 2);
    await seed.problem(b, 'failed_attempt', 1, { snoozedUntil: new Date(Date.now() + 2 * dayMs) });
    const current = await suite.page();
    const { page } = current;
    await openPage(page, suite.app.url, seed.shop.domain, '/');
    const line = page.locator('s-list-item[data-health="needs_attention"]');
    expect(await line.getAttribute('data-count')).toBe('2');
    expect(await line.innerText()).toContain('2 shipment problems need attention.');
    // The first health line.
    expect(await page.locator('.health-list s-list-item').first().getAttribute('data-health')).toBe(
      'needs_attention',
    );
    await line.getByRole('link', { name: 'Review them' }).click();
    await page.waitForURL((url) => url.pathname === '/attention');
    await waitForPageReady(page);
    await expect.poll(() => rows(page).count()).toBe(2);

    await page.locator('s-app-nav').getByRole('link', { name: 'Activity' }).click();
    await page.locator('s-page[heading="Activity"]').waitFor();
    await waitForPageReady(page);
    expect(await page.getByText('late or in trouble').count()).toBe(0);
  });
});
