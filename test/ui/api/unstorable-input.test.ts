import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../../src/db/keyset-cursor.js';
import { type Captured, captureLogger } from '../../helpers/capture-logger.js';
import { useTestDatabase } from '../../helpers/database.js';
import { bearer, mintSessionToken } from '../../helpers/session-token.js';
import { createTestWebApp, type TestWebApp } from '../../helpers/web-app.js';

/**
 * The page API, as the app mounts it (session tokens), given text the database cannot store: a NUL
 * (PostgreSQL refuses it in text) or a lone UTF-16 surrogate, in a query, a path or a JSON body. Every
 * one is a 400 that names the field, before any query runs; never a 500. On both databases.
 */

const API_KEY = 'unstorable-api-key';
const SECRET = 'unstorable-api-secret';
const SHOP = 'unstorable.myshopify.com';

const db = useTestDatabase();
let web: TestWebApp;
let logs: Captured;

beforeAll(async () => {
  logs = captureLogger('debug');
  web = createTestWebApp({ prisma: db.prisma, apiKey: API_KEY, secret: SECRET, logger: logs.logger });
  await web.shops.ensure(SHOP);
});

const auth = () => bearer(mintSessionToken({ shop: SHOP, apiKey: API_KEY, secret: SECRET }));

/** A page cursor as the app makes them, around an id the database cannot store. */
const cursorWith = (id: string) => encodeCursor({ at: new Date('2026-01-01T00:00:00Z'), id });

/** A cursor is opaque: one the app cannot have made is "not a page cursor", whatever is wrong in it. */
function expectRefused(res: request.Response, field: string, message = /NUL|unpaired surrogate/): void {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error).toBe('invalid_input');
  expect(res.body.issues).toContainEqual({ field, message: expect.stringMatching(message) });
}

describe('page API input the database cannot store', () => {
  it('refuses a NUL in a query value, naming the parameter', async () => {
    for (const [url, field, message] of [
      ['/api/shipments?search=%00', 'search'],
      ['/api/shipments?search=1Z%00', 'search'],
      ['/api/shipments.csv?search=%00', 'search'],
      ['/api/carriers?search=%00', 'search'],
      ['/api/carriers/seen?after=%00', 'after'],
      ['/api/shipments?after=%00', 'after'],
      [`/api/shipments?after=${cursorWith('a\u0000b')}`, 'after', /page cursor/],
      [`/api/failed/trackers?after=${cursorWith('\u0000')}`, 'after', /page cursor/],
      [`/api/failed/deliveries?after=${cursorWith('\ud800')}`, 'after', /page cursor/],
      [`/api/store-writes/refused?after=${cursorWith('\u0000')}`, 'after', /page cursor/],
    ] as Array<[string, string, RegExp?]>) {
      expectRefused(await request(web.app).get(url).set(auth()), field, message);
    }
  });

  it('refuses a NUL in a path parameter', async () => {
    expectRefused(await request(web.app).get('/api/shipments/x%00y').set(auth()), 'trackerId');
    // An id that merely does not exist is still not found.
    expect((await request(web.app).get('/api/shipments/nothing-here').set(auth())).status).toBe(404);
  });

  it('refuses a NUL or a lone surrogate in a JSON body, naming the field', async () => {
    for (const [method, url, body, field] of [
      ['put', '/api/carriers/mapping', { name: 'U\u0000PS', slug: 'ups' }, 'name'],
      ['put', '/api/carriers/mapping', { name: 'UPS \ud800', slug: 'ups' }, 'name'],
      ['put', '/api/carriers/mapping', { name: 'UPS', slug: 'u\udc00ps' }, 'slug'],
      ['put', '/api/connection', { appName: 'store\u0000', apiKey: 'abcdefghijkl' }, 'appName'],
      ['put', '/api/connection', { appName: 'store', apiKey: 'abcdefghijkl\u0000' }, 'apiKey'],
      ['post', '/api/failed/retry', { trackerIds: ['ok', 'a\u0000'] }, 'trackerIds.1'],
      ['post', '/api/failed/retry', { deliveryIds: ['\ud83d'] }, 'deliveryIds.0'],
    ] as const) {
      // JSON.stringify writes a lone surrogate as its \u escape, as a client would.
      const client = request(web.app);
      const res = await (method === 'put' ? client.put(url) : client.post(url))
        .set(auth())
        .set('content-type', 'application/json')
        .send(JSON.stringify(body));
      expectRefused(res, field);
    }
  });

  it('none of it reached the database or the error log', async () => {
    expect(await db.prisma.carrierMapping.count()).toBe(0);
    expect(logs.records.filter((r) => r.level >= 50)).toEqual([]);
  });
});
