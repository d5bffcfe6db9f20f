import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { carriers, type RunningEmulator, startEmulator } from '../../tools/emulator/index.js';
import { call, control, createTracker, paths } from './http-helpers.js';

let em: RunningEmulator;

const plainAuth = { 'service-api-key': 'key-plain-http', 'app-name': 'plain-store' };
const shopAuth = { 'service-api-key': 'key-shop-0001', 'app-name': 'shop-one' };

beforeAll(async () => {
  em = await startEmulator({
    port: 0,
    accounts: [
      { apiKey: 'demo-api-key', appName: 'demo-store', plan: 'Free', balance: 100, https: true },
      { apiKey: 'key-shop-0001', appName: 'shop-one', plan: 'Pro', balance: 10, https: true },
      { apiKey: 'key-plain-http', appName: 'plain-store', plan: 'Free', balance: 10, https: false },
    ],
  });
});

afterAll(async () => {
  await em.close();
});

beforeEach(async () => {
  await control(em, '/reset');
});

const tracked = { tracking_number: 'RT100', tracking_provider: 'ups', order_id: 'O-1' };

describe('server basics', () => {
  it('listens on 127.0.0.1 and exposes url, baseUrl and port', () => {
    expect(em.url).toBe(`http://127.0.0.1:${em.port}`);
    expect(em.baseUrl).toBe(`${em.url}/v1`);
    expect(em.port).toBeGreaterThan(0);
  });
});

describe('provider list', () => {
  it('answers the full list without auth', async () => {
    const res = await call(em, paths.providers, { method: 'GET', auth: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.json.success).toBe(true);
    expect(res.json.data).toHaveLength(carriers.length);
    expect(res.json.data[0]).toEqual({ label: 'UPS', slug: 'ups' });
    for (const p of res.json.data) expect(Object.keys(p).sort()).toEqual(['label', 'slug']);
  });

  it('ignores auth headers and query strings', async () => {
    const res = await call(em, `${paths.providers}?x=1`, { method: 'GET' });
    expect(res.status).toBe(200);
  });
});

describe('404 Invalid route', () => {
  const invalid = { status: 'error', message: 'Invalid route' };

  it.each([
    ['POST', '/v1/shipment/by-order-id/'],
    ['POST', '/v1/shipment/create'],
    ['POST', '/v1/shipment/get'],
    ['POST', '/v1/shipment/delete'],
    ['POST', '/shipment/create/'],
    ['POST', '/v2/shipment/create/'],
    ['GET', '/v1/shipment/create/'],
    ['GET', '/v1/shipment/by-order-id'],
    ['PUT', '/v1/shipment/get/'],
    ['DELETE', '/v1/shipment/delete/'],
    ['POST', '/v1/shipping_carriers/supported'],
    ['GET', '/v1/shipping_carriers/supported/'],
    ['GET', '/'],
    ['GET', '/v1'],
    ['GET', '/_emulator/nope'],
  ])('%s %s', async (method, path) => {
    const body = method === 'GET' ? undefined : { order_id: 'O-1' };
    const res = await call(em, path, { method, body });
    expect(res.status).toBe(404);
    expect(res.json).toEqual(invalid);
  });

  it('does not log unknown routes as calls', async () => {
    await call(em, '/v1/shipment/by-order-id/', { body: { order_id: 'x' } });
    const calls = await control(em, '/calls', undefined, 'GET');
    expect(calls.json.calls).toEqual([]);
  });
});

describe('auth', () => {
  const unauthorized = { status: 'error', message: 'unauthorized' };

  it.each([
    ['create', paths.create, tracked],
    ['get', paths.get, { tracking_number: 'RT100' }],
    ['by-order-id', paths.byOrderId, { order_id: 'O-1' }],
    ['delete', paths.delete, tracked],
  ])('%s without headers → 401 unauthorized', async (_op, path, body) => {
    const res = await call(em, path, { body, auth: null });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(unauthorized);
  });

  it('an api key without app-name → 401 unauthorized (also for delete)', async () => {
    for (const path of [paths.create, paths.delete]) {
      const res = await call(em, path, { body: tracked, auth: { 'service-api-key': 'key-shop-0001' } });
      expect(res.status).toBe(401);
      expect(res.json).toEqual(unauthorized);
    }
  });

  it('an unknown api key → 401 unauthorized', async () => {
    const res = await call(em, paths.get, {
      body: { tracking_number: 'RT100' },
      auth: { 'service-api-key': 'nope', 'app-name': 'shop-one' },
    });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(unauthorized);
  });

  it('an account whose store is not https → 401 ssl_error', async () => {
    for (const [path, body] of [
      [paths.create, tracked],
      [paths.get, { tracking_number: 'RT100' }],
      [paths.byOrderId, { order_id: 'O-1' }],
      [paths.delete, tracked],
    ] as const) {
      const res = await call(em, path, { body, auth: plainAuth });
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ status: 'error', message: 'ssl_error' });
    }
  });

  it('a known key with another app name → 401 unauthorized, except delete → 200 App name not found', async () => {
    const wrongApp = { 'service-api-key': 'key-shop-0001', 'app-name': 'plain-store' };
    for (const [path, body] of [
      [paths.create, tracked],
      [paths.get, { tracking_number: 'RT100' }],
      [paths.byOrderId, { order_id: 'O-1' }],
    ] as const) {
      const res = await call(em, path, { body, auth: wrongApp });
      expect(res.status).toBe(401);
      expect(res.json).toEqual(unauthorized);
    }
    const del = await call(em, paths.delete, { body: tracked, auth: wrongApp });
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ status: 'error', message: 'App name not found' });
  });

  it('header names are case-insensitive', async () => {
    const res = await createTracker(em, tracked, {
      'Service-Api-Key': 'key-shop-0001',
      'APP-NAME': 'shop-one',
    });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('ok');
  });

  it('trackers are per account: another account cannot see them', async () => {
    await createTracker(em, tracked, shopAuth);
    const own = await call(em, paths.get, { body: { tracking_number: 'RT100' }, auth: shopAuth });
    expect(own.json.status).toBe('success');
    const other = await call(em, paths.get, { body: { tracking_number: 'RT100' } });
    expect(other.json).toEqual({ status: 'error', message: 'Tracking information does not exist' });
  });
});

describe('bodies', () => {
  const invalidJson = { status: 'error', message: 'Invalid JSON body' };

  it.each([
    ['malformed JSON', '{"tracking_number": '],
    ['an array', '[1,2]'],
    ['null', 'null'],
    ['a number', '42'],
    ['a JSON string', '"text"'],
    ['an empty body', ''],
    ['plain text', 'tracking_number=1'],
  ])('%s → 400 Invalid JSON body', async (_name, body) => {
    for (const path of [paths.create, paths.get, paths.byOrderId, paths.delete]) {
      const res = await call(em, path, { body, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
      expect(res.json).toEqual(invalidJson);
    }
  });

  it('a body over 1 MiB → 400 and the server keeps working', async () => {
    const big = JSON.stringify({ tracking_number: 'x'.repeat(1024 * 1024 + 10) });
    const res = await call(em, paths.get, { body: big });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ status: 'error', message: 'Request body too large' });
    const after = await call(em, paths.providers, { method: 'GET' });
    expect(after.status).toBe(200);
  });

  it('a body just under 1 MiB is accepted', async () => {
    const res = await call(em, paths.get, { body: { tracking_number: 'x'.repeat(1000 * 1000) } });
    expect(res.status).toBe(200);
    expect(res.json.message).toBe('Tracking information does not exist');
  });

  it('does not require a content-type header', async () => {
    const res = await fetch(`${em.url}${paths.get}`, {
      method: 'POST',
      headers: { 'service-api-key': 'demo-api-key', 'app-name': 'demo-store' },
      body: JSON.stringify({ tracking_number: 'nothing' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'error', message: 'Tracking information does not exist' });
  });
});
