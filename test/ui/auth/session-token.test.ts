import express from 'express';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { createShopify, type TracksyncShopify } from '../../../src/shopify/api.js';
import {
  bearerToken,
  RETRY_INVALID_SESSION_HEADER,
  requireSessionToken,
  type SessionTokenFailure,
  verifySessionToken,
} from '../../../src/ui/auth/session-token.js';
import { bearer, mintSessionToken } from '../../helpers/session-token.js';

const API_KEY = 'session-token-api-key';
const SECRET = 'session-token-secret';
const SHOP_A = 'shop-a.myshopify.com';
const SHOP_B = 'shop-b.myshopify.com';

let shopify: TracksyncShopify;
let app: express.Express;

beforeAll(() => {
  shopify = createShopify({ apiKey: API_KEY, apiSecret: SECRET, appUrl: 'https://tracksync.example.com' });
  app = express();
  // Stands in for the page API: answers with the shop the middleware settled on.
  app.use('/api', requireSessionToken(shopify), (req, res) => {
    res.json({ shopDomain: res.locals.shopDomain, query: req.query });
  });
});

function token(overrides: Partial<Parameters<typeof mintSessionToken>[0]> = {}): string {
  return mintSessionToken({ shop: SHOP_A, apiKey: API_KEY, secret: SECRET, ...overrides });
}

async function expectRefused(headers: Record<string, string>, reason: SessionTokenFailure) {
  const res = await request(app).get('/api/shop').set(headers);
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: 'unauthorized', reason });
  expect(res.headers[RETRY_INVALID_SESSION_HEADER.toLowerCase()]).toBe('1');
  expect(res.headers['content-type']).toMatch(/application\/json/);
}

describe('requireSessionToken', () => {
  it('lets a valid token through with its shop in res.locals.shopDomain', async () => {
    const res = await request(app).get('/api/shop').set(bearer(token()));
    expect(res.status).toBe(200);
    expect(res.body.shopDomain).toBe(SHOP_A);
    expect(res.headers[RETRY_INVALID_SESSION_HEADER.toLowerCase()]).toBeUndefined();
  });

  it('refuses a request without a token', async () => {
    await expectRefused({}, 'missing_token');
    await expectRefused({ Authorization: 'Bearer' }, 'missing_token');
    await expectRefused({ Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }, 'missing_token');
  });

  it('refuses a token signed with another secret', async () => {
    await expectRefused(bearer(token({ secret: 'not-the-app-secret' })), 'invalid_token');
  });

  it('refuses a token whose payload was changed after signing', async () => {
    const [header, , signature] = token().split('.');
    const forged = Buffer.from(
      JSON.stringify({ aud: API_KEY, dest: `https://${SHOP_B}`, exp: Math.floor(Date.now() / 1000) + 60 }),
    ).toString('base64url');
    await expectRefused(bearer(`${header}.${forged}.${signature}`), 'invalid_token');
  });

  it('refuses what is not a JWT, and an unsigned (alg none) token', async () => {
    await expectRefused(bearer('not-a-jwt'), 'invalid_token');
    const unsigned =
      token({ header: { alg: 'none' } })
        .split('.')
        .slice(0, 2)
        .join('.') + '.';
    await expectRefused(bearer(unsigned), 'invalid_token');
  });

  it('refuses a token for another app (audience)', async () => {
    await expectRefused(bearer(token({ apiKey: 'another-app' })), 'wrong_audience');
  });

  it('refuses an expired token as expired (beyond the 10 s tolerance)', async () => {
    await expectRefused(bearer(token({ expiresInSeconds: -60 })), 'expired');
    // An expired token that is also forged is invalid, not merely stale.
    await expectRefused(bearer(token({ expiresInSeconds: -60, secret: 'other' })), 'invalid_token');
  });

  it('refuses a token that is not valid yet (nbf)', async () => {
    await expectRefused(bearer(token({ notBeforeSeconds: 120 })), 'invalid_token');
  });

  it('refuses a token that lives longer than the platform’s (one minute; five with clock skew)', async () => {
    // Expiring in the year 2100.
    const year2100 = Math.floor(Date.UTC(2100, 0, 1) / 1000);
    await expectRefused(bearer(token({ claims: { exp: year2100 } })), 'too_long_lived');
    await expectRefused(bearer(token({ expiresInSeconds: 3_600 })), 'too_long_lived');
    // Issued long ago and still valid for a minute: its whole lifetime is too long.
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(
      bearer(token({ claims: { iat: now - 3_600, nbf: now - 3_600, exp: now + 60 } })),
      'too_long_lived',
    );
    // The platform's own shape passes.
    const ok = await request(app)
      .get('/api/shop')
      .set(bearer(token({ expiresInSeconds: 60 })));
    expect(ok.status).toBe(200);
  });

  it('refuses a token that never expires', async () => {
    await expectRefused(bearer(token({ claims: { exp: undefined } })), 'invalid_token');
  });

  it.each([
    ['a custom domain', 'https://shop.example.com'],
    ['http', `http://${SHOP_A}`],
    ['a myshopify look-alike', 'https://shop-a.myshopify.com.evil.example'],
    ['a port', `https://${SHOP_A}:8443`],
    ['no URL at all', SHOP_A],
    ['nothing', undefined],
  ])('refuses a token whose dest is %s', async (_what, dest) => {
    await expectRefused(bearer(token({ claims: { dest } })), 'bad_shop');
  });

  it('refuses a token whose iss is another shop than its dest', async () => {
    await expectRefused(bearer(token({ claims: { iss: `https://${SHOP_B}/admin` } })), 'bad_shop');
  });

  it('a token for shop A yields shop A, whatever the query string, body or headers say', async () => {
    const res = await request(app)
      .get(`/api/shop?shop=${SHOP_B}`)
      .set(bearer(token()))
      .set('X-Shopify-Shop-Domain', SHOP_B);
    expect(res.status).toBe(200);
    expect(res.body.shopDomain).toBe(SHOP_A);
    expect(res.body.query).toEqual({ shop: SHOP_B });
    const post = await request(app).post('/api/shop').set(bearer(token())).send({ shop: SHOP_B });
    expect(post.body.shopDomain).toBe(SHOP_A);
  });

  it('lower-cases the shop from dest', async () => {
    const res = await request(app)
      .get('/api/shop')
      .set(bearer(token({ shop: 'Shop-A.MyShopify.com' })));
    expect(res.body.shopDomain).toBe(SHOP_A);
  });
});

describe('verifySessionToken and bearerToken', () => {
  it('returns the payload of a valid token', async () => {
    const result = await verifySessionToken(shopify, token({ userId: '7' }));
    expect(result).toMatchObject({ ok: true, shopDomain: SHOP_A, payload: { sub: '7', aud: API_KEY } });
  });

  it('takes the token out of an Authorization header', () => {
    expect(bearerToken('Bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
