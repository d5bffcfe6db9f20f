import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CallLog, type CallLogEntry } from '../../tools/emulator/call-log.js';
import { type RunningEmulator, startEmulator } from '../../tools/emulator/index.js';
import { call, control, createTracker, paths } from './http-helpers.js';

let em: RunningEmulator;

const secretKey = 'sk-live-very-secret-key-123';
const shop = { 'service-api-key': secretKey, 'app-name': 'shop-a' };
const other = { 'service-api-key': 'other-key-456789', 'app-name': 'shop-b' };

beforeAll(async () => {
  em = await startEmulator({
    port: 0,
    accounts: [
      { apiKey: secretKey, appName: 'shop-a', plan: 'Starter', balance: 5, https: true },
      { apiKey: 'other-key-456789', appName: 'shop-b', plan: 'Free', balance: 5, https: true },
    ],
  });
});

afterAll(async () => {
  await em.close();
});

beforeEach(async () => {
  await control(em, '/reset');
});

async function getCalls(query = ''): Promise<CallLogEntry[]> {
  const res = await control(em, `/calls${query}`, undefined, 'GET');
  expect(res.status).toBe(200);
  return res.json.calls;
}

describe('call log', () => {
  it('logs every operation call with operation, path, body, status, time and app name', async () => {
    await createTracker(em, { tracking_number: 'K1', tracking_provider: 'ups', order_id: '7001' }, shop);
    await call(em, paths.get, { body: { tracking_number: 'K1' }, auth: shop });
    await call(em, paths.byOrderId, { body: { order_id: '7001' }, auth: other });
    await call(em, paths.delete, { body: '{not json', auth: shop });
    await call(em, paths.providers, { method: 'GET', auth: null });
    const calls = await getCalls();
    expect(calls).toEqual([
      {
        operation: 'create',
        method: 'POST',
        path: '/v1/shipment/create/',
        body: { tracking_number: 'K1', tracking_provider: 'ups', order_id: '7001' },
        httpStatus: 200,
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        appName: 'shop-a',
        fault: null,
      },
      expect.objectContaining({ operation: 'get', body: { tracking_number: 'K1' }, httpStatus: 200 }),
      expect.objectContaining({ operation: 'by-order-id', appName: 'shop-b', httpStatus: 200 }),
      expect.objectContaining({ operation: 'delete', body: '{not json', httpStatus: 400 }),
      expect.objectContaining({ operation: 'providers', body: null, appName: null, httpStatus: 200 }),
    ]);
  });

  it('filters by operation and app name', async () => {
    await createTracker(em, { tracking_number: 'K2', tracking_provider: 'ups', order_id: '1' }, shop);
    await createTracker(em, { tracking_number: 'K3', tracking_provider: 'ups', order_id: '1' }, other);
    await call(em, paths.get, { body: { tracking_number: 'K2' }, auth: shop });
    expect(await getCalls('?operation=create')).toHaveLength(2);
    expect(await getCalls('?appName=shop-a')).toHaveLength(2);
    const both = await getCalls('?operation=create&appName=shop-b');
    expect(both).toHaveLength(1);
    expect(both[0]?.body).toMatchObject({ tracking_number: 'K3' });
    expect(await getCalls('?operation=delete')).toEqual([]);
  });

  it('never contains an api key, even one sent in the body', async () => {
    await createTracker(em, { tracking_number: 'K4', tracking_provider: 'ups', order_id: '1' }, shop);
    await call(em, paths.get, { body: { tracking_number: 'K4', api_key: secretKey }, auth: shop });
    await call(em, paths.get, { body: `oops ${secretKey}`, auth: shop });
    await call(em, paths.get, { body: { tracking_number: 'x' }, auth: { ...shop, 'app-name': 'wrong' } });
    const res = await control(em, '/calls', undefined, 'GET');
    expect(res.json.calls).toHaveLength(4);
    expect(res.text).not.toContain(secretKey);
    expect(res.text).not.toContain('service-api-key');
    expect(res.text).toContain('[redacted]');
    const accounts = await control(em, '/accounts', undefined, 'GET');
    expect(accounts.text).not.toContain(secretKey);
  });

  it('DELETE /_emulator/calls clears the log', async () => {
    await call(em, paths.providers, { method: 'GET' });
    expect(await getCalls()).toHaveLength(1);
    expect((await control(em, '/calls', undefined, 'DELETE')).status).toBe(200);
    expect(await getCalls()).toEqual([]);
  });

  it('is bounded: keeps the newest entries only', () => {
    const log = new CallLog(3);
    for (let i = 0; i < 7; i++) {
      log.add({
        operation: 'get',
        method: 'POST',
        path: '/v1/shipment/get/',
        body: { i },
        httpStatus: 200,
        at: new Date(0).toISOString(),
        appName: null,
        fault: null,
      });
    }
    expect(log.size).toBe(3);
    expect(log.list().map((e) => (e.body as { i: number }).i)).toEqual([4, 5, 6]);
  });
});

describe('scripted responses', () => {
  it('answers the next matching call with the canned answer, bypassing auth, with no side effect', async () => {
    const queued = await control(em, '/script', {
      responses: [
        { operation: 'create', status: 503, body: '<html>busy</html>', headers: { 'x-scripted': 'yes' } },
        { operation: 'create', body: { status: 'ok', status_msg: 'weird', trackers_balance: 'NaN' } },
        { operation: 'get', status: 200, body: { status: 'success', data: { tracking_number: 'Z' } } },
      ],
    });
    expect(queued.json).toEqual({ pending: 3 });

    const first = await createTracker(em, { tracking_number: 'S1' }, null);
    expect(first.status).toBe(503);
    expect(first.text).toBe('<html>busy</html>');
    expect(first.headers.get('x-scripted')).toBe('yes');
    expect(first.headers.get('content-type')).toMatch(/^text\/plain/);

    const second = await createTracker(
      em,
      { tracking_number: 'S1', tracking_provider: 'ups', order_id: '1' },
      shop,
    );
    expect(second.status).toBe(200);
    expect(second.json).toEqual({ status: 'ok', status_msg: 'weird', trackers_balance: 'NaN' });
    expect(em.state.trackerCount).toBe(0);
    expect(em.state.accountByAppName('shop-a')?.balance).toBe(5);

    // the queue is consumed; normal handling resumes
    const third = await createTracker(
      em,
      { tracking_number: 'S1', tracking_provider: 'ups', order_id: '1' },
      shop,
    );
    expect(third.json.status_msg).toBe('pending');

    const got = await call(em, paths.get, { body: {}, auth: null });
    expect(got.json).toEqual({ status: 'success', data: { tracking_number: 'Z' } });

    const log = await getCalls();
    expect(log.map((c) => [c.operation, c.httpStatus, c.fault])).toEqual([
      ['create', 503, 'script'],
      ['create', 200, 'script'],
      ['create', 200, null],
      ['get', 200, 'script'],
    ]);
  });

  it('wins over faults, and can be listed and cleared', async () => {
    await control(em, '/faults', { errorRate: 1 }, 'PUT');
    await control(em, '/script', {
      responses: [{ operation: 'providers', status: 200, body: { success: true, data: [] } }],
    });
    const scripted = await call(em, paths.providers, { method: 'GET' });
    expect(scripted.json).toEqual({ success: true, data: [] });
    expect((await call(em, paths.providers, { method: 'GET' })).status).toBe(500);

    await control(em, '/script', { responses: [{ operation: 'delete', status: 500 }] });
    expect((await control(em, '/script', undefined, 'GET')).json.responses).toHaveLength(1);
    await control(em, '/script', undefined, 'DELETE');
    expect((await control(em, '/script', undefined, 'GET')).json.responses).toEqual([]);
  });

  it('rejects a malformed script with 400', async () => {
    for (const bad of [
      {},
      { responses: [] },
      { responses: [{ operation: 'upsert' }] },
      { responses: [{ operation: 'get', status: 42 }] },
    ]) {
      const res = await control(em, '/script', bad);
      expect(res.status).toBe(400);
      expect(res.json.status).toBe('error');
    }
  });
});

describe('accounts', () => {
  it('lists accounts without api keys', async () => {
    const res = await control(em, '/accounts', undefined, 'GET');
    expect(res.json.accounts).toEqual([
      { appName: 'shop-a', plan: 'Starter', balance: 5, https: true, webhookUrl: null },
      { appName: 'shop-b', plan: 'Free', balance: 5, https: true, webhookUrl: null },
    ]);
  });

  it('PATCH changes balance, plan and https', async () => {
    const res = await control(em, '/accounts/shop-a', { plan: 'Pro', balance: 50 }, 'PATCH');
    expect(res.json.account).toEqual({
      appName: 'shop-a',
      plan: 'Pro',
      balance: 50,
      https: true,
      webhookUrl: null,
    });
    const created = await createTracker(
      em,
      { tracking_number: 'A1', tracking_provider: 'ups', order_id: '1' },
      shop,
    );
    expect(created.json).toMatchObject({ trackers_balance: '49', user_plan: 'Pro' });

    await control(em, '/accounts/shop-a', { https: false }, 'PATCH');
    const ssl = await call(em, paths.get, { body: { tracking_number: 'A1' }, auth: shop });
    expect(ssl.status).toBe(401);
    expect(ssl.json.message).toBe('ssl_error');
  });

  it('PATCH errors: unknown app → 404, bad fields → 400', async () => {
    const missing = await control(em, '/accounts/nobody', { balance: 1 }, 'PATCH');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ status: 'error', message: 'Account not found' });
    for (const bad of [{ balance: -1 }, { balance: 1.5 }, { apiKey: 'x' }, { https: 'yes' }]) {
      expect((await control(em, '/accounts/shop-a', bad, 'PATCH')).status).toBe(400);
    }
  });

  it('POST adds an account with defaults; duplicates → 409', async () => {
    const res = await control(em, '/accounts', { apiKey: 'new-key-000001', appName: 'shop-c' });
    expect(res.status).toBe(201);
    expect(res.json.account).toEqual({
      appName: 'shop-c',
      plan: 'Free',
      balance: 100,
      https: true,
      webhookUrl: null,
    });
    const created = await createTracker(
      em,
      { tracking_number: 'N1', tracking_provider: 'ups', order_id: '1' },
      { 'service-api-key': 'new-key-000001', 'app-name': 'shop-c' },
    );
    expect(created.json.trackers_balance).toBe('99');
    expect((await control(em, '/accounts', { apiKey: 'new-key-000001', appName: 'shop-d' })).status).toBe(
      409,
    );
    expect((await control(em, '/accounts', { apiKey: 'another-key', appName: 'shop-c' })).status).toBe(409);
    expect((await control(em, '/accounts', { appName: 'no-key' })).status).toBe(400);
  });
});

describe('trackers listing', () => {
  it('lists trackers, optionally of one app', async () => {
    await createTracker(
      em,
      { tracking_number: 'T1', tracking_provider: 'ups', order_id: '1', postal_code: '02134' },
      shop,
    );
    await createTracker(
      em,
      { tracking_number: 'T2', tracking_provider: 'gls', order_id: '2', postal_code: '10115' },
      other,
    );
    const all = await control(em, '/trackers', undefined, 'GET');
    expect(all.json.trackers).toHaveLength(2);
    const mine = await control(em, '/trackers?appName=shop-b', undefined, 'GET');
    expect(mine.json.trackers).toEqual([
      expect.objectContaining({
        appName: 'shop-b',
        tracking_number: 'T2',
        postal_code: '10115',
        status: 'pending',
      }),
    ]);
  });
});

describe('reset', () => {
  it('clears trackers, calls, script and faults, and restores the start accounts', async () => {
    await createTracker(em, { tracking_number: 'X1', tracking_provider: 'ups', order_id: '1' }, shop);
    await control(em, '/accounts/shop-b', { balance: 0, https: false }, 'PATCH');
    await control(em, '/accounts', { apiKey: 'temp-key-0000', appName: 'temp' });
    await control(em, '/script', { responses: [{ operation: 'get', status: 500 }] });
    await control(em, '/faults', { errorRate: 1 }, 'PUT');

    expect((await control(em, '/reset')).json).toEqual({ status: 'ok' });

    expect(em.state.trackerCount).toBe(0);
    expect(await getCalls()).toEqual([]);
    expect(em.state.script.pending()).toEqual([]);
    expect(em.state.faults.get().errorRate).toBe(0);
    expect((await control(em, '/accounts', undefined, 'GET')).json.accounts).toEqual([
      { appName: 'shop-a', plan: 'Starter', balance: 5, https: true, webhookUrl: null },
      { appName: 'shop-b', plan: 'Free', balance: 5, https: true, webhookUrl: null },
    ]);
    const got = await call(em, paths.get, { body: { tracking_number: 'X1' }, auth: shop });
    expect(got.json).toEqual({ status: 'error', message: 'Tracking information does not exist' });
  });
});

describe('demo account', () => {
  it('exists when no accounts are given', async () => {
    const demo = await startEmulator({ port: 0 });
    try {
      const res = await control(demo, '/accounts', undefined, 'GET');
      expect(res.json.accounts).toEqual([
        { appName: 'demo-store', plan: 'Free', balance: 100, https: true, webhookUrl: null },
      ]);
      const created = await createTracker(demo, {
        tracking_number: 'D',
        tracking_provider: 'ups',
        order_id: '1',
      });
      expect(created.json.trackers_balance).toBe('99');
    } finally {
      await demo.close();
    }
  });

  it('start refuses duplicate accounts', async () => {
    await expect(
      startEmulator({
        accounts: [
          { apiKey: 'k1', appName: 'same', plan: 'Free', balance: 1, https: true },
          { apiKey: 'k2', appName: 'same', plan: 'Free', balance: 1, https: true },
        ],
      }),
    ).rejects.toThrow(/app name same/);
  });
});
