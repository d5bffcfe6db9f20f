import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPageApi } from '../../src/ui/api/router.js';
import { startTestApp, TEST_SECRET, TEST_SHOP, type TestApp } from '../helpers/app.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { bearer, mintSessionToken } from '../helpers/session-token.js';

/**
 * GET and PUT /api/notifications through the app, with the page's session tokens: what the merchant
 * sees and may change, what is refused (and why, without repeating the Slack URL), and that the Slack URL
 * is stored sealed and never answered or logged.
 */

let app: TestApp;
const logs = captureLogger('debug');
const secret = 'T0SECRET/B0SECRET/xoxsecretpartofthehook';
const slackUrl = `https://hooks.slack.com/services/${secret}`;

beforeAll(async () => {
  app = await startTestApp({ runtime: { logger: logs.logger } });
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const token = () =>
  mintSessionToken({ shop: TEST_SHOP, apiKey: app.config.shopify.apiKey, secret: TEST_SECRET });
const get = () => request(app.url).get('/api/notifications').set(bearer(token()));
const put = (body: unknown) =>
  request(app.url)
    .put('/api/notifications')
    .set(bearer(token()))
    .send(body as object);
const shopRow = () => app.database.prisma.shop.findUniqueOrThrow({ where: { domain: TEST_SHOP } });

describe('/api/notifications', () => {
  it('GET says the settings: the defaults, the contact e-mail, no Slack, and whether SMTP is set', async () => {
    // The store's contact e-mail, as the worker reads it from the store's profile (its profile pass may
    // run at any moment of this file and must read the same address).
    app.store.setShopProfile(TEST_SHOP, { timezone: 'UTC', contactEmail: 'owner@example.com' });
    await app.database.prisma.shop.update({
      where: { domain: TEST_SHOP },
      data: { contactEmail: 'owner@example.com' },
    });
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      digestEnabled: true,
      digestHour: 8,
      recipients: [],
      contactEmail: 'owner@example.com',
      slackConfigured: false,
      slackInstantProblems: false,
      smtpConfigured: false,
    });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('PUT changes what it is given; the Slack URL is stored sealed and answered only as set', async () => {
    const before = Date.now();
    const res = await put({
      digestHour: 7,
      recipients: ['ops@example.com', ' OPS@example.com ', 'warehouse@example.org'],
      slackWebhookUrl: slackUrl,
      slackInstantProblems: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      digestEnabled: true,
      digestHour: 7,
      recipients: ['ops@example.com', 'warehouse@example.org'],
      contactEmail: 'owner@example.com',
      slackConfigured: true,
      slackInstantProblems: true,
      smtpConfigured: false,
    });
    expect(res.text).not.toContain('xoxsecret');
    expect((await get()).text).not.toContain('xoxsecret');

    const row = await shopRow();
    expect(row.slackWebhookCiphertext).not.toBeNull();
    expect(row.slackWebhookCiphertext).not.toContain('xoxsecret');
    expect(row.slackWebhookKeyId).toBe('t1');
    expect(await app.runtime.context.shops.slackWebhook(row)).toBe(slackUrl);
    // The next digest: 07:00 in the shop's zone (UTC here), the first one after now.
    const next = row.nextDigestAt!;
    expect(next.getUTCHours()).toBe(7);
    expect(next.getUTCMinutes()).toBe(0);
    expect(next.getTime()).toBeGreaterThan(before);
    expect(next.getTime() - before).toBeLessThanOrEqual(24 * 3_600_000);
    // Instant posts start from now: nothing older is posted.
    expect(row.slackPostedThrough!.getTime()).toBeGreaterThanOrEqual(before - 1_000);

    // A later save that leaves the hour as it is does not move the next digest.
    expect((await put({ digestEnabled: false })).body).toMatchObject({ digestEnabled: false, digestHour: 7 });
    expect((await shopRow()).nextDigestAt).toEqual(next);
  });

  it('refuses what is not valid, naming the field, never repeating a Slack URL', async () => {
    const refused = async (body: unknown, field: string, message: RegExp) => {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('invalid_input');
      expect(res.body.issues).toEqual([{ field, message: expect.stringMatching(message) }]);
      return res;
    };
    await refused({ digestHour: 24 }, 'digestHour', /whole hour from 0 to 23/);
    await refused({ digestHour: -1 }, 'digestHour', /whole hour from 0 to 23/);
    await refused({ digestHour: 7.5 }, 'digestHour', /whole hour from 0 to 23/);
    await refused({ digestHour: '8' }, 'digestHour', /whole hour from 0 to 23/);
    await refused({ digestEnabled: 'yes' }, 'digestEnabled', /true or false/);
    await refused(
      { recipients: Array.from({ length: 11 }, (_, i) => `r${i}@example.com`) },
      'recipients',
      /at most 10 addresses/,
    );
    await refused({ recipients: ['ops@example.com', 'not an address'] }, 'recipients.1', /e-mail address/);
    await refused({ recipients: ['a@example.com, b@example.com'] }, 'recipients.0', /e-mail address/);
    await refused({ recipients: 'ops@example.com' }, 'recipients', /list of e-mail addresses/);
    for (const url of [
      'http://hooks.slack.com/services/T/B/plainhttpsecret',
      'https://evil.example/services/T/B/otherhostsecret',
      'https://hooks.slack.com.evil.example/services/T/B/suffixsecret',
      `https://hooks.slack.com/services/${'x'.repeat(600)}`,
    ]) {
      const res = await refused({ slackWebhookUrl: url }, 'slackWebhookUrl', /hooks\.slack\.com/);
      expect(res.text).not.toContain('secret');
      expect(res.text).not.toContain('xxxxxxxxxx');
    }
    await refused({ webhook: 'x' }, '', /webhook/);
    // Nothing was changed by a refused request.
    expect((await get()).body).toMatchObject({ digestHour: 7, slackConfigured: true });
  });

  it('an empty Slack URL removes it', async () => {
    const res = await put({ slackWebhookUrl: '' });
    expect(res.status).toBe(200);
    expect(res.body.slackConfigured).toBe(false);
    const row = await shopRow();
    expect(row.slackWebhookCiphertext).toBeNull();
    expect(row.slackWebhookKeyId).toBeNull();
  });

  it('the Slack URL never reached a log line', () => {
    expect(logs.lines.length).toBeGreaterThan(0);
    for (const line of logs.lines) {
      expect(line).not.toContain('xoxsecret');
      expect(line).not.toContain('secret/');
    }
  });

  it('says smtpConfigured when the app has an SMTP server', async () => {
    const http = express();
    http.use(
      '/api',
      (_req, res, next) => {
        res.locals.shopDomain = TEST_SHOP;
        next();
      },
      createPageApi(
        { ...app.runtime.context, logger: logs.logger },
        { appUrl: 'https://tracksync.example', smtpConfigured: true },
      ),
    );
    const res = await request(http).get('/api/notifications');
    expect(res.body).toMatchObject({ smtpConfigured: true, digestHour: 7 });
  });
});
