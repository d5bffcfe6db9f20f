import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Captured, captureLogger } from '../helpers/capture-logger.js';
import { useTestDatabase } from '../helpers/database.js';
import { createTestWebApp, type TestWebApp } from '../helpers/web-app.js';

/**
 * GET /api/auth (the OAuth begin) checks `host` before @shopify/shopify-api runs: the library answers an
 * embedded start without a usable host with a bare 500, and throws "Invalid URL" on a host that decodes
 * to no URL. The platform sends `host` as base64 of the store's admin host.
 */

const SHOP = 'auth-host.myshopify.com';
const b64 = (text: string) => Buffer.from(text).toString('base64');
const ADMIN_HOST = b64('admin.shopify.com/store/auth-host');
const LEGACY_HOST = b64('auth-host.myshopify.com/admin');

const db = useTestDatabase();
let web: TestWebApp;
let logs: Captured;

beforeAll(async () => {
  logs = captureLogger('debug');
  web = createTestWebApp({ prisma: db.prisma, logger: logs.logger });
});

const begin = (query: string) => request(web.app).get(`/api/auth?shop=${SHOP}${query}`);

describe('/api/auth host', () => {
  it('refuses an embedded start with no or an empty host: 400 with the reason', async () => {
    for (const query of ['&embedded=1', '&embedded=1&host=', '&host=&embedded=1', '&host=']) {
      const res = await begin(query);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toEqual({ error: 'bad_request', reason: expect.stringMatching(/^host /) });
      expect(res.headers.location).toBeUndefined();
    }
  });

  it('refuses a host that is not base64 of a store admin host, embedded or not', async () => {
    for (const host of [
      'not base64!',
      '%00',
      'A', // not decodable: the library's atob throws
      b64('a b'), // decodes to no URL: the library's "Invalid URL"
      b64('evil.example.com'),
      b64('admin.shopify.com.evil.example.com/store/x'),
      b64('\u0000'),
      Buffer.from('admin.shopify.com/store/auth-host').toString('base64url') + '_-',
    ]) {
      for (const embedded of ['&embedded=1', '']) {
        const res = await begin(`&host=${encodeURIComponent(host)}${embedded}`);
        expect(res.status, `${host}${embedded}`).toBe(400);
        expect(res.body.reason).toMatch(/^host /);
      }
    }
    const twice = await begin(`&host=${ADMIN_HOST}&host=${ADMIN_HOST}&embedded=1`);
    expect(twice.status).toBe(400);
  });

  it('lets a valid host through, embedded (out of the iframe) or at the top; no host at the top is fine', async () => {
    for (const host of [ADMIN_HOST, LEGACY_HOST, ADMIN_HOST.replace(/=+$/, '')]) {
      const embedded = await begin(`&host=${host}&embedded=1`);
      expect(embedded.status, host).toBe(302);
      expect(embedded.headers.location).toMatch(/^\/exitiframe\?/);
      const top = await begin(`&host=${host}`);
      expect(top.status).toBe(302);
      expect(top.headers.location).toMatch(new RegExp(`^https://${SHOP}/admin/oauth/authorize`));
    }
    const bare = await begin('');
    expect(bare.status).toBe(302);
  });

  it('logs none of it as an error', () => {
    expect(logs.records.filter((r) => r.level >= 50)).toEqual([]);
  });
});
