import { randomBytes } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { browserSuite } from '../../helpers/browser-suite.js';
import { TEST_SECRET, waitFor } from '../../helpers/app.js';
import {
  appBridgeCalls,
  installShop,
  openPage,
  expectVitals,
  readVitals,
  screenshotBothWidths,
  setSessionToken,
  type TestPage,
  toasts,
} from '../../helpers/browser.js';
import { startFakeAdminGraphql } from '../../helpers/fake-admin-graphql.js';
import { addShop, variant } from '../../helpers/scenario.js';
import { deliver, fixture } from '../../helpers/webhooks.js';

/**
 * Settings in Debian's Chromium against the real app and the emulator: the connection (a refused key says
 * why; the key is never shown), behaviour through the admin's save bar, carrier mapping that releases
 * waiting shipments, and the forms disabled while the session is expired.
 */

const suite = browserSuite();

async function settingsFor(domain: string, query = ''): Promise<TestPage> {
  await installShop(suite.app, domain);
  const current = await suite.page();
  await openPage(current.page, suite.app.url, domain, `/settings${query}`);
  return current;
}

/** An account at the emulator and a shop installed but not yet connected to it. */
async function unconnectedShop(name: string) {
  const tag = `${name}-${randomBytes(4).toString('hex')}`;
  const account = { apiKey: `key-${tag}`, appName: `store-${tag}`, plan: 'Pro', balance: 750, https: true };
  await suite.app.emulator.control.addAccount(account);
  return { domain: `${tag}.myshopify.com`, ...account };
}

const saveBarShown = (page: TestPage['page']) => page.locator('.stand-in-save-bar');

describe('connection', () => {
  it('a wrong key is refused with the reason on the field; the key is never filled in', async () => {
    const shop = await unconnectedShop('bad-key');
    const { page } = await settingsFor(shop.domain);
    expect(await page.locator('#connection s-badge').innerText()).toBe('Not connected');
    await page.getByLabel('App name').fill(shop.appName);
    await page.getByLabel('API key').fill('not-the-right-key');
    await saveBarShown(page).waitFor();
    await saveBarShown(page).getByRole('button', { name: 'Save' }).click();
    const field = page.locator('s-password-field');
    await expect.poll(() => field.getAttribute('error')).toMatch(/^Wrong API key or wrong app name/);
    expect(await page.getByLabel('API key').getAttribute('aria-invalid')).toBe('true');
    expect((await toasts(page)).at(-1)).toMatchObject({
      isError: true,
      message: expect.stringMatching(/^Not saved/),
    });
    // Still unsaved: the bar stays.
    expect(await saveBarShown(page).count()).toBe(1);
    await screenshotBothWidths(page, 'settings-not-connected');
    // Discard puts back what was saved.
    await saveBarShown(page).getByRole('button', { name: 'Discard' }).click();
    expect(await page.getByLabel('API key').inputValue()).toBe('');
    expect(await saveBarShown(page).count()).toBe(0);
  });

  it('a good key is saved; balance and plan are shown once a tracker exists; the key never is', async () => {
    const shop = await unconnectedShop('good-key');
    const { page } = await settingsFor(shop.domain);
    await page.getByLabel('App name').fill(shop.appName);
    await page.getByLabel('API key').fill(shop.apiKey);
    await saveBarShown(page).getByRole('button', { name: 'Save' }).click();
    await page.locator('#connection s-badge', { hasText: 'Connected' }).waitFor();
    await expect.poll(() => page.getByLabel('API key').inputValue()).toBe('');
    expect((await toasts(page)).at(-1)).toEqual({ message: 'Connected', isError: false });
    expect(await page.locator('s-password-field').getAttribute('details')).toMatch(/^A key is stored/);
    expect(await page.getByTestId('balance').innerText()).toMatch(/not known yet/);
    expect(await saveBarShown(page).count()).toBe(0);

    await deliver(suite.app.url, {
      topic: 'fulfillments/create',
      shop: shop.domain,
      body: fixture('fulfillments-create.ups'),
      secret: TEST_SECRET,
    });
    await waitFor('the balance recorded', async () => {
      const row = await suite.app.database.prisma.shop.findUnique({ where: { domain: shop.domain } });
      return row?.trackersBalance === 749;
    });
    await page.reload();
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await page.getByTestId('balance').innerText()).toBe('749 trackers left · Pro plan');
    expect(await page.getByLabel('App name').inputValue()).toBe(shop.appName);
    expect(await page.getByLabel('API key').inputValue()).toBe('');
    const html = await page.content();
    expect(html).not.toContain(shop.apiKey);
    await screenshotBothWidths(page, 'settings-connected');
  });
});

describe('keyboard', () => {
  it('the connection is filled in and saved without the mouse (Enter submits)', async () => {
    const shop = await unconnectedShop('keyboard');
    const { page } = await settingsFor(shop.domain);
    const focusedLabel = () =>
      page.evaluate(`(() => {
        let el = document.activeElement;
        while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
        const root = el && el.getRootNode();
        return root && root.host ? root.host.getAttribute('label') : null;
      })()`);
    for (let i = 0; i < 12 && (await focusedLabel()) !== 'App name'; i++) await page.keyboard.press('Tab');
    expect(await focusedLabel()).toBe('App name');
    await page.keyboard.type(shop.appName);
    await page.keyboard.press('Tab');
    expect(await focusedLabel()).toBe('API key');
    await page.keyboard.type(shop.apiKey);
    await page.keyboard.press('Enter');
    await page.locator('#connection s-badge', { hasText: 'Connected' }).waitFor();
    await expect.poll(() => page.getByLabel('API key').inputValue()).toBe('');
  });
});

describe('behaviour', () => {
  it('a change shows the save bar; Save stores it (toast), a reload shows it; leaving unsaved asks first', async () => {
    const domain = `behaviour-${randomBytes(3).toString('hex')}.myshopify.com`;
    const { page } = await settingsFor(domain);
    const create = page.getByLabel('Create a tracker when an order is fulfilled');
    expect(await create.isChecked()).toBe(true);
    await create.uncheck();
    await saveBarShown(page).waitFor();
    await create.check();
    await saveBarShown(page).waitFor({ state: 'detached' });

    await page.getByLabel('The order name without # (for example 1001)').check();
    // The old "late" threshold no longer changes anything on screen (the Needs attention page's
    // "Stalled" rule took its place): the page neither shows nor mentions it.
    expect(await page.locator('#behaviour s-number-field').count()).toBe(1);
    expect(await page.getByText(/as late|days without a scan/i).count()).toBe(0);
    expect(await page.getByLabel(/as late|days without a scan/i).count()).toBe(0);
    // Typed key by key (and Save clicked) so the interactions count towards INP.
    const hours = page.getByLabel('While status pushes arrive, still read each shipment every (hours)');
    await hours.selectText();
    await hours.pressSequentially('9');
    await saveBarShown(page).getByRole('button', { name: 'Save' }).click();
    await saveBarShown(page).waitFor({ state: 'detached' });
    expect((await toasts(page)).at(-1)).toEqual({ message: 'Settings saved', isError: false });
    const vitals = await readVitals(page);
    expectVitals('settings (after typing and Save)', vitals, (ok, why) => expect(ok, why).toBe(true));
    expect(vitals.interactions).toBeGreaterThan(0);
    const row = await suite.app.database.prisma.shop.findUniqueOrThrow({ where: { domain } });
    expect(row).toMatchObject({ orderIdSource: 'name', pushSafetyPollHours: 9 });
    const calls = (await appBridgeCalls(page)).map((c) => `${c.api}:${String(c.args[0] ?? '')}`);
    expect(calls).toEqual(
      expect.arrayContaining(['saveBar.show:settings-save-bar', 'saveBar.hide:settings-save-bar']),
    );

    // A refused value is said on its field and nothing is saved.
    await hours.fill('0');
    await saveBarShown(page).getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.locator('#behaviour s-number-field').getAttribute('error'))
      .toMatch(/1 to 168/);

    // Leaving with unsaved changes asks; declining keeps the page.
    const dialogs: string[] = [];
    page.once('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.locator('s-app-nav').getByRole('link', { name: 'Shipments' }).click();
    expect(dialogs).toEqual(['Leave this page? Your unsaved changes will be lost.']);
    expect(new URL(page.url()).pathname).toBe('/settings');

    await page.reload();
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await page.getByLabel('The order name without # (for example 1001)').isChecked()).toBe(true);
    expect(await hours.inputValue()).toBe('9');
  });

  it('sending customers to the store’s tracking page: saved, and the Overview says how far the links are', async () => {
    const domain = `links-${randomBytes(3).toString('hex')}.myshopify.com`;
    const fake = await startFakeAdminGraphql();
    onTestFinished(() => fake.close());
    const { page } = await settingsFor(domain, '?section=behaviour');
    const { id: shopId } = await suite.app.database.prisma.shop.findUniqueOrThrow({ where: { domain } });
    await suite.app.database.prisma.trackingLine.create({
      data: {
        shopId,
        fulfillmentId: '77001',
        orderId: '1',
        trackingNumber: '1ZLINKS0001',
        carrierName: 'UPS',
      },
    });
    const links = page.getByLabel("Send customers to the store's tracking page");
    expect(await links.isChecked()).toBe(false);
    await links.check();
    await saveBarShown(page).getByRole('button', { name: 'Save' }).click();
    await saveBarShown(page).waitFor({ state: 'detached' });
    expect((await toasts(page)).at(-1)).toEqual({ message: 'Settings saved', isError: false });
    expect(await suite.app.database.prisma.shop.findUniqueOrThrow({ where: { domain } })).toMatchObject({
      linkToTrackingPage: true,
    });
    expect(await suite.app.database.prisma.storeTrackingLink.count({ where: { shopId } })).toBe(1);

    // The app's worker sets the fulfilment's links in the (fake) store.
    await waitFor('the link set in the store', async () => fake.trackingInfo(domain, '77001') !== undefined);
    expect(fake.trackingInfo(domain, '77001')?.urls).toEqual([
      `https://${domain}/apps/track?tracking=1ZLINKS0001`,
    ]);

    await page.locator('s-app-nav').getByRole('link', { name: 'Overview' }).click();
    const status = page.getByTestId('tracking-links');
    await status.waitFor();
    expect(await status.innerText()).toBe('Shipping emails link to this page: 1 fulfilment updated.');
    await screenshotBothWidths(page, 'overview-tracking-links');
  });

  it('status pushes: the URL to register, whether pushes arrive, and replacing the URL', async () => {
    const domain = `push-${randomBytes(3).toString('hex')}.myshopify.com`;
    const { page } = await settingsFor(domain, '?section=status-push');
    const field = page.getByLabel('Status push URL');
    await field.waitFor();
    const first = await field.inputValue();
    const { statusPushToken } = await suite.app.database.prisma.shop.findUniqueOrThrow({ where: { domain } });
    expect(first).toBe(`http://127.0.0.1:3000/status-webhooks/${statusPushToken}`);
    expect(await page.getByTestId('push-state').innerText()).toContain('Not receiving');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Replace the URL' }).click();
    await expect.poll(() => field.inputValue()).not.toBe(first);
    expect((await toasts(page)).at(-1)?.message).toBe(
      'New status push URL: register it at your tracking service',
    );
    const rotated = await suite.app.database.prisma.shop.findUniqueOrThrow({ where: { domain } });
    expect(await field.inputValue()).toBe(`http://127.0.0.1:3000/status-webhooks/${rotated.statusPushToken}`);

    // A push arrives (recorded at the shop): the section says so after a reload.
    await suite.app.database.prisma.shop.update({
      where: { domain },
      data: { lastStatusPushAt: new Date() },
    });
    await page.reload();
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await page.getByTestId('push-state').innerText()).toMatch(/^Receiving\s+Last push /);
    await screenshotBothWidths(page, 'settings-status-push');
  });

  it('while the session is expired the forms are disabled, with one banner; Try again enables them', async () => {
    const domain = `expired-${randomBytes(3).toString('hex')}.myshopify.com`;
    const { page } = await settingsFor(domain);
    await setSessionToken(page, 'expired-token');
    await page.getByLabel('Mark an order delivered when all its parcels are').click();
    await saveBarShown(page).getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('session-expired').waitFor();
    expect(await page.locator('s-banner[tone="critical"]').count()).toBe(1);
    expect(await page.getByLabel('App name').isDisabled()).toBe(true);
    expect(await page.getByLabel('Create a tracker when an order is fulfilled').isDisabled()).toBe(true);
    expect((await toasts(page)).filter((t) => t.isError)).toEqual([]);

    await setSessionToken(page, null);
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByTestId('session-expired').waitFor({ state: 'detached' });
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await page.getByLabel('App name').isDisabled()).toBe(false);
  });
});

describe('one save bar for the page', () => {
  it('changes in two cards show one bar; Save saves both, a refused card keeps the bar; Discard puts all back', async () => {
    const domain = `one-bar-${randomBytes(3).toString('hex')}.myshopify.com`;
    const { page } = await settingsFor(domain);
    expect(await page.locator('ui-save-bar').count()).toBe(1);
    const delivered = page.getByLabel('Mark an order delivered when all its parcels are');
    const onHold = page.getByLabel('On hold', { exact: true });
    await delivered.uncheck();
    await onHold.uncheck();
    await saveBarShown(page).waitFor();
    expect(await saveBarShown(page).count()).toBe(1);
    // From the top: the stand-in's save bar sticks where the page is scrolled to.
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshotBothWidths(page, 'settings-one-save-bar');
    await saveBarShown(page).getByRole('button', { name: 'Save' }).click();
    await saveBarShown(page).waitFor({ state: 'detached' });
    expect((await toasts(page)).map((t) => t.message)).toEqual(
      expect.arrayContaining(['Settings saved', 'Problem rules saved']),
    );
    const row = await suite.app.database.prisma.shop.findUniqueOrThrow({ where: { domain } });
    expect(row.showOrderDelivered).toBe(false);
    expect(JSON.parse(row.problemRules ?? '{}')).toMatchObject({ on_hold: { on: false } });

    // A refused card keeps its values and the bar; the other changed card is saved.
    const hours = page.getByLabel('While status pushes arrive, still read each shipment every (hours)');
    await hours.fill('0');
    await onHold.check();
    await saveBarShown(page).getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.locator('#behaviour s-number-field').getAttribute('error'))
      .toBe('Enter a whole number of hours from 1 to 168.');
    await expect
      .poll(async () => {
        const shop = await suite.app.database.prisma.shop.findUniqueOrThrow({ where: { domain } });
        return JSON.parse(shop.problemRules ?? '{}').on_hold?.on;
      })
      .toBe(true);
    expect(await saveBarShown(page).count()).toBe(1);
    expect(
      (await suite.app.database.prisma.shop.findUniqueOrThrow({ where: { domain } })).pushSafetyPollHours,
    ).toBe(24);

    // Discard puts every card back to what was saved.
    await delivered.check();
    await saveBarShown(page).getByRole('button', { name: 'Discard' }).click();
    expect(await saveBarShown(page).count()).toBe(0);
    expect(await hours.inputValue()).toBe('24');
    expect(await delivered.isChecked()).toBe(false);
    expect(await onHold.isChecked()).toBe(true);
    expect(await page.locator('#behaviour s-number-field').getAttribute('error')).toBeNull();
  });
});

describe('carrier mapping', () => {
  it('an unmatched carrier comes first with its waiting shipments; choosing one releases them', async () => {
    const shop = await addShop(suite.app, 'speedy-ui');
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
    const { page } = await settingsFor(shop.domain, '?section=carriers');
    const rows = page.locator('#carriers s-table-body s-table-row');
    expect(await rows.count()).toBe(2);
    expect(await rows.first().getAttribute('data-carrier')).toBe('Speedy Parcels Ltd');
    expect(await rows.first().innerText()).toMatch(
      /Not matched[\s\S]*1 shipment waiting until you choose a carrier/,
    );
    expect(await rows.nth(1).innerText()).toMatch(/Matched automatically: UPS/);

    const choose = page.getByRole('button', { name: 'Choose the carrier for Speedy Parcels Ltd' });
    await choose.click();
    // The picker takes the button's place while it is open.
    expect(await choose.isHidden()).toBe(true);
    const search = page.getByLabel("Search the tracking service's carriers for Speedy Parcels Ltd");
    await search.fill('UPS');
    const select = page.getByLabel('Carrier for Speedy Parcels Ltd', { exact: true });
    await expect.poll(() => select.locator('option[value="ups"]').count()).toBe(1);
    await select.selectOption('ups');
    await screenshotBothWidths(page, 'settings-carrier-mapping');
    await page.getByRole('button', { name: 'Save carrier' }).click();
    await expect
      .poll(async () => (await toasts(page)).at(-1)?.message)
      .toBe('UPS chosen for “Speedy Parcels Ltd”: 1 waiting shipment will be tracked');
    await expect.poll(() => rows.first().innerText()).toMatch(/Chosen by you: UPS/);
    await waitFor('the released tracker at the emulator', async () =>
      (await suite.app.emulator.control.trackers(shop.appName)).some(
        (t) => t.tracking_number === 'SPEEDY-UI-0001',
      ),
    );
  });

  it('a matched carrier whose parcels the service cannot follow says so in the parcel model’s words', async () => {
    const shop = await addShop(suite.app, 'wrong-carrier-ui');
    await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));
    await shop.settled();
    const prisma = suite.app.database.prisma;
    const { id: shopId } = await prisma.shop.findUniqueOrThrow({ where: { domain: shop.domain } });
    // The service answered that it cannot follow this carrier's number (as for PostNL in the samples).
    expect(
      (await prisma.tracker.updateMany({ where: { shopId }, data: { status: 'invalid_carrier' } })).count,
    ).toBe(1);
    const { page } = await settingsFor(shop.domain, '?section=carriers');
    const row = page.locator('#carriers s-table-row[data-carrier="UPS"]');
    const text = await row.innerText();
    // The same label and advice as the Shipments page and Needs attention (src/shipments/parcel-model.ts).
    expect(text).toMatch(/Matched automatically: UPS/);
    expect(text).toMatch(/Not followed: wrong carrier: 1 shipment/);
    expect(text).toContain('Map this carrier to the right one in Settings → Carrier mapping');
    // Changing the mapping is what to do, so its button is the row's primary one.
    const change = row.locator('s-button', { hasText: 'Change' });
    expect(await change.getAttribute('variant')).toBe('primary');
    expect(text).not.toContain('invalid_carrier');
    await screenshotBothWidths(page, 'settings-carrier-not-followed');
  });

  it("a carrier far down the service's list (past the first 200) is named, and offered when changing", async () => {
    const prisma = suite.app.database.prisma;
    // The service's list grows past 200 carriers; the shop chose one that sorts last.
    await prisma.carrier.createMany({
      data: Array.from({ length: 250 }, (_, i) => ({
        slug: `zz-local-${String(i).padStart(3, '0')}`,
        label: `Zz Local Post ${String(i).padStart(3, '0')}`,
      })),
    });
    const shop = await addShop(suite.app, 'far-carrier');
    await shop.send(
      'fulfillments/create',
      variant('fulfillments-create.ups', {
        id: 9_300_000_000_002,
        tracking_company: 'Village Courier',
        tracking_number: 'VILLAGE-0001',
        tracking_numbers: ['VILLAGE-0001'],
      }),
    );
    await shop.settled();
    await prisma.carrierMapping.create({
      data: {
        shopId: shop.id,
        nameKey: 'villagecourier',
        carrierName: 'Village Courier',
        slug: 'zz-local-249',
      },
    });
    const { page } = await settingsFor(shop.domain, '?section=carriers');
    const row = page.locator('#carriers s-table-row[data-carrier="Village Courier"]');
    expect(await row.innerText()).toMatch(/Chosen by you: Zz Local Post 249/);
    await page.getByRole('button', { name: 'Choose the carrier for Village Courier' }).click();
    const select = page.getByLabel('Carrier for Village Courier', { exact: true });
    await expect.poll(() => select.locator('option[value="zz-local-249"]').count()).toBe(1);
    expect(await select.inputValue()).toBe('zz-local-249');
    // The search reaches the whole list.
    await page.getByLabel("Search the tracking service's carriers for Village Courier").fill('Local Post 2');
    await expect.poll(() => select.locator('option[value="zz-local-248"]').count()).toBe(1);
  });
});
