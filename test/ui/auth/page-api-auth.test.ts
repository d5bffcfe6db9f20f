import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../helpers/database.js';
import { bearer, mintSessionToken } from '../../helpers/session-token.js';
import { createTestWebApp, type TestWebApp } from '../../helpers/web-app.js';

const API_KEY = 'page-api-key';
const SECRET = 'page-api-secret';
const SHOP_A = 'shop-a.myshopify.com';
const SHOP_B = 'shop-b.myshopify.com';

const db = useTestDatabase({ reset: true });
let web: TestWebApp;

beforeAll(async () => {
  web = createTestWebApp({ prisma: db.prisma, apiKey: API_KEY, secret: SECRET });
});

const tokenFor = (shop: string) => mintSessionToken({ shop, apiKey: API_KEY, secret: SECRET });

describe('/api behind session tokens (the app as mounted)', () => {
  it('refuses the page API without a valid token, with the retry header App Bridge acts on', async () => {
    for (const [headers, reason] of [
      [{}, 'missing_token'],
      [bearer(mintSessionToken({ shop: SHOP_A, apiKey: API_KEY, secret: 'wrong' })), 'invalid_token'],
      [bearer(mintSessionToken({ shop: SHOP_A, apiKey: 'other-app', secret: SECRET })), 'wrong_audience'],
    ] as const) {
      const res = await request(web.app).get('/api/shop').set(headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'unauthorized', reason });
      expect(res.headers['x-shopify-retry-invalid-session-request']).toBe('1');
    }
    expect(await db.prisma.shop.count()).toBe(0);
  });

  it('answers for the token’s shop, never the one a query string names', async () => {
    await web.shops.ensure(SHOP_B);
    const res = await request(web.app)
      .get(`/api/shop?shop=${SHOP_B}`)
      .set(bearer(tokenFor(SHOP_A)));
    expect(res.status).toBe(200);
    expect(res.body.domain).toBe(SHOP_A);
  });

  it('does not put the OAuth routes or the webhook intake behind session tokens', async () => {
    const auth = await request(web.app).get(`/api/auth?shop=${SHOP_A}`);
    expect(auth.status).toBe(302);
    const webhook = await request(web.app).post('/webhooks').send('{}');
    expect(webhook.status).toBe(401);
    expect(webhook.body.error).toBe('missing_hmac');
  });

  it('keeps health and readiness open', async () => {
    await request(web.app).get('/healthz').expect(200);
    await request(web.app).get('/readyz').expect(200);
  });
});
