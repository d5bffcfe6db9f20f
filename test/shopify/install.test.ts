import { createHmac } from 'node:crypto';
import { AuthScopes } from '@shopify/shopify-api';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appScopes } from '../../src/shopify/api.js';
import { recordInstall } from '../../src/shopify/install.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { useTestDatabase } from '../helpers/database.js';
import { mintSessionToken } from '../helpers/session-token.js';
import { createTestWebApp, type TestWebApp } from '../helpers/web-app.js';
import { type FakeShopify, OFFLINE_TOKEN_ANSWER, startFakeShopify } from './fake-shopify.js';

const API_KEY = 'install-api-key';
const SECRET = 'install-app-secret';
const APP_URL = 'https://tracksync.example.com';
const SHOP = 'test-shop.myshopify.com';
const OTHER_SHOP = 'other-shop.myshopify.com';
/** base64 of admin.shopify.com/store/test-shop, as the admin passes it. */
const HOST = Buffer.from('admin.shopify.com/store/test-shop').toString('base64url');

const db = useTestDatabase({ reset: true });
let web: TestWebApp;
let fake: FakeShopify;

beforeAll(async () => {
  web = createTestWebApp({ prisma: db.prisma, apiKey: API_KEY, secret: SECRET, appUrl: APP_URL });
  fake = await startFakeShopify();
});
afterAll(async () => {
  await fake?.close();
});
beforeEach(async () => {
  await db.prisma.session.deleteMany({});
  fake.calls.length = 0;
  fake.tokenAnswers.length = 0;
});

function idToken(shop = SHOP, overrides: Partial<Parameters<typeof mintSessionToken>[0]> = {}): string {
  return mintSessionToken({ shop, apiKey: API_KEY, secret: SECRET, ...overrides });
}

function pageUrl(params: Record<string, string>): string {
  return `/?${new URLSearchParams(params).toString()}`;
}

describe('OAuth install (/api/auth)', () => {
  it('begin redirects to the store’s consent screen with the app’s scopes and our callback', async () => {
    const res = await request(web.app).get(`/api/auth?shop=${SHOP}`);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(`https://${SHOP}/admin/oauth/authorize`);
    expect(location.searchParams.get('client_id')).toBe(API_KEY);
    // The library writes the scopes compressed (write_fulfillments implies read_fulfillments): all
    // are asked for, as the store's consent screen lists them.
    const asked = new AuthScopes(location.searchParams.get('scope') ?? '');
    expect(appScopes).toEqual([
      'read_orders',
      'read_fulfillments',
      'write_fulfillments',
      'write_merchant_managed_fulfillment_orders',
    ]);
    for (const scope of appScopes) expect(asked.has(scope)).toBe(true);
    expect(asked.equals(appScopes)).toBe(true);
    expect(location.searchParams.get('redirect_uri')).toBe(`${APP_URL}/api/auth/callback`);
    expect(location.searchParams.get('state')).toMatch(/^[0-9a-f]{10,}$/);
    // An offline token: no per-user grant.
    expect(location.searchParams.get('grant_options[]')).toBe('');
    const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    expect(cookies.some((c) => c.startsWith('shopify_app_state='))).toBe(true);
  });

  it('every /api answer, refusals included, is marked no-store', async () => {
    for (const url of ['/api/shop', '/api/shipments', '/api/auth?shop=x']) {
      const res = await request(web.app).get(url);
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
    const ok = await request(web.app).get('/api/shop').set('Authorization', `Bearer ${idToken()}`);
    expect(ok.headers['cache-control']).toBe('no-store');
  });

  it('begin and callback refuse a shop that is not a *.myshopify.com domain: 400 with the reason, no error log', async () => {
    const captured = captureLogger('debug');
    const logged = createTestWebApp({ prisma: db.prisma, logger: captured.logger });
    for (const url of [
      '/api/auth?shop=evil.com',
      '/api/auth?shop=evil.example.com',
      '/api/auth',
      '/api/auth?shop=a.myshopify.com&shop=b.myshopify.com',
      '/api/auth/callback?shop=evil.com&code=x',
    ]) {
      const res = await request(logged.app).get(url);
      expect(res.status, url).toBe(400);
      expect(res.body).toEqual({ error: 'bad_request', reason: expect.stringMatching(/myshopify\.com/) });
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['cache-control']).toBe('no-store');
    }
    expect(captured.records.filter((r) => r.level >= 50)).toEqual([]);
  });

  it('callback stores the offline session, makes the shop row and redirects into the admin', async () => {
    const begin = await request(web.app).get(`/api/auth?shop=${SHOP}`);
    const state = new URL(begin.headers.location as string).searchParams.get('state')!;
    const cookie = ([] as string[])
      .concat(begin.headers['set-cookie'] ?? [])
      .map((c) => c.split(';')[0])
      .join('; ');
    const query: Record<string, string> = {
      code: 'authorization-code',
      host: HOST,
      shop: SHOP,
      state,
      timestamp: String(Math.floor(Date.now() / 1000)),
    };
    const signed = new URLSearchParams(
      Object.keys(query)
        .sort()
        .map((k): [string, string] => [k, query[k]!]),
    ).toString();
    const hmac = createHmac('sha256', SECRET).update(signed).digest('hex');

    const res = await request(web.app).get(`/api/auth/callback?${signed}&hmac=${hmac}`).set('Cookie', cookie);

    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`https://admin.shopify.com/store/test-shop/apps/${API_KEY}`);
    const tokenCall = fake.calls.find((c) => c.url.endsWith('/admin/oauth/access_token'));
    expect(tokenCall).toMatchObject({
      url: `https://${SHOP}/admin/oauth/access_token`,
      method: 'POST',
      body: { client_id: API_KEY, code: 'authorization-code', expiring: '1' },
    });
    const session = await web.sessions.loadSession(`offline_${SHOP}`);
    expect(session).toMatchObject({
      shop: SHOP,
      isOnline: false,
      accessToken: OFFLINE_TOKEN_ANSWER.access_token,
      refreshToken: OFFLINE_TOKEN_ANSWER.refresh_token,
    });
    expect(await db.prisma.shop.findUnique({ where: { domain: SHOP } })).toMatchObject({
      pausedReason: 'not_connected',
    });
  });

  it('callback refuses a forged query (bad HMAC) and stores nothing', async () => {
    const begin = await request(web.app).get(`/api/auth?shop=${SHOP}`);
    const state = new URL(begin.headers.location as string).searchParams.get('state')!;
    const cookie = ([] as string[])
      .concat(begin.headers['set-cookie'] ?? [])
      .map((c) => c.split(';')[0])
      .join('; ');
    const res = await request(web.app)
      .get(
        `/api/auth/callback?code=x&shop=${SHOP}&state=${state}&timestamp=${Math.floor(Date.now() / 1000)}&hmac=00`,
      )
      .set('Cookie', cookie);
    expect(res.status).toBe(400);
    expect(await db.prisma.session.count()).toBe(0);
    expect(await db.prisma.shop.count()).toBe(0);
  });
});

describe('the page (GET /): token exchange or OAuth', () => {
  it('exchanges the id_token for an offline token when the shop has no session, then serves the page', async () => {
    const token = idToken();
    const res = await request(web.app).get(
      pageUrl({ shop: SHOP, host: HOST, embedded: '1', id_token: token }),
    );

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toMatch(/<html/i);
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toMatch(/^default-src 'self'; script-src 'self' https:\/\/cdn\.shopify\.com; /);
    expect(csp).toContain("object-src 'none'");
    expect(csp.endsWith(`frame-ancestors https://${SHOP} https://admin.shopify.com;`)).toBe(true);
    expect(res.headers['x-frame-options']).toBeUndefined();
    expect(res.headers['cache-control']).toBe('no-store');

    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]).toEqual({
      url: `https://${SHOP}/admin/oauth/access_token`,
      method: 'POST',
      body: {
        client_id: API_KEY,
        client_secret: SECRET,
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: token,
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        requested_token_type: 'urn:shopify:params:oauth:token-type:offline-access-token',
        expiring: '1',
      },
    });
    const session = await web.sessions.loadSession(`offline_${SHOP}`);
    expect(session).toMatchObject({
      shop: SHOP,
      isOnline: false,
      accessToken: OFFLINE_TOKEN_ANSWER.access_token,
      refreshToken: OFFLINE_TOKEN_ANSWER.refresh_token,
      scope: OFFLINE_TOKEN_ANSWER.scope,
    });
    expect(session!.expires!.getTime()).toBeGreaterThan(Date.now() + 3_500_000);
    expect(await db.prisma.shop.findUnique({ where: { domain: SHOP } })).toMatchObject({
      pausedReason: 'not_connected',
    });
  });

  it('does not exchange again once the shop has a usable session', async () => {
    await request(web.app)
      .get(pageUrl({ shop: SHOP, id_token: idToken() }))
      .expect(200);
    const again = await request(web.app).get(pageUrl({ shop: SHOP, id_token: idToken() }));
    expect(again.status).toBe(200);
    expect(fake.calls).toHaveLength(1);
  });

  it('exchanges again when the stored token is about to expire', async () => {
    fake.tokenAnswers.push({ status: 200, body: { ...OFFLINE_TOKEN_ANSWER, expires_in: 60 } });
    await request(web.app)
      .get(pageUrl({ shop: SHOP, id_token: idToken() }))
      .expect(200);
    await request(web.app)
      .get(pageUrl({ shop: SHOP, id_token: idToken() }))
      .expect(200);
    expect(fake.calls).toHaveLength(2);
  });

  it('sends a shop with no session and no id_token to OAuth', async () => {
    const res = await request(web.app).get(pageUrl({ shop: SHOP }));
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`/api/auth?shop=${SHOP}`);
    const embedded = await request(web.app).get(pageUrl({ shop: SHOP, host: HOST, embedded: '1' }));
    expect(embedded.headers.location).toBe(`/api/auth?shop=${SHOP}&host=${HOST}&embedded=1`);
    expect(fake.calls).toHaveLength(0);
  });

  it('an embedded OAuth start leaves the iframe through /exitiframe with App Bridge', async () => {
    const auth = await request(web.app).get(`/api/auth?shop=${SHOP}&host=${HOST}&embedded=1`);
    expect(auth.status).toBe(302);
    const exit = await request(web.app).get(auth.headers.location as string);
    expect(exit.status).toBe(200);
    expect(exit.text).toContain('app-bridge.js');
    expect(exit.text).toContain(`${APP_URL}/api/auth?shop=${SHOP}`);
    expect(exit.headers['content-security-policy']).toContain(`https://${SHOP}`);
    // No inline script (the CSP would block it): the app's own script opens the validated URL at the top.
    expect(exit.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(exit.text).toContain(
      `<script src="/assets/exit-iframe.js" data-target="${APP_URL}/api/auth?shop=${SHOP}&amp;host=${HOST}"></script>`,
    );
    const elsewhere = await request(web.app).get(
      `/exitiframe?shop=${SHOP}&redirectUri=${encodeURIComponent('https://evil.example.com/')}`,
    );
    expect(elsewhere.status).toBe(400);
  });

  it('serves the page without an id_token once the shop is installed', async () => {
    await request(web.app)
      .get(pageUrl({ shop: SHOP, id_token: idToken() }))
      .expect(200);
    const res = await request(web.app).get(pageUrl({ shop: SHOP }));
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/<html/i);
  });

  it('answers an invalid or stale id_token with App Bridge’s bounce page and exchanges nothing', async () => {
    for (const token of [idToken(SHOP, { secret: 'wrong' }), idToken(SHOP, { expiresInSeconds: -120 })]) {
      const res = await request(web.app).get(pageUrl({ shop: SHOP, id_token: token }));
      expect(res.status).toBe(200);
      expect(res.text).toContain('https://cdn.shopify.com/shopifycloud/app-bridge.js');
      expect(res.text).toContain(`data-api-key="${API_KEY}"`);
    }
    expect(fake.calls).toHaveLength(0);
    expect(await db.prisma.session.count()).toBe(0);
  });

  it('refuses an id_token for another shop than the one asked for', async () => {
    const res = await request(web.app).get(pageUrl({ shop: SHOP, id_token: idToken(OTHER_SHOP) }));
    expect(res.status).toBe(400);
    expect(fake.calls).toHaveLength(0);
    expect(await db.prisma.session.count()).toBe(0);
  });

  it('refuses a missing or foreign shop, and lets no one frame that answer', async () => {
    for (const url of ['/', pageUrl({ shop: 'evil.example.com', id_token: idToken() })]) {
      const res = await request(web.app).get(url);
      expect(res.status).toBe(400);
      expect(res.headers['content-security-policy']).toMatch(
        /^default-src 'self';.* frame-ancestors 'none';$/,
      );
    }
  });

  it('answers a refused exchange (invalid subject token) with the bounce page, other failures with 502', async () => {
    fake.tokenAnswers.push({ status: 400, body: { error: 'invalid_subject_token' } });
    const refused = await request(web.app).get(pageUrl({ shop: SHOP, id_token: idToken() }));
    expect(refused.status).toBe(200);
    expect(refused.text).toContain('app-bridge.js');

    fake.tokenAnswers.push({ status: 500, body: { error: 'boom' } });
    const failed = await request(web.app).get(pageUrl({ shop: SHOP, id_token: idToken() }));
    expect(failed.status).toBe(502);
    expect(await db.prisma.session.count()).toBe(0);
    expect(await db.prisma.shop.count()).toBe(0);
  });

  it('serves assets revalidated on each load, and index.html (also by name) through the install check', async () => {
    const asset = await request(web.app).get('/styles.css');
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toBe('no-cache');
    const byName = await request(web.app).get(`/index.html?shop=${SHOP}`);
    expect(byName.status).toBe(302); // not installed: the install check runs for it too
  });
});

describe('recordInstall', () => {
  it('lifts the uninstalled pause of a reinstalled shop: not connected without a key, running with one', async () => {
    const paused = { pausedReason: 'uninstalled', pausedAt: new Date(), uninstalledAt: new Date() };
    await db.prisma.shop.create({ data: { domain: SHOP, ...paused } });
    expect(await recordInstall(db.prisma, SHOP)).toMatchObject({
      pausedReason: 'not_connected',
      uninstalledAt: null,
    });

    await web.shops.saveCredentials(OTHER_SHOP, { apiKey: 'key', appName: 'store' });
    await db.prisma.shop.update({ where: { domain: OTHER_SHOP }, data: paused });
    expect(await recordInstall(db.prisma, OTHER_SHOP)).toMatchObject({
      pausedReason: null,
      uninstalledAt: null,
    });
  });

  it('leaves any other pause as it is', async () => {
    await db.prisma.shop.create({
      data: { domain: SHOP, pausedReason: 'balance_exhausted', pausedAt: new Date() },
    });
    expect(await recordInstall(db.prisma, SHOP)).toMatchObject({ pausedReason: 'balance_exhausted' });
  });
});
