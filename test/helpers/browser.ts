import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { Session } from '@shopify/shopify-api';
import { PROJECT_ROOT } from '../../src/db/paths.js';
import { appScopes } from '../../src/shopify/api.js';
import { PrismaSessionStorage } from '../../src/shops/session-storage.js';
import { parseKeyring } from '../../src/shops/crypto.js';
import { TEST_SECRET, type TestApp } from './app.js';
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

/** A page in a fresh context that may only talk to 127.0.0.1. */
export async function newTestPage(browser: Browser): Promise<TestPage> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, locale: 'en-GB' });
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

/**
 * Records the store's install as the OAuth / token exchange would: an offline session in the app's session
 * storage, so loading the page never calls the platform's token endpoint.
 */
export async function installShop(app: Pick<TestApp, 'database' | 'config'>, shop: string): Promise<void> {
  const storage = new PrismaSessionStorage(app.database.prisma, {
    keyring: parseKeyring(app.config.encryptionKey),
    connectionRetries: 0,
  });
  await storage.storeSession(
    new Session({
      id: `offline_${shop}`,
      shop,
      state: 'installed',
      isOnline: false,
      scope: appScopes.join(','),
      accessToken: `shpat_test_${randomUUID().slice(0, 8)}`,
    }),
  );
}

/** The URL the admin opens the embedded app at. */
export function settingsUrl(appUrl: string, shop: string, token = sessionTokenFor(shop)): string {
  const host = Buffer.from(`admin.shopify.com/store/${shop.replace(/\.myshopify\.com$/, '')}`).toString(
    'base64url',
  );
  const query = new URLSearchParams({ shop, host, embedded: '1', id_token: token });
  return `${appUrl}/?${query}`;
}

/** Opens the settings page for `shop` and waits until every section has loaded. */
export async function openSettings(page: Page, appUrl: string, shop: string): Promise<void> {
  await page.goto(settingsUrl(appUrl, shop));
  await page.locator('body[data-ready="true"]').waitFor();
}
