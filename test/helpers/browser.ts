import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../src/db/paths.js';
import { TEST_SECRET } from './app.js';
import { mintSessionToken } from './session-token.js';

/**
 * Browser tests drive Debian's Chromium (`apt-get install chromium`) through playwright-core: no
 * downloaded browser, no network beyond loopback. Every request to anything but 127.0.0.1 is aborted and
 * recorded, so a page that needed a CDN would visibly break.
 */

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.join(PROJECT_ROOT, 'test-results', 'screenshots');
export const TEST_API_KEY = 'test-api-key';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    timeout: 15_000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface TestPage {
  page: Page;
  context: BrowserContext;
  /** URLs the page tried to reach outside loopback (all aborted). */
  blocked: string[];
  /** Uncaught page errors and console errors. */
  errors: string[];
  close(): Promise<void>;
}

const sandboxRefusedHarnessScript =
  "Blocked script execution in 'about:srcdoc' because the document's frame is sandboxed and the 'allow-scripts' permission is not set.";

/** A page in a fresh context that may only talk to 127.0.0.1. */
export async function newTestPage(browser: Browser): Promise<TestPage> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, locale: 'en-GB' });
  await recordVitals(context);
  context.setDefaultTimeout(8_000);
  const blocked: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1') return route.continue();
    blocked.push(url.href);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    // An aborted request (the blocked CDN, an expected 4xx from the API) logs a resource error; not a bug.
    if (/Failed to load resource/.test(text)) return;
    // The harness's own init script (recordVitals, added to every frame) refused in a frame sandboxed
    // without scripts (the admin's previews of the shoppers' page): the sandbox working, not the page's error.
    if (text === sandboxRefusedHarnessScript) return;
    errors.push(`console: ${text}`);
  });
  return { page, context, blocked, errors, close: () => context.close() };
}

/** Saves a full-page screenshot as test-results/screenshots/<name>.png; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * A session token for `shop` as App Bridge hands it to the page (signed with the test app's secret,
 * valid for five minutes).
 */
export function sessionTokenFor(shop: string): string {
  return mintSessionToken({ shop, apiKey: TEST_API_KEY, secret: TEST_SECRET, expiresInSeconds: 300 });
}

export { installShop } from './install.js';

/** The URL the admin opens the embedded app at: `path` is one of the app's pages (/, /shipments…). */
export function pageUrl(appUrl: string, shop: string, path = '/', token = sessionTokenFor(shop)): string {
  const host = Buffer.from(`admin.shopify.com/store/${shop.replace(/\.myshopify\.com$/, '')}`).toString(
    'base64url',
  );
  const url = new URL(path, appUrl);
  for (const [name, value] of Object.entries({ shop, host, embedded: '1', id_token: token }))
    url.searchParams.set(name, value);
  return url.href;
}

/** Opens one of the app's pages for `shop` and waits until its first data is drawn. */
export async function openPage(page: Page, appUrl: string, shop: string, path = '/'): Promise<void> {
  await page.goto(pageUrl(appUrl, shop, path));
  await waitForPageReady(page);
}

/** The page marks <body data-ready="true"> once the current page's first data is drawn. */
export async function waitForPageReady(page: Page): Promise<void> {
  await page.locator('body[data-ready="true"]').waitFor();
}

/** The width of the admin's app frame on a desktop, and of a phone. */
export const viewports = { desktop: { width: 1000, height: 900 }, phone: { width: 390, height: 844 } };

/**
 * The few browser globals the functions below run against inside the page (the test program is
 * type-checked without the DOM library).
 */
interface InPage {
  document: { documentElement: { scrollWidth: number } };
  innerWidth: number;
  requestAnimationFrame(callback: () => void): void;
  setTimeout(callback: () => void, ms: number): void;
  PerformanceObserver: new (callback: (list: { getEntries(): unknown[] }) => void) => {
    observe(options: Record<string, unknown>): void;
  };
  __vitals: Vitals;
  __appBridgeStandIn: { calls: Array<{ api: string; args: unknown[] }>; setToken(t: string | null): void };
}

/** Whether the page scrolls sideways (it must not, at any width it supports). */
export async function horizontalOverflow(page: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  return page.evaluate(() => {
    const w = globalThis as unknown as InPage;
    return { scrollWidth: w.document.documentElement.scrollWidth, innerWidth: w.innerWidth };
  });
}

/**
 * Core Web Vitals as the platform measures them, from the Performance API: Largest Contentful Paint,
 * Cumulative Layout Shift (summed over the whole load: an upper bound of the session-window value), and
 * Interaction to Next Paint (the longest interaction's event duration; events under 16 ms are not reported,
 * the first input always is, so `interactions` counts at least that one). Installed before the page's
 * scripts by `recordVitals`; read by `readVitals`.
 */
export interface Vitals {
  lcpMs: number;
  cls: number;
  inpMs: number;
  interactions: number;
}

export async function recordVitals(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const w = globalThis as unknown as InPage;
    const vitals: Vitals = { lcpMs: 0, cls: 0, inpMs: 0, interactions: 0 };
    w.__vitals = vitals;
    new w.PerformanceObserver((list) => {
      for (const entry of list.getEntries() as Array<{ startTime: number }>) vitals.lcpMs = entry.startTime;
    }).observe({ type: 'largest-contentful-paint', buffered: true });
    new w.PerformanceObserver((list) => {
      for (const entry of list.getEntries() as Array<{ value: number; hadRecentInput: boolean }>)
        if (!entry.hadRecentInput) vitals.cls += entry.value;
    }).observe({ type: 'layout-shift', buffered: true });
    new w.PerformanceObserver((list) => {
      for (const entry of list.getEntries() as Array<{ interactionId?: number; duration: number }>) {
        if (!entry.interactionId) continue;
        vitals.interactions += 1;
        vitals.inpMs = Math.max(vitals.inpMs, entry.duration);
      }
    }).observe({ type: 'event', buffered: true, durationThreshold: 16 });
    // Interactions under 16 ms are not reported as events; the first one always is, as first-input.
    new w.PerformanceObserver((list) => {
      for (const entry of list.getEntries() as Array<{ duration: number }>) {
        vitals.interactions += 1;
        vitals.inpMs = Math.max(vitals.inpMs, entry.duration);
      }
    }).observe({ type: 'first-input', buffered: true });
  });
}

export async function readVitals(page: Page): Promise<Vitals> {
  // One frame for the observers to deliver what was painted last.
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const w = globalThis as unknown as InPage;
        w.requestAnimationFrame(() => w.setTimeout(resolve, 50));
      }),
  );
  return page.evaluate(() => ({ ...(globalThis as unknown as InPage).__vitals }));
}

/**
 * What the suite holds of a page's vitals: the page painted its largest content (an LCP was recorded) and
 * nothing shifted (CLS 0.05, not a timing). LCP and INP are timings on a machine the suite shares with other
 * test files (LCPs of 3.6 s and INPs of 256 ms were seen under the full suite's load, under 1 s and 32 ms idle
 * for the same pages), so they are printed here, never asserted: their targets (LCP 1 s on loopback, INP
 * 100 ms) are held by `npm run bench:page` on a quiet machine.
 */
export const vitalsTargets = { cls: 0.05 };

/** Prints a page's vitals and holds what is not a timing (see vitalsTargets). */
export function expectVitals(
  label: string,
  vitals: Vitals,
  expectTo: (ok: boolean, why: string) => void,
): void {
  process.stdout.write(
    `vitals ${label}: LCP ${vitals.lcpMs.toFixed(0)} ms, CLS ${vitals.cls.toFixed(3)}, INP ${vitals.inpMs.toFixed(0)} ms over ${vitals.interactions} interaction(s)\n`,
  );
  expectTo(vitals.lcpMs > 0, `${label}: no largest contentful paint recorded`);
  expectTo(vitals.cls <= vitalsTargets.cls, `${label}: CLS ${vitals.cls}`);
}

/** What App Bridge's stand-in recorded (toasts, save bar, navigation, idToken…). */
export async function appBridgeCalls(page: Page): Promise<Array<{ api: string; args: unknown[] }>> {
  return page.evaluate(() => (globalThis as unknown as InPage).__appBridgeStandIn.calls);
}

/** The toasts shown so far, in order. */
export async function toasts(page: Page): Promise<Array<{ message: string; isError: boolean }>> {
  const calls = await appBridgeCalls(page);
  return calls
    .filter((c) => c.api === 'toast.show')
    .map((c) => ({
      message: String(c.args[0]),
      isError: Boolean((c.args[1] as { isError?: boolean } | undefined)?.isError),
    }));
}

/** From now on App Bridge's stand-in hands the page this session token (an expired one, say). */
export async function setSessionToken(page: Page, token: string | null): Promise<void> {
  await page.evaluate((t) => (globalThis as unknown as InPage).__appBridgeStandIn.setToken(t), token);
}

/**
 * Screenshots of the page as it is at both widths (test-results/screenshots/<name>-390.png and
 * -1000.png), checking at each that nothing scrolls sideways; the viewport is left at the desktop width.
 */
export async function screenshotBothWidths(page: Page, name: string): Promise<void> {
  for (const [label, size] of [
    ['390', viewports.phone],
    ['1000', viewports.desktop],
  ] as const) {
    await page.setViewportSize(size);
    await page.evaluate(
      () => new Promise<void>((resolve) => (globalThis as unknown as InPage).requestAnimationFrame(resolve)),
    );
    const { scrollWidth, innerWidth } = await horizontalOverflow(page);
    if (scrollWidth > innerWidth)
      throw new Error(`${name} at ${label} px scrolls sideways: ${scrollWidth} px wide in ${innerWidth} px`);
    await screenshot(page, `${name}-${label}`);
  }
}

/** The vertical space between the bottom of the first element and the top of the second, in px. */
export async function gapBetween(page: Page, upper: string, lower: string): Promise<number> {
  const [a, b] = await Promise.all([
    page.locator(upper).first().boundingBox(),
    page.locator(lower).first().boundingBox(),
  ]);
  if (!a || !b) throw new Error(`not on screen: ${!a ? upper : lower}`);
  return b.y - (a.y + a.height);
}

/** The words inside elements matching `selector` that the layout broke across two lines (mid-word). */
export async function wordsBrokenMidWord(page: Page, selector: string): Promise<string[]> {
  // Run as text in the page (the tests are type-checked without the DOM's types).
  return page.evaluate<string[]>(`(() => {
    const found = [];
    for (const element of document.querySelectorAll(${JSON.stringify(selector)})) {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const match of (node.textContent || '').matchAll(/\\S+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const tops = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
          if (tops.size > 1) found.push(match[0]);
        }
      }
    }
    return found;
  })()`);
}
