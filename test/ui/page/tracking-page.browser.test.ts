import { randomBytes } from 'node:crypto';
import type { Frame, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../../helpers/app.js';
import { browserSuite } from '../../helpers/browser-suite.js';
import {
  appBridgeCalls,
  horizontalOverflow,
  installShop,
  openPage,
  pageUrl,
  readVitals,
  screenshot,
  sessionTokenFor,
  setSessionToken,
  type TestPage,
  toasts,
} from '../../helpers/browser.js';
import { createTracker } from '../../helpers/factories.js';
import { clientAddress, signedProxyQuery } from '../../helpers/proxy.js';

/**
 * The admin's Tracking page in Debian's Chromium against the real app: the live preview (the real
 * shoppers' page with a sample order, in a phone's and a computer's frame) follows what the merchant
 * types, a late answer never overwrites a newer one, the save bar saves (and the live page, signed as
 * the platform's app proxy signs it, then shows the message) and Discard puts the saved values back.
 * The preview frames are sandboxed srcdoc documents under the admin page's CSP: their own styles apply
 * (the page's style nonce) and nothing is refused on the console.
 */

const suite = browserSuite();

async function trackingPageFor(domain: string): Promise<TestPage> {
  const current = await suite.page();
  await openPage(current.page, suite.app.url, domain, '/tracking-page');
  return current;
}

const saveBar = (page: Page) => page.locator('.stand-in-save-bar');
const previewRequests = '**/api/tracking-page/preview';

/** A shop installed with a contact e-mail and one parcel the live page can find by its number. */
async function shopWithParcel(): Promise<{ domain: string; trackingNumber: string }> {
  const domain = `tracking-page-${randomBytes(3).toString('hex')}.myshopify.com`;
  const trackingNumber = `1ZTP${randomBytes(6).toString('hex').toUpperCase()}`;
  const prisma = suite.app.database.prisma;
  const contactEmail = 'help@hill-pottery.example';
  // The store's own answer too: the app reads the contact e-mail from the store after the install.
  suite.app.store.setShopProfile(domain, { timezone: 'Europe/London', contactEmail });
  const shop = await prisma.shop.create({ data: { domain, contactEmail } });
  await installShop(suite.app, domain);
  const tracker = await createTracker(prisma, shop.id, {
    trackingNumber,
    desired: 'active',
    remote: 'present',
    syncState: 'synced',
    status: 'in_transit',
    statusCheckedAt: new Date(),
    events: JSON.stringify([
      {
        at: new Date(Date.now() - 3_600_000).toISOString(),
        status: 'in_transit',
        message: 'Departed',
        location: 'Leeds, GB',
      },
    ]),
  });
  await prisma.trackingLine.create({
    data: {
      shopId: shop.id,
      fulfillmentId: `f-${trackingNumber}`,
      orderId: '1',
      orderName: '#1001',
      trackingNumber,
      carrierName: 'UPS',
      trackerId: tracker.id,
    },
  });
  return { domain, trackingNumber };
}

/** The preview frame's srcdoc (what the page last drew in it). */
const srcdocOf = (page: Page, frame: 'phone' | 'desktop') =>
  page.locator(`iframe[data-preview="${frame}"]`).getAttribute('srcdoc');

async function frameOf(page: Page, frame: 'phone' | 'desktop'): Promise<Frame> {
  const handle = await page.locator(`iframe[data-preview="${frame}"]`).elementHandle();
  const content = await handle!.contentFrame();
  if (!content) throw new Error(`no document in the ${frame} preview`);
  return content;
}

/**
 * What the preview document shows and how its own styles apply: its text, whether every <style> made a
 * style sheet (the CSP refuses one without the page's nonce), and every colour any element (or its
 * ::before / ::after) is drawn with.
 */
async function frameLook(page: Page, frame: 'phone' | 'desktop') {
  const content = await frameOf(page, frame);
  return content.evaluate<{
    text: string;
    styles: number;
    stylesApplied: boolean;
    colours: string[];
    scripts: number;
  }>(`(() => {
    const styles = Array.from(document.querySelectorAll('style'));
    const props = ['color', 'background-color', 'border-top-color', 'border-left-color', 'border-right-color', 'border-bottom-color', 'outline-color', 'accent-color'];
    const colours = new Set();
    for (const el of document.querySelectorAll('*')) {
      for (const pseudo of [null, '::before', '::after']) {
        const style = getComputedStyle(el, pseudo);
        for (const prop of props) colours.add(style.getPropertyValue(prop));
      }
    }
    return {
      text: document.body ? document.body.innerText : '',
      styles: styles.length,
      stylesApplied: styles.every((s) => s.sheet !== null && s.sheet.cssRules.length > 0),
      colours: Array.from(colours),
      scripts: document.querySelectorAll('script').length,
    };
  })()`);
}

/** Waits until both previews hold `text` (the page redraws them once typing pauses). */
async function bothPreviewsShow(page: Page, text: string): Promise<void> {
  await expect.poll(async () => (await srcdocOf(page, 'phone')) ?? '', { timeout: 5_000 }).toContain(text);
  await expect.poll(async () => (await srcdocOf(page, 'desktop')) ?? '', { timeout: 5_000 }).toContain(text);
}

async function livePage(domain: string, trackingNumber: string): Promise<string> {
  const query = signedProxyQuery(
    { shop: domain, path_prefix: '/apps/track', format: 'html', tracking: trackingNumber },
    TEST_SECRET,
  );
  const res = await fetch(`${suite.app.url}/proxy?${query}`, {
    headers: { 'x-forwarded-for': clientAddress() },
  });
  expect(res.status).toBe(200);
  return res.text();
}

describe('Tracking page', () => {
  it('the preview follows typing (both frames), keeps its styles under the CSP; Save changes the live page; Discard restores', async () => {
    const { domain, trackingNumber } = await shopWithParcel();
    const { page } = await trackingPageFor(domain);
    let previews = 0;
    page.on('request', (request) => {
      if (request.url().endsWith('/api/tracking-page/preview')) previews += 1;
    });
    expect(await page.locator('s-page').getAttribute('heading')).toBe('Tracking page');

    // The defaults: the default text shown in the message field, the sample order in both frames.
    const message = page.getByLabel('Message above the results');
    expect(await page.locator('s-text-area').getAttribute('placeholder')).toBe(
      'Enter your order number and the email you ordered with.',
    );
    expect(await message.inputValue()).toBe('');
    await bothPreviewsShow(page, '1Z999AA10123456784');
    for (const frame of ['phone', 'desktop'] as const) {
      const look = await frameLook(page, frame);
      expect(look.styles, frame).toBeGreaterThan(0);
      expect(look.stylesApplied, `${frame}: the preview's <style> applies under the page's CSP`).toBe(true);
      expect(look.scripts, frame).toBe(0);
      expect(look.text).toContain('1Z999AA10123456784');
    }
    const frameAttributes = await page.evaluate(`Array.from(document.querySelectorAll('iframe[data-preview]'),
      (f) => ({ sandbox: f.getAttribute('sandbox'), width: f.getAttribute('width') }))`);
    expect(frameAttributes).toEqual([
      { sandbox: '', width: '390' },
      { sandbox: '', width: '1280' },
    ]);

    // Typing a message: both previews show it, asked for a few times, not once per key.
    const text = 'Every order is packed by hand in our Leeds workshop.';
    const before = previews;
    await message.pressSequentially(text);
    await bothPreviewsShow(page, text);
    expect(previews - before).toBeGreaterThan(0);
    expect(previews - before).toBeLessThan(text.length / 4);
    expect((await frameLook(page, 'phone')).text).toContain(text);
    await saveBar(page).waitFor();

    // The accent colour: the preview is drawn with it.
    await page.getByLabel('Accent colour').fill('#C0392B');
    await bothPreviewsShow(page, '#c0392b');
    await expect
      .poll(async () => (await frameLook(page, 'desktop')).colours, { timeout: 5_000 })
      .toContain('rgb(192, 57, 43)');

    // Another language: its default text in the field, the preview in that language without the
    // English message; back to English, the message is still there.
    await page.getByLabel('Language').selectOption('de');
    await expect
      .poll(() => page.locator('s-text-area').getAttribute('placeholder'))
      .toBe('Geben Sie Ihre Bestellnummer und die E-Mail-Adresse Ihrer Bestellung ein.');
    await bothPreviewsShow(page, 'lang="de"');
    expect(await srcdocOf(page, 'phone')).not.toContain(text);
    await page.getByLabel('Language').selectOption('en');
    expect(await message.inputValue()).toBe(text);
    await bothPreviewsShow(page, text);

    // A part switched off is part of what is saved.
    await page.getByLabel('The shipment history').uncheck();

    // Save: stored, toast, the bar goes; the live shoppers' page (signed as the platform signs it) shows
    // the message and the colour.
    await saveBar(page).getByRole('button', { name: 'Save' }).click();
    await saveBar(page).waitFor({ state: 'detached' });
    expect((await toasts(page)).at(-1)).toEqual({ message: 'Tracking page saved', isError: false });
    const { id: shopId } = await suite.app.database.prisma.shop.findUniqueOrThrow({ where: { domain } });
    const row = await suite.app.database.prisma.trackingPageSettings.findUniqueOrThrow({ where: { shopId } });
    expect(JSON.parse(row.settings)).toMatchObject({
      accentColor: '#c0392b',
      show: { items: true, history: false, estimate: true, location: true },
      messages: { en: text },
      contact: { kind: 'store_email' },
    });
    const live = await livePage(domain, trackingNumber);
    expect(live).toContain(trackingNumber);
    expect(live).toContain(text);
    expect(live).toContain('#c0392b');

    // Discard puts the saved values back, and the preview with them.
    await message.fill('A message never saved');
    await page.getByLabel('Accent colour').fill('#00ff00');
    await bothPreviewsShow(page, 'A message never saved');
    await saveBar(page).getByRole('button', { name: 'Discard' }).click();
    await saveBar(page).waitFor({ state: 'detached' });
    expect(await message.inputValue()).toBe(text);
    expect(await page.getByLabel('Accent colour').inputValue()).toBe('#c0392b');
    await bothPreviewsShow(page, text);
    expect(await srcdocOf(page, 'phone')).not.toContain('A message never saved');
    expect(await srcdocOf(page, 'desktop')).not.toContain('#00ff00');

    const calls = (await appBridgeCalls(page)).map((c) => `${c.api}:${String(c.args[0] ?? '')}`);
    expect(calls).toEqual(
      expect.arrayContaining(['saveBar.show:tracking-page-save-bar', 'saveBar.hide:tracking-page-save-bar']),
    );
    const vitals = await readVitals(page);
    expect(vitals.cls).toBeLessThanOrEqual(0.05);

    // Screenshots at a computer's and a phone's width, nothing scrolling sideways.
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.evaluate(
        'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))',
      );
      const { scrollWidth, innerWidth } = await horizontalOverflow(page);
      expect(scrollWidth, `at ${width}`).toBeLessThanOrEqual(innerWidth);
      // Each preview fits its place: scaled down, never wider than its section.
      const boxes = await page.evaluate<Array<{ right: number; parentRight: number }>>(`Array.from(
        document.querySelectorAll('.tracking-preview'),
        (el) => ({ right: el.getBoundingClientRect().right, parentRight: el.parentElement.getBoundingClientRect().right }))`);
      for (const box of boxes) expect(box.right).toBeLessThanOrEqual(box.parentRight + 1);
      // A sandboxed frame is its own process in Chromium, painted only while in the viewport: the window
      // is made as tall as the page for the whole-page capture.
      // The admin's toast (App Bridge's stand-in) is not the page's: left out of the pictures.
      await page.evaluate("document.querySelector('.stand-in-toasts')?.remove()");
      const height = await page.evaluate<number>('document.documentElement.scrollHeight');
      await page.setViewportSize({ width, height });
      await page.waitForTimeout(300);
      await screenshot(page, `admin-tracking-page-${width}`);
    }
  });

  it('a late answer never overwrites a newer preview', async () => {
    const { domain } = await shopWithParcel();
    const { page } = await trackingPageFor(domain);
    let slowAnswered = false;
    // The preview asked for a message ending in "slow" is answered late (after the newer one).
    await page.route(previewRequests, async (route) => {
      const body = route.request().postDataJSON() as { settings: { messages: Record<string, string> } };
      if (body.settings.messages.en?.endsWith('slow')) {
        const response = await route.fetch();
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        await route.fulfill({ response });
        slowAnswered = true;
        return;
      }
      await route.fallback();
    });
    const message = page.getByLabel('Message above the results');
    const asked = page.waitForRequest(
      (r) => r.url().endsWith('/api/tracking-page/preview') && /slow"/.test(r.postData() ?? ''),
    );
    await message.fill('first slow');
    await asked;
    await message.fill('then fast');
    await bothPreviewsShow(page, 'then fast');
    await expect.poll(() => slowAnswered, { timeout: 5_000 }).toBe(true);
    await page.waitForTimeout(100);
    expect(await srcdocOf(page, 'phone')).toContain('then fast');
    expect(await srcdocOf(page, 'phone')).not.toContain('first slow');
  });

  it('refuses a colour or a contact page that is none, on its field; nothing is saved', async () => {
    const { domain } = await shopWithParcel();
    const { page } = await trackingPageFor(domain);
    const url = page.getByLabel('Contact page address');
    expect(await url.isVisible()).toBe(false);
    await page.getByLabel('A page of your store').check();
    await url.waitFor();
    await url.fill('not an address');
    await page.getByLabel('Accent colour').fill('reddish');
    await saveBar(page).getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('s-color-field').getAttribute('error')).toMatch(/#rrggbb/);
    await expect.poll(() => page.locator('s-text-field').getAttribute('error')).toMatch(/https:\/\//);
    expect(await saveBar(page).count()).toBe(1);
    const { id: shopId } = await suite.app.database.prisma.shop.findUniqueOrThrow({ where: { domain } });
    expect(await suite.app.database.prisma.trackingPageSettings.count({ where: { shopId } })).toBe(0);

    // Put right, it saves.
    await url.fill('https://hill-pottery.example/pages/contact');
    await page.getByLabel('Accent colour').fill('#336699');
    await saveBar(page).getByRole('button', { name: 'Save' }).click();
    await saveBar(page).waitFor({ state: 'detached' });
    const row = await suite.app.database.prisma.trackingPageSettings.findUniqueOrThrow({ where: { shopId } });
    expect(JSON.parse(row.settings)).toMatchObject({
      accentColor: '#336699',
      contact: { kind: 'url', url: 'https://hill-pottery.example/pages/contact' },
    });
  });

  it('while the session is expired the form is disabled with the page’s one banner, and back after Try again', async () => {
    const { domain } = await shopWithParcel();
    const { page } = await trackingPageFor(domain);
    await setSessionToken(page, 'expired-token');
    // Typing asks for a preview: refused (401), the page's banner says why and every field is disabled.
    await page.getByLabel('Message above the results').fill('Typed while away');
    await page.getByTestId('session-expired').waitFor();
    for (const field of ['s-color-field', 's-text-area', 's-select', 's-checkbox', 's-choice-list'])
      await expect
        .poll(() => page.locator(field).first().getAttribute('disabled'), { timeout: 5_000 })
        .toBe('');
    expect(await page.locator('.tracking-preview-state').innerText()).toBe(
      'Shown again once the session is back.',
    );
    expect((await toasts(page)).filter((t) => t.isError)).toEqual([]);

    await setSessionToken(page, sessionTokenFor(domain));
    await page.getByTestId('session-expired').getByRole('button', { name: 'Try again' }).click();
    await page.getByTestId('session-expired').waitFor({ state: 'detached' });
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await page.locator('s-text-area').getAttribute('disabled')).toBeNull();
    await bothPreviewsShow(page, '1Z999AA10123456784');
  });

  it('each load of the page has its own style nonce, in its CSP and its document, and nothing else inline', async () => {
    const { domain } = await shopWithParcel();
    const nonces: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await fetch(pageUrl(suite.app.url, domain, '/tracking-page'));
      expect(res.status).toBe(200);
      const csp = res.headers.get('content-security-policy') ?? '';
      const nonce = /style-src 'self' https:\/\/cdn\.shopify\.com 'nonce-([A-Za-z0-9+/=]{20,})';/.exec(
        csp,
      )?.[1];
      expect(nonce, csp).toBeDefined();
      expect(csp).toContain("script-src 'self' https://cdn.shopify.com;");
      expect(csp).not.toContain('unsafe-inline');
      expect(await res.text()).toContain(`<meta name="style-nonce" content="${nonce}" />`);
      nonces.push(nonce!);
    }
    expect(nonces[0]).not.toBe(nonces[1]);
  });
});
