import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FaultController, parseFaultPlan } from '../../tools/emulator/faults.js';
import { type RunningEmulator, startEmulator } from '../../tools/emulator/index.js';
import { call, control, createTracker, paths } from './http-helpers.js';

let em: RunningEmulator;

beforeAll(async () => {
  em = await startEmulator({ port: 0, seed: 7 });
});

afterAll(async () => {
  await em.close();
});

beforeEach(async () => {
  await control(em, '/reset');
});

function setFaults(plan: Record<string, unknown>) {
  return control(em, '/faults', plan, 'PUT');
}

async function calls(query = '') {
  return (await control(em, `/calls${query}`, undefined, 'GET')).json.calls;
}

const order = { tracking_number: 'F1', tracking_provider: 'ups', order_id: '6001' };

describe('fault plan endpoints', () => {
  it('GET answers the full plan with defaults; PUT replaces it whole', async () => {
    const initial = await control(em, '/faults', undefined, 'GET');
    expect(initial.json).toEqual({
      latencyMs: 0,
      errorRate: 0,
      timeoutRate: 0,
      resetRate: 0,
      rateLimitRate: 0,
      oversizeRate: 0,
      oversizeBytes: 50 * 1024 * 1024,
      retryAfterSeconds: 1,
      applyBeforeFault: false,
      pushDropRate: 0,
      pushDuplicateRate: 0,
      pushReorderRate: 0,
      pushDelayMs: 0,
    });
    await setFaults({ errorRate: 0.5, latencyMs: 5 });
    const replaced = await setFaults({ timeoutRate: 0.1, operations: ['get'] });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({
      errorRate: 0,
      latencyMs: 0,
      timeoutRate: 0.1,
      operations: ['get'],
    });
  });

  it('PATCH merges into the current plan', async () => {
    await setFaults({ errorRate: 0.25 });
    const patched = await control(em, '/faults', { latencyMs: 3 }, 'PATCH');
    expect(patched.json).toMatchObject({ errorRate: 0.25, latencyMs: 3 });
  });

  it.each([
    [{ errorRate: 2 }],
    [{ errorRate: -0.1 }],
    [{ latencyMs: 'slow' }],
    [{ operations: ['create', 'upsert'] }],
    [{ unknownField: true }],
    [[]],
    ['{'],
  ])('PUT %j → 400, plan unchanged', async (bad) => {
    const res = await call(em, '/_emulator/faults', {
      method: 'PUT',
      body: typeof bad === 'string' ? bad : JSON.stringify(bad),
      auth: null,
    });
    expect(res.status).toBe(400);
    expect(res.json.status).toBe('error');
    expect((await control(em, '/faults', undefined, 'GET')).json.errorRate).toBe(0);
  });
});

describe('faults', () => {
  it('errorRate 1 → 500 Internal Server Error on every operation, logged', async () => {
    await setFaults({ errorRate: 1 });
    for (const [path, method] of [
      [paths.create, 'POST'],
      [paths.get, 'POST'],
      [paths.byOrderId, 'POST'],
      [paths.delete, 'POST'],
      [paths.providers, 'GET'],
    ] as const) {
      const res = await call(em, path, { method, body: method === 'POST' ? order : undefined });
      expect(res.status).toBe(500);
      expect(res.json).toEqual({ status: 'error', message: 'Internal Server Error' });
    }
    const log = await calls();
    expect(log.map((c: { httpStatus: number }) => c.httpStatus)).toEqual([500, 500, 500, 500, 500]);
    expect(log.every((c: { fault: string }) => c.fault === 'error')).toBe(true);
    expect(em.state.trackerCount).toBe(0);
  });

  it('operations limits which operations the faults hit', async () => {
    await setFaults({ errorRate: 1, operations: ['get'] });
    expect((await createTracker(em, order)).status).toBe(200);
    expect((await call(em, paths.get, { body: { tracking_number: 'F1' } })).status).toBe(500);
    expect((await call(em, paths.providers, { method: 'GET' })).status).toBe(200);
  });

  it('timeout: the call is never answered; the client gives up; logged with httpStatus 0', async () => {
    await setFaults({ timeoutRate: 1 });
    const started = Date.now();
    const err = await call(em, paths.get, {
      body: { tracking_number: 'F1' },
      signal: AbortSignal.timeout(300),
    }).catch((e: unknown) => e);
    expect((err as Error).name).toBe('TimeoutError');
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    const log = await calls();
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ operation: 'get', httpStatus: 0, fault: 'timeout' });
  });

  it('reset: the socket is destroyed with no answer, fetch rejects', async () => {
    await setFaults({ resetRate: 1 });
    const err = (await call(em, paths.create, { body: order }).catch((e: unknown) => e)) as Error & {
      cause?: { code?: string };
    };
    expect(err).toBeInstanceOf(TypeError);
    expect(err.cause?.code).toBe('ECONNRESET');
    expect(em.state.trackerCount).toBe(0);
    const log = await calls();
    expect(log[0]).toMatchObject({ operation: 'create', httpStatus: 0, fault: 'reset' });
    // the server is fine afterwards
    await setFaults({});
    expect((await call(em, paths.providers, { method: 'GET' })).status).toBe(200);
  });

  it('rate limit: 429 with Retry-After, never takes effect even with applyBeforeFault', async () => {
    await setFaults({ rateLimitRate: 1, retryAfterSeconds: 7, applyBeforeFault: true });
    const res = await createTracker(em, order);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.json).toEqual({ status: 'error', message: 'Too Many Requests' });
    expect(em.state.trackerCount).toBe(0);
    await setFaults({ rateLimitRate: 1 });
    expect((await createTracker(em, order)).headers.get('retry-after')).toBe('1');
  });

  it('applyBeforeFault: a faulted create still creates (and charges); without it nothing happens', async () => {
    await setFaults({ errorRate: 1 });
    await createTracker(em, order);
    expect(em.state.trackerCount).toBe(0);

    await setFaults({ errorRate: 1, applyBeforeFault: true });
    expect((await createTracker(em, order)).status).toBe(500);
    expect(em.state.trackerCount).toBe(1);
    expect(em.state.accountByAppName('demo-store')?.balance).toBe(99);

    await setFaults({ resetRate: 1, applyBeforeFault: true });
    await createTracker(em, { ...order, tracking_number: 'F2' }).catch(() => undefined);
    expect(em.state.trackerCount).toBe(2);

    await setFaults({ timeoutRate: 1, applyBeforeFault: true });
    await call(em, paths.delete, { body: order, signal: AbortSignal.timeout(200) }).catch(() => undefined);
    expect(em.state.listTrackers().map((t) => t.trackingNumber)).toEqual(['F2']);

    await setFaults({});
    const got = await call(em, paths.get, { body: { tracking_number: 'F2' } });
    expect(got.json.status).toBe('success');
  });

  it('latency delays every answer', async () => {
    await setFaults({ latencyMs: 150 });
    const started = Date.now();
    const res = await call(em, paths.providers, { method: 'GET' });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('a client that gives up during the latency gets no answer, but the call is still processed', async () => {
    await setFaults({ latencyMs: 250 });
    const aborted = await call(em, paths.create, { body: order, signal: AbortSignal.timeout(80) }).catch(
      (e: unknown) => e,
    );
    expect((aborted as Error).name).toBe('TimeoutError');
    expect(em.state.trackerCount).toBe(0);
    await new Promise((r) => setTimeout(r, 250));
    expect(em.state.trackerCount).toBe(1);
    const log = await calls();
    expect(log).toEqual([expect.objectContaining({ operation: 'create', httpStatus: 0, fault: null })]);
  });

  it('deprecation and sunset headers on every /v1 response, not on control endpoints', async () => {
    const sunset = 'Wed, 01 Sep 2027 00:00:00 GMT';
    await setFaults({ deprecation: '@1767225600', sunset });
    for (const res of [
      await call(em, paths.providers, { method: 'GET' }),
      await createTracker(em, order),
      await call(em, paths.get, { body: {} }),
      await call(em, paths.get, { body: { tracking_number: 'F1' }, auth: null }),
      await call(em, '/v1/shipment/by-order-id/', { body: {} }),
    ]) {
      expect(res.headers.get('deprecation')).toBe('@1767225600');
      expect(res.headers.get('sunset')).toBe(sunset);
    }
    const controlRes = await control(em, '/faults', undefined, 'GET');
    expect(controlRes.headers.get('deprecation')).toBeNull();
    await setFaults({});
    expect((await call(em, paths.providers, { method: 'GET' })).headers.get('deprecation')).toBeNull();
  });

  it('faults are reproducible: the same seed gives the same sequence after a reset', async () => {
    const run = async () => {
      await control(em, '/reset');
      await setFaults({ errorRate: 0.5 });
      const out: number[] = [];
      for (let i = 0; i < 20; i++) out.push((await call(em, paths.providers, { method: 'GET' })).status);
      return out;
    };
    const first = await run();
    const second = await run();
    expect(first).toEqual(second);
    expect(first).toContain(200);
    expect(first).toContain(500);
  });

  it('FaultController: shares are cumulative in the order reset, timeout, rate_limit, error', () => {
    const c = new FaultController(parseFaultPlan({ resetRate: 0.25, timeoutRate: 0.25, errorRate: 0.5 }), 1);
    const counts: Record<string, number> = {};
    for (let i = 0; i < 4000; i++) {
      const k = String(c.decide('get'));
      counts[k] = (counts[k] ?? 0) + 1;
    }
    expect(counts.null).toBeUndefined();
    for (const [k, share] of [
      ['reset', 0.25],
      ['timeout', 0.25],
      ['error', 0.5],
    ] as const) {
      expect(Math.abs((counts[k] ?? 0) / 4000 - share)).toBeLessThan(0.04);
    }
  });
});

describe('close()', () => {
  it('destroys held and kept-alive sockets so it ends promptly', async () => {
    const own = await startEmulator({ port: 0, faults: { timeoutRate: 1, operations: ['get'] } });
    // a kept-alive connection
    await fetch(`${own.url}${paths.providers}`).then((r) => r.text());
    // a held request with no client-side timeout
    const held = new Promise<string>((resolve) => {
      const req = request(
        `${own.url}${paths.get}`,
        { method: 'POST', headers: { 'content-type': 'application/json' } },
        () => resolve('answered'),
      );
      req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      req.end(JSON.stringify({ tracking_number: 'x' }));
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(own.state.calls.size).toBe(2);
    const started = Date.now();
    await own.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await held).not.toBe('answered');
    await own.close(); // idempotent
  });
});
