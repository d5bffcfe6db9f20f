import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../../src/context/app-context.js';
import { createPageApi } from '../../../src/ui/api/router.js';
import { captureLogger } from '../../helpers/capture-logger.js';

/** What the router does when a use case throws, or the body is refused before any use case runs. */
function appWith(parts: Partial<AppContext>) {
  const logs = captureLogger('debug');
  const http = express();
  http.use(
    '/api',
    (_req, res, next) => {
      res.locals.shopDomain = 'errors.myshopify.com';
      next();
    },
    createPageApi({ logger: logs.logger, ...parts } as AppContext, {
      appUrl: 'https://tracksync.example',
      smtpConfigured: false,
    }),
  );
  return { http, logs };
}

describe('unexpected failures', () => {
  it('answer 500 internal_error, logged with neither the body nor the data an error repeats', async () => {
    const secret = 'sk-live-this-must-never-be-logged';
    const failing = {
      findByDomain: () =>
        Promise.reject(
          new Error(`Invalid \`prisma.shop.findUnique()\` invocation:\n{ apiKey: "${secret}" }`),
        ),
    };
    const { http, logs } = appWith({ shops: failing as unknown as AppContext['shops'] });
    const res = await request(http).get('/api/shop');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'internal_error', errorId: expect.stringMatching(/^[0-9a-f]{16}$/) });
    const put = await request(http).put('/api/settings').send({ createOnFulfillment: true, apiKey: secret });
    expect(put.status).toBe(400); // unknown field: refused before anything runs
    const conn = await request(http)
      .put('/api/carriers/mapping')
      .send({ name: 'UPS', slug: 'ups', apiKey: secret });
    expect(conn.status).toBe(500);
    expect(logs.lines.length).toBeGreaterThan(0);
    expect(logs.records[0]).toMatchObject({
      msg: 'page API failed',
      path: '/shop',
      errorId: res.body.errorId,
    });
    for (const line of logs.lines) expect(line).not.toContain(secret);
  });

  it('a body over 100kb answers 413', async () => {
    const { http } = appWith({});
    const res = await request(http)
      .put('/api/settings')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ pad: 'x'.repeat(110 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'payload_too_large' });
  });
});
