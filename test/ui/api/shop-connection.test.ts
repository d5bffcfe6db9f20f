import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/app.js';
import { type PageApiHarness, startPageApi, uniqueName } from './harness.js';

let api: PageApiHarness;

beforeAll(async () => {
  api = await startPageApi();
});
afterAll(async () => {
  api?.expectNoKeyLeaked();
  await api?.close();
});

const domainOf = (name: string) => `${uniqueName(name)}.myshopify.com`;

/** The settings of a shop nobody changed. */
const defaults = {
  createOnFulfillment: true,
  deleteOnCancel: true,
  orderIdSource: 'id',
  postFulfillmentEvents: true,
  showOrderDelivered: true,
  linkToTrackingPage: false,
  pushSafetyPollHours: 24,
};

describe('the session', () => {
  it('answers 401 to a request without the session shop, on every route', async () => {
    for (const [method, path] of [
      ['get', '/shop'],
      ['put', '/connection'],
      ['put', '/settings'],
      ['get', '/carriers/seen'],
      ['get', '/carriers'],
      ['put', '/carriers/mapping'],
      ['get', '/shipments'],
      ['get', '/shipments/some-id'],
      ['get', '/shipments.csv'],
      ['get', '/overview'],
      ['get', '/analytics?days=30'],
      ['get', '/failed'],
      ['post', '/failed/retry'],
    ] as const) {
      const res = await request(api.http)[method](`/api${path}`);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body).toEqual({ error: 'unauthorized' });
    }
  });

  it('answers JSON 404 to an unknown route', async () => {
    const res = await api.as(domainOf('nf')).get('/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found' });
  });
});

describe('GET /shop', () => {
  it('makes the row of a shop heard of for the first time: not connected, default settings', async () => {
    const domain = domainOf('fresh');
    const res = await api.as(domain).get('/shop');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      domain,
      connection: {
        appName: null,
        hasApiKey: false,
        trackersBalance: null,
        userPlan: null,
        lowBalance: false,
        paused: {
          reason: 'not_connected',
          message: expect.any(String),
          since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
      },
      settings: defaults,
    });
    expect(await api.app.database.prisma.shop.count({ where: { domain } })).toBe(1);
  });
});

describe('PUT /connection', () => {
  it('refuses a wrong API key with the exact cause (unauthorized), storing nothing', async () => {
    const domain = domainOf('badkey');
    const appName = uniqueName('store');
    await api.app.emulator.control.addAccount({
      apiKey: `right-${appName}`,
      appName,
      plan: 'Pro',
      balance: 100,
      https: true,
    });
    api.keys.push(`right-${appName}`, `wrong-${appName}`);
    const res = await api.as(domain).put('/connection', { appName, apiKey: `wrong-${appName}` });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      ok: false,
      reason: 'unauthorized',
      message: expect.stringMatching(/API key and app name/),
    });
    const shop = await api.as(domain).get('/shop');
    expect(shop.body.connection).toMatchObject({ hasApiKey: false, appName: null });
  });

  it('refuses an account whose store URL is not HTTPS with the exact cause (ssl_error)', async () => {
    const domain = domainOf('nossl');
    const appName = uniqueName('store');
    const apiKey = `key-${appName}`;
    api.keys.push(apiKey);
    await api.app.emulator.control.addAccount({ apiKey, appName, plan: 'Pro', balance: 100, https: false });
    const res = await api.as(domain).put('/connection', { appName, apiKey });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ ok: false, reason: 'ssl_error', message: expect.stringMatching(/HTTPS/) });
    expect((await api.as(domain).get('/shop')).body.connection.hasApiKey).toBe(false);
  });

  it('answers 400 with field issues for a missing or too short key', async () => {
    const domain = domainOf('invalid');
    const res = await api.as(domain).put('/connection', { appName: '', apiKey: 'short' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_input');
    expect(res.body.issues.map((i: { field: string }) => i.field).sort()).toEqual(['apiKey', 'appName']);
    const missing = await api.as(domain).put('/connection', {});
    expect(missing.status).toBe(400);
  });

  it('answers 400 to a body that is not JSON', async () => {
    const res = await request(api.http)
      .put('/api/connection')
      .set('x-test-shop', domainOf('badjson'))
      .set('content-type', 'application/json')
      .send('{"appName":');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_input' });
  });

  it('answers 422 unreachable when the service cannot be asked', async () => {
    const domain = domainOf('down');
    const appName = uniqueName('store');
    const apiKey = `key-${appName}`;
    api.keys.push(apiKey);
    await api.app.emulator.control.script([
      { operation: 'get', status: 500, body: { message: 'down' } },
      { operation: 'get', status: 500, body: { message: 'down' } },
      { operation: 'get', status: 500, body: { message: 'down' } },
    ]);
    const res = await api.as(domain).put('/connection', { appName, apiKey });
    await api.app.emulator.control.clearScript();
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ ok: false, reason: 'unreachable' });
    expect(res.body.message).toMatch(/Could not check the credentials/);
  });

  it('stores a good key and app name, lifts the pause; balance and plan show once a tracker is created', async () => {
    const shop = await api.connectedShop('good', { balance: 21 });
    const after = await api.as(shop.domain).get('/shop');
    expect(after.body.connection).toEqual({
      appName: shop.appName,
      hasApiKey: true,
      trackersBalance: null,
      userPlan: null,
      lowBalance: false,
      paused: null,
    });

    await api.fulfil(shop.domain, { trackingNumbers: ['1ZGOODKEY0000001'], carrier: 'UPS' });
    await api.settled(shop.domain);
    const created = await api.as(shop.domain).get('/shop');
    expect(created.body.connection).toMatchObject({
      trackersBalance: 20,
      userPlan: 'Pro',
      lowBalance: false,
    });

    await api.fulfil(shop.domain, { trackingNumbers: ['1ZGOODKEY0000002'], carrier: 'UPS' });
    await api.settled(shop.domain);
    await waitFor('the balance to drop', async () => {
      const body = (await api.as(shop.domain).get('/shop')).body;
      return body.connection.trackersBalance === 19;
    });
    expect((await api.as(shop.domain).get('/shop')).body.connection.lowBalance).toBe(true);
  });

  it('the PUT answer is the shop as GET /shop shows it, and never holds the key', async () => {
    const domain = domainOf('answer');
    const appName = uniqueName('store');
    const apiKey = `key-${appName}-secret`;
    api.keys.push(apiKey);
    await api.app.emulator.control.addAccount({ apiKey, appName, plan: 'Pro', balance: 50, https: true });
    const res = await api.as(domain).put('/connection', { appName, apiKey, shop: 'other.myshopify.com' });
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.shop).toEqual((await api.as(domain).get('/shop')).body);
    expect(res.text).not.toContain(apiKey);
    expect(await api.app.database.prisma.shop.count({ where: { domain: 'other.myshopify.com' } })).toBe(0);
  });
});

describe('PUT /settings', () => {
  it('round-trips any subset of the settings', async () => {
    const domain = domainOf('settings');
    expect((await api.as(domain).get('/shop')).body.settings).toEqual(defaults);
    const first = await api.as(domain).put('/settings', { orderIdSource: 'name' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ settings: { ...defaults, orderIdSource: 'name' } });
    const second = await api
      .as(domain)
      .put('/settings', { createOnFulfillment: false, deleteOnCancel: false });
    expect(second.body.settings).toEqual({
      ...defaults,
      createOnFulfillment: false,
      deleteOnCancel: false,
      orderIdSource: 'name',
    });
    expect((await api.as(domain).get('/shop')).body.settings).toEqual(second.body.settings);
    const nothing = await api.as(domain).put('/settings', {});
    expect(nothing.body.settings).toEqual(second.body.settings);
  });

  it('round-trips the tracking update settings; the rest stay as they are', async () => {
    const domain = domainOf('settings-updates');
    const res = await api
      .as(domain)
      .put('/settings', { postFulfillmentEvents: false, showOrderDelivered: false, pushSafetyPollHours: 12 });
    expect(res.status).toBe(200);
    const expected = {
      ...defaults,
      postFulfillmentEvents: false,
      showOrderDelivered: false,
      pushSafetyPollHours: 12,
    };
    expect(res.body).toEqual({ settings: expected });
    expect((await api.as(domain).get('/shop')).body.settings).toEqual(expected);
    const row = await api.app.database.prisma.shop.findUniqueOrThrow({ where: { domain } });
    expect(row).toMatchObject({
      postFulfillmentEvents: false,
      showOrderDelivered: false,
      pushSafetyPollHours: 12,
    });

    // The bounds are allowed.
    for (const pushSafetyPollHours of [1, 168]) {
      const edge = await api.as(domain).put('/settings', { pushSafetyPollHours });
      expect(edge.status, String(pushSafetyPollHours)).toBe(200);
      expect(edge.body.settings.pushSafetyPollHours).toBe(pushSafetyPollHours);
    }
    const back = await api.as(domain).put('/settings', { showOrderDelivered: true });
    expect(back.body.settings).toEqual({ ...expected, showOrderDelivered: true, pushSafetyPollHours: 168 });
  });

  it('turning the tracking-page links on queues the shop’s tracked fulfilments; off queues them back', async () => {
    const domain = domainOf('settings-links');
    await api.as(domain).get('/shop');
    const prisma = api.app.database.prisma;
    const { id: shopId } = await prisma.shop.findUniqueOrThrow({ where: { domain } });
    const line = (fulfillmentId: string, trackingNumber: string, extra: object = {}) =>
      prisma.trackingLine.create({
        data: { shopId, fulfillmentId, orderId: '1', trackingNumber, carrierName: 'UPS', ...extra },
      });
    await line('f1', 'N1');
    await line('f1', 'N2');
    await line('f2', 'N3');
    await line('f3', 'N4', { active: false });
    await line('f4', 'N5', { createdAt: new Date(Date.now() - 120 * 24 * 3_600_000) });
    const links = () =>
      prisma.storeTrackingLink.findMany({ where: { shopId }, orderBy: { fulfillmentId: 'asc' } });

    const on = await api.as(domain).put('/settings', { linkToTrackingPage: true });
    expect(on.body.settings).toEqual({ ...defaults, linkToTrackingPage: true });
    expect((await links()).map((l) => [l.fulfillmentId, l.wanted, l.state])).toEqual([
      ['f1', 'store', 'pending'],
      ['f2', 'store', 'pending'],
    ]);
    // Saving it on again (the page saves every field) queues nothing twice.
    await api.as(domain).put('/settings', { linkToTrackingPage: true, pushSafetyPollHours: 6 });
    expect(await links()).toHaveLength(2);

    const off = await api.as(domain).put('/settings', { linkToTrackingPage: false });
    expect(off.body.settings.linkToTrackingPage).toBe(false);
    expect((await links()).map((l) => l.wanted)).toEqual(['carrier', 'carrier']);
    // The store never got the store's links (no offline session here): the app's worker closes both
    // without a call, as there is nothing to put back.
    await waitFor('both closed', async () =>
      (await links()).every((l) => l.state === 'sent' && l.applied === null),
    );
  });

  it('refuses wrong types, unknown values and unknown fields with field issues', async () => {
    const domain = domainOf('settings-bad');
    for (const [body, field] of [
      [{ createOnFulfillment: 'yes' }, 'createOnFulfillment'],
      [{ orderIdSource: 'number' }, 'orderIdSource'],
      [{ deleteOnCancel: null }, 'deleteOnCancel'],
      [{ postFulfillmentEvents: 'false' }, 'postFulfillmentEvents'],
      [{ showOrderDelivered: 1 }, 'showOrderDelivered'],
      [{ linkToTrackingPage: 'on' }, 'linkToTrackingPage'],
    ] as const) {
      const res = await api.as(domain).put('/settings', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_input', issues: [{ field, message: expect.any(String) }] });
      expect(res.body.issues[0].message).toContain(field);
    }
    const unknown = await api.as(domain).put('/settings', { orderIdSrc: 'name' });
    expect(unknown.status).toBe(400);
    const array = await api.as(domain).put('/settings', [true]);
    expect(array.status).toBe(400);
    expect((await api.as(domain).get('/shop')).body.settings).toEqual(defaults);
  });

  it('refuses the old late threshold (staleAfterDays, removed) as an unknown field', async () => {
    const domain = domainOf('settings-days');
    for (const staleAfterDays of [5, 12]) {
      const res = await api.as(domain).put('/settings', { staleAfterDays, showOrderDelivered: false });
      expect(res.status, JSON.stringify(staleAfterDays)).toBe(400);
      expect(res.body.error).toBe('invalid_input');
    }
    // Nothing of a refused body was saved.
    expect((await api.as(domain).get('/shop')).body.settings).toEqual(defaults);
  });
});
