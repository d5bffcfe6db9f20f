import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newTestPage, type TestPage } from '../../helpers/browser.js';
import { useTestDatabase } from '../../helpers/database.js';
import { createTestWebApp } from '../../helpers/web-app.js';

/**
 * GET /exitiframe in Debian's Chromium: an embedded OAuth start (/api/auth?…&embedded=1) lands on it, and
 * it must leave for the app's own /api/auth URL at the top, under its own CSP (no inline script), on to
 * the store's consent screen (which the test browser cannot reach: its request is seen, and fails).
 */

const SHOP = 'exit-frame.myshopify.com';
const HOST = Buffer.from('admin.shopify.com/store/exit-frame').toString('base64url');

const db = useTestDatabase();
let server: Server;
let url: string;
let browser: Browser;
let current: TestPage | null = null;

beforeAll(async () => {
  let handler: RequestListener = (_req, res) => res.end();
  server = createServer((req, res) => handler(req, res));
  [browser] = await Promise.all([
    launchBrowser(),
    new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)),
  ]);
  // The app's URL (SHOPIFY_APP_URL) is where it listens, so the auth URL it validates is this server's.
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  handler = createTestWebApp({ prisma: db.prisma, appUrl: url, adminUiScripts: 'stand-in' }).app;
});
afterEach(async () => {
  await current?.close();
  current = null;
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** A checked page that also records every CSP violation, on every document it loads. */
async function openPage(): Promise<TestPage & { violations: string[] }> {
  const page = await newTestPage(browser);
  current = page;
  const violations: string[] = [];
  // A merchant's browser: the OAuth start answers headless Chromium's user agent (a bot to it) with 410.
  await page.context.setExtraHTTPHeaders({
    'user-agent': `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${browser.version()} Safari/537.36`,
  });
  await page.context.exposeBinding('__cspViolation', (_source, text: string) => violations.push(text));
  await page.context.addInitScript(() => {
    const w = globalThis as unknown as {
      document: { addEventListener(type: string, listener: (e: Record<string, string>) => void): void };
      __cspViolation(text: string): void;
    };
    w.document.addEventListener('securitypolicyviolation', (e) =>
      w.__cspViolation(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  page.page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return Object.assign(page, { violations });
}

describe('GET /exitiframe in a browser', () => {
  it('an embedded OAuth start leaves for /api/auth at the top, with no CSP violation, on to consent', async () => {
    const { page, errors, violations } = await openPage();
    // Each wait is also settled quietly: a test that fails on one leaves no other rejection behind.
    const quietly = <T>(promise: Promise<T>) => (promise.catch(() => {}), promise);
    const exitPage = quietly(page.waitForResponse((r) => new URL(r.url()).pathname === '/exitiframe'));
    const auth = quietly(
      page.waitForRequest(
        (r) => r.url() === `${url}/api/auth?shop=${SHOP}&host=${HOST}` && r.isNavigationRequest(),
      ),
    );
    const consent = quietly(
      page.waitForEvent('requestfailed', (r) => r.url().startsWith(`https://${SHOP}/admin/oauth/authorize?`)),
    );
    await page.goto(`${url}/api/auth?shop=${SHOP}&host=${HOST}&embedded=1`, { waitUntil: 'commit' });

    const exit = await exitPage;
    expect(exit.status()).toBe(200);
    expect(exit.headers()['content-security-policy']).toContain("script-src 'self' https://cdn.shopify.com");
    // The top-level document itself goes to the app's own auth URL…
    const leaving = await auth.catch((error: unknown) => {
      throw new Error(`/exitiframe did not navigate (CSP violations: ${violations.join(' | ') || 'none'})`, {
        cause: error,
      });
    });
    expect(leaving.frame()).toBe(page.mainFrame());
    // …which starts OAuth: the store's consent screen (a redirect, which no route sees; it fails here,
    // with no network beyond loopback).
    const consentUrl = new URL((await consent).url());
    expect(consentUrl.searchParams.get('redirect_uri')).toBe(`${url}/api/auth/callback`);
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('another target than the app’s own /api/auth is refused (400): no page, no script, no navigation', async () => {
    const { page, violations } = await openPage();
    const response = await page.goto(
      `${url}/exitiframe?shop=${SHOP}&redirectUri=${encodeURIComponent('https://evil.example.com/api/auth?shop=x')}`,
    );
    expect(response!.status()).toBe(400);
    expect(await page.locator('body').textContent()).toBe('Invalid redirect.');
    expect(page.url()).toContain('/exitiframe');
    expect(violations).toEqual([]);
  });
});
