import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusPushView } from '../../../src/ui/api/status-push.js';
import { type PageApiHarness, startPageApi, uniqueName } from './harness.js';

/**
 * The shop's status push URL on the page: shown in full under the app's URL, the same on every look,
 * replaced by rotation; and the safety-net setting.
 */

let api: PageApiHarness;

beforeAll(async () => {
  api = await startPageApi();
});
afterAll(async () => {
  api?.expectNoKeyLeaked();
  await api?.close();
});

const domainOf = (name: string) => `${uniqueName(name)}.myshopify.com`;

describe('GET /status-push and POST /status-push/rotate', () => {
  it('shows one URL per shop, kept until rotated; rotation gives a new one and drops the old', async () => {
    const domain = domainOf('push-url');
    const first = (await api.as(domain).get('/status-push')).body as StatusPushView;
    expect(first.statusPushUrl).toMatch(/^https:\/\/tracksync\.example\/status-webhooks\/[A-Za-z0-9_-]{32}$/);
    expect(first).toMatchObject({ lastPushAt: null, arriving: false, safetyPollHours: 24 });
    expect(((await api.as(domain).get('/status-push')).body as StatusPushView).statusPushUrl).toBe(
      first.statusPushUrl,
    );
    // Another shop has its own.
    const other = (await api.as(domainOf('push-other')).get('/status-push')).body as StatusPushView;
    expect(other.statusPushUrl).not.toBe(first.statusPushUrl);

    const rotated = await api.as(domain).post('/status-push/rotate', {});
    expect(rotated.status).toBe(200);
    expect(rotated.body.statusPushUrl).not.toBe(first.statusPushUrl);
    const token = (url: string) => url.split('/').at(-1)!;
    const row = await api.app.database.prisma.shop.findUniqueOrThrow({ where: { domain } });
    expect(row.statusPushToken).toBe(token(rotated.body.statusPushUrl));
    const old = await fetch(`${api.app.url}/status-webhooks/${token(first.statusPushUrl)}`, {
      method: 'POST',
      body: '{}',
    });
    expect(old.status).toBe(404);
  });

  it('the safety-net interval is a setting from 1 to 168 hours', async () => {
    const domain = domainOf('push-safety');
    const ok = await api.as(domain).put('/settings', { pushSafetyPollHours: 6 });
    expect(ok.body.settings.pushSafetyPollHours).toBe(6);
    expect(((await api.as(domain).get('/status-push')).body as StatusPushView).safetyPollHours).toBe(6);
    for (const pushSafetyPollHours of [0, 169, 2.5, '12']) {
      const bad = await api.as(domain).put('/settings', { pushSafetyPollHours });
      expect(bad.status).toBe(400);
      expect(bad.body.issues[0]).toMatchObject({ field: 'pushSafetyPollHours' });
    }
  });
});
