import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { NotificationSettingsView } from '../../../src/ui/api/notifications.js';
import type { ProblemRulesView } from '../../../src/ui/api/problems.js';
import { problemKinds } from '../../../src/shipments/problem-words.js';
import { browserSuite } from '../../helpers/browser-suite.js';
import {
  appBridgeCalls,
  openPage,
  screenshotBothWidths,
  sessionTokenFor,
  setSessionToken,
  type TestPage,
  toasts,
  waitForPageReady,
} from '../../helpers/browser.js';
import { installStore } from '../../helpers/install.js';

/**
 * Settings → Shipment problems and Notifications in Debian's Chromium against the real app: each kind of
 * problem on or off and the waiting kinds' business days in the store's time zone, the daily digest (its
 * hour, further recipients beside the store's contact e-mail) and Slack (a webhook URL that is never shown
 * back, instant posts), each saved through the admin's save bar and read back from the API; refused values
 * said on their field; both sections at 390 px and 1000 px.
 */

const suite = browserSuite();

const saveBar = (page: TestPage['page']) => page.locator('.stand-in-save-bar');

/** An installed store with its profile read (time zone, contact e-mail), as the platform gives it. */
async function storeWith(
  name: string,
  profile: { timezone: string; contactEmail: string | null },
): Promise<{ domain: string; shopId: string }> {
  const domain = `${name}-${randomBytes(3).toString('hex')}.myshopify.com`;
  await installStore(suite.app, domain);
  // Read now, so the worker's weekly profile read leaves it as set here.
  const shop = await suite.app.database.prisma.shop.update({
    where: { domain },
    data: { ...profile, profileCheckedAt: new Date() },
  });
  return { domain, shopId: shop.id };
}

async function openSettings(domain: string, section: string): Promise<TestPage> {
  const current = await suite.page();
  await openPage(current.page, suite.app.url, domain, `/settings?section=${section}`);
  return current;
}

/** What the page's API answers the shop (as the page would read it). */
async function apiGet<T>(domain: string, path: string): Promise<T> {
  const response = await fetch(`${suite.app.url}/api${path}`, {
    headers: { authorization: `Bearer ${sessionTokenFor(domain)}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

describe('shipment problems', () => {
  it('the rules in the store’s time zone; a switch and a day count saved through the save bar; a switched-off kind’s open problems close; a bad day count is refused on its field', async () => {
    const { domain, shopId } = await storeWith('rules', { timezone: 'Europe/Paris', contactEmail: null });
    const prisma = suite.app.database.prisma;
    const tracker = await prisma.tracker.create({
      data: {
        shopId,
        trackingNumber: '1ZRULES0001',
        provider: 'ups',
        orderKey: '7001',
        desired: 'active',
        remote: 'present',
        syncState: 'synced',
        status: 'on_hold',
      },
    });
    const held = await prisma.shipmentProblem.create({
      data: { shopId, trackerId: tracker.id, kind: 'on_hold', since: new Date(Date.now() - 86_400_000) },
    });

    const { page } = await openSettings(domain, 'problems');
    const section = page.locator('#problems');
    expect(await section.getByTestId('store-time-zone').innerText()).toBe('Europe/Paris');
    const words = await section.innerText();
    expect(words).toMatch(/business days \(Monday to Friday\) in the store’s time zone: Europe\/Paris/);
    expect(words).toMatch(/Switching a kind off closes its open problems/);
    // Every kind is listed, on by default, and the waiting kinds show their days.
    expect(await section.locator('.problem-rule').count()).toBe(problemKinds.length);
    for (const label of ['Not picked up', 'Stalled', 'On hold', 'Tracking problem'])
      expect(await page.getByLabel(label, { exact: true }).isChecked()).toBe(true);
    const stalledDays = page.getByLabel('Business days without a new event');
    expect(await page.getByLabel('Business days without a carrier scan').inputValue()).toBe('3');
    expect(await stalledDays.inputValue()).toBe('4');
    expect(await page.getByLabel('Business days at the pickup point').inputValue()).toBe('3');

    await page.getByLabel('On hold', { exact: true }).uncheck();
    await saveBar(page).waitFor();
    await stalledDays.selectText();
    await stalledDays.pressSequentially('6');
    await saveBar(page).getByRole('button', { name: 'Save' }).click();
    await saveBar(page).waitFor({ state: 'detached' });
    expect((await toasts(page)).at(-1)).toEqual({ message: 'Problem rules saved', isError: false });
    const calls = (await appBridgeCalls(page)).map((c) => `${c.api}:${String(c.args[0] ?? '')}`);
    expect(calls).toEqual(
      expect.arrayContaining(['saveBar.show:settings-save-bar', 'saveBar.hide:settings-save-bar']),
    );

    // The API holds it; the other kinds kept theirs.
    const saved = await apiGet<ProblemRulesView>(domain, '/problems/rules');
    expect(saved.timezone).toBe('Europe/Paris');
    expect(saved.rules.on_hold).toEqual({ on: false, days: 0 });
    expect(saved.rules.stalled).toEqual({ on: true, days: 6 });
    expect(saved.rules.not_picked_up).toEqual({ on: true, days: 3 });
    expect(saved.rules.returning.on).toBe(true);
    // Switching "On hold" off closed its open problem.
    expect(await prisma.shipmentProblem.findUniqueOrThrow({ where: { id: held.id } })).toMatchObject({
      closedReason: 'rule_off',
    });

    // A day count out of range is said on its field, and nothing is saved.
    await stalledDays.fill('31');
    await saveBar(page).getByRole('button', { name: 'Save' }).click();
    const stalledField = page.locator('s-number-field[label="Business days without a new event"]');
    await expect
      .poll(() => stalledField.getAttribute('error'))
      .toBe('Enter a whole number of business days from 1 to 30.');
    expect(await stalledDays.getAttribute('aria-invalid')).toBe('true');
    expect(await saveBar(page).count()).toBe(1);
    expect((await apiGet<ProblemRulesView>(domain, '/problems/rules')).rules.stalled.days).toBe(6);
    // From the top: the stand-in's save bar sticks where the page is scrolled to.
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshotBothWidths(page, 'settings-problems-refused');
    // Discard puts back what was saved.
    await saveBar(page).getByRole('button', { name: 'Discard' }).click();
    expect(await stalledDays.inputValue()).toBe('6');
    expect(await stalledField.getAttribute('error')).toBeNull();
    expect(await saveBar(page).count()).toBe(0);

    await page.reload();
    await waitForPageReady(page);
    expect(await page.getByLabel('On hold', { exact: true }).isChecked()).toBe(false);
    expect(await page.getByLabel('Business days without a new event').inputValue()).toBe('6');
    expect(await saveBar(page).count()).toBe(0);
    await screenshotBothWidths(page, 'settings-problems');
  });
});

describe('notifications', () => {
  it('the digest’s hour and recipients and a Slack webhook saved and read back; the URL is never shown; refused values on their fields; Remove clears it', async () => {
    const { domain } = await storeWith('notify', {
      timezone: 'America/New_York',
      contactEmail: 'owner@notify.example',
    });
    const { page } = await openSettings(domain, 'notifications');
    const section = page.locator('#notifications');
    // The app has no SMTP server in the tests: the page says e-mail digests wait for it, Slack does not.
    const notice = section.locator('s-banner[tone="warning"]');
    expect(await notice.getAttribute('heading')).toBe('E-mail digests are not sent yet');
    expect(await notice.innerText()).toMatch(/SMTP[\s\S]*Slack works meanwhile/);

    const digest = page.getByLabel('Send a daily digest of new shipment problems');
    const hour = page.getByLabel('Send it at (store time, America/New_York)');
    expect(await digest.isChecked()).toBe(true);
    expect(await hour.inputValue()).toBe('8');
    const contact = page.getByLabel('Store contact e-mail');
    expect(await contact.inputValue()).toBe('owner@notify.example');
    expect(await contact.getAttribute('readonly')).not.toBeNull();
    const slack = page.getByLabel('Slack webhook URL', { exact: true });
    expect(await slack.inputValue()).toBe('');
    expect(await slack.getAttribute('placeholder')).toMatch(/^Not set/);
    expect(await page.getByRole('button', { name: 'Remove the Slack webhook URL' }).isVisible()).toBe(false);

    // An address the API refuses is said on its own field; nothing is saved.
    await hour.selectOption('17');
    await saveBar(page).waitFor();
    const add = page.getByRole('button', { name: 'Add a recipient' });
    await add.click();
    await page.getByLabel('Further recipient 1', { exact: true }).fill('ops@notify.example');
    await add.click();
    await page.getByLabel('Further recipient 2', { exact: true }).fill('not-an-address');
    await saveBar(page).getByRole('button', { name: 'Save' }).click();
    const second = page.locator('s-text-field[label="Further recipient 2"]');
    await expect.poll(() => second.getAttribute('error')).toMatch(/^Enter an e-mail address/);
    expect(await page.locator('s-text-field[label="Further recipient 1"]').getAttribute('error')).toBeNull();
    expect((await apiGet<NotificationSettingsView>(domain, '/notifications')).recipients).toEqual([]);

    // A URL that is not Slack's is refused on the field.
    await page.getByLabel('Further recipient 2', { exact: true }).fill('billing@notify.example');
    await slack.fill('https://example.com/hooks/abc');
    await saveBar(page).getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.locator('s-text-field[label="Slack webhook URL"]').getAttribute('error'))
      .toMatch(/^Enter a Slack incoming-webhook URL/);

    const secret = `https://hooks.slack.com/services/T0TEST/B0TEST/${randomBytes(12).toString('hex')}`;
    await slack.fill(secret);
    await page.getByLabel('Post each new problem to Slack at once').check();
    await saveBar(page).getByRole('button', { name: 'Save' }).click();
    await saveBar(page).waitFor({ state: 'detached' });
    expect((await toasts(page)).at(-1)).toEqual({ message: 'Notification settings saved', isError: false });
    // Saved, and never shown back: the field is empty and says one is set.
    expect(await slack.inputValue()).toBe('');
    expect(await slack.getAttribute('placeholder')).toMatch(/^A webhook is set/);
    expect(await page.getByRole('button', { name: 'Remove the Slack webhook URL' }).isVisible()).toBe(true);
    expect(await page.content()).not.toContain(secret);

    const response = await fetch(`${suite.app.url}/api/notifications`, {
      headers: { authorization: `Bearer ${sessionTokenFor(domain)}` },
    });
    const text = await response.text();
    expect(text).not.toContain('hooks.slack.com');
    expect(JSON.parse(text)).toEqual({
      digestEnabled: true,
      digestHour: 17,
      recipients: ['ops@notify.example', 'billing@notify.example'],
      contactEmail: 'owner@notify.example',
      slackConfigured: true,
      slackInstantProblems: true,
      smtpConfigured: false,
    });

    await page.reload();
    await waitForPageReady(page);
    expect(await hour.inputValue()).toBe('17');
    expect(await page.getByLabel('Further recipient 2', { exact: true }).inputValue()).toBe(
      'billing@notify.example',
    );
    expect(await page.getByLabel('Post each new problem to Slack at once').isChecked()).toBe(true);
    expect(await slack.inputValue()).toBe('');
    expect(await page.content()).not.toContain(secret);
    // The form shows what is saved: no save bar.
    expect(await saveBar(page).count()).toBe(0);
    expect(await appBridgeCalls(page)).toEqual([]);
    await screenshotBothWidths(page, 'settings-notifications');

    // Remove (the webhook, a recipient) is saved through the bar too; Discard would keep them.
    await page.getByRole('button', { name: 'Remove the Slack webhook URL' }).click();
    await saveBar(page).waitFor();
    expect(await slack.getAttribute('placeholder')).toBe('Removed when you save');
    await page.getByRole('button', { name: 'Remove further recipient 1' }).click();
    expect(await page.getByLabel('Further recipient 1', { exact: true }).inputValue()).toBe(
      'billing@notify.example',
    );
    await page.getByLabel('Send a daily digest of new shipment problems').uncheck();
    await saveBar(page).getByRole('button', { name: 'Save' }).click();
    await saveBar(page).waitFor({ state: 'detached' });
    expect(await slack.getAttribute('placeholder')).toMatch(/^Not set/);
    expect(await apiGet<NotificationSettingsView>(domain, '/notifications')).toMatchObject({
      digestEnabled: false,
      recipients: ['billing@notify.example'],
      slackConfigured: false,
      slackInstantProblems: true,
    });
  });

  it('a store without a contact e-mail says so; ten further recipients are the most', async () => {
    const { domain } = await storeWith('no-contact', { timezone: 'UTC', contactEmail: null });
    const { page } = await openSettings(domain, 'notifications');
    expect(await page.locator('#notifications').innerText()).toMatch(
      /Your store has no contact e-mail: only the addresses below receive it/,
    );
    expect(await page.getByLabel('Store contact e-mail').count()).toBe(0);
    const add = page.getByRole('button', { name: 'Add a recipient' });
    for (let i = 1; i <= 10; i++) {
      await add.click();
      await page.getByLabel(`Further recipient ${i}`, { exact: true }).fill(`team${i}@example.com`);
    }
    expect(await add.isVisible()).toBe(false);
    await saveBar(page).getByRole('button', { name: 'Save' }).click();
    await saveBar(page).waitFor({ state: 'detached' });
    expect((await apiGet<NotificationSettingsView>(domain, '/notifications')).recipients).toHaveLength(10);
  });
});

describe('the session', () => {
  it('while it is expired both new forms are disabled and a save says nothing but the banner', async () => {
    const { domain } = await storeWith('rules-expired', { timezone: 'UTC', contactEmail: null });
    const { page } = await openSettings(domain, 'problems');
    await setSessionToken(page, 'expired-token');
    await page.getByLabel('Stalled', { exact: true }).uncheck();
    await saveBar(page).getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('session-expired').waitFor();
    expect(await page.getByLabel('Stalled', { exact: true }).isDisabled()).toBe(true);
    expect(await page.getByLabel('Business days without a new event').isDisabled()).toBe(true);
    expect(await page.getByLabel('Slack webhook URL', { exact: true }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Add a recipient' }).isDisabled()).toBe(true);
    expect((await toasts(page)).filter((t) => t.isError)).toEqual([]);
    expect((await apiGet<ProblemRulesView>(domain, '/problems/rules')).rules.stalled.on).toBe(true);
  });
});
