import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTrackingClient, type TrackingClientOptions } from '../../src/tracking/client.js';
import type { FetchLike } from '../../src/tracking/transport.js';
import type { TrackingResult } from '../../src/tracking/types.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

/**
 * The client against the running emulator over real HTTP: every operation, every error row of the
 * interface, the auth causes, the versioning headers, and the documented variants of each response.
 */

const good = { apiKey: 'contract-key-good-0001', appName: 'contract-store' };
const noHttps = { apiKey: 'contract-key-nohttps-02', appName: 'plain-http-store' };
const wrongKey = { apiKey: 'contract-key-unknown-03', appName: 'contract-store' };

let emulator: TestEmulator;

interface SentRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}
let sent: SentRequest[] = [];

/** Real fetch, recording what went on the wire so headers and bodies can be checked. */
const recordingFetch: FetchLike = (input, init) => {
  sent.push({
    url: input,
    method: init.method ?? 'GET',
    headers: { ...(init.headers as Record<string, string>) },
    body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
  });
  return fetch(input, init);
};

function client(overrides: Partial<TrackingClientOptions> = {}) {
  return createTrackingClient({
    baseUrl: emulator.baseUrl,
    fetch: recordingFetch,
    timeoutMs: 2_000,
    retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
    ...overrides,
  });
}

/** A loopback port nothing listens on: bound, read, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function expectError<T>(result: TrackingResult<T>) {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value)}`);
  return result;
}
function expectOk<T>(result: TrackingResult<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.value;
}

beforeAll(async () => {
  emulator = await startTestEmulator({
    accounts: [
      { ...good, plan: 'Pro', balance: 50, https: true },
      { ...noHttps, plan: 'Free', balance: 10, https: false },
      { apiKey: 'contract-key-poor-04', appName: 'poor-store', plan: 'Free', balance: 1, https: true },
    ],
  });
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(async () => {
  await emulator.control.reset();
  sent = [];
});

describe('create (POST /shipment/create/)', () => {
  it('sends the exact path, JSON body of strings and both auth headers; reports balance and plan', async () => {
    const result = await client().createTracker(good, {
      trackingNumber: ' 1Z999AA10123456784 ',
      trackingProvider: 'ups',
      orderId: '6120000000001',
      postalCode: '40003',
      destinationCountry: 'us',
    });
    const created = expectOk(result);
    expect(created.trackersBalance).toBe(49);
    expect(created.userPlan).toBe('Pro');
    expect(created.statusMessage).toMatch(/pending/i);

    expect(sent).toHaveLength(1);
    const request = sent[0]!;
    expect(request.url).toBe(`${emulator.baseUrl}/shipment/create/`);
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['service-api-key']).toBe(good.apiKey);
    expect(request.headers['app-name']).toBe(good.appName);
    expect(request.body).toEqual({
      tracking_number: '1Z999AA10123456784',
      tracking_provider: 'ups',
      order_id: '6120000000001',
      postal_code: '40003',
      destination_country: 'US',
    });

    const calls = await emulator.control.calls({ operation: 'create' });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.path).toBe('/v1/shipment/create/');
  });

  it('leaves out postal_code and destination_country when there are none', async () => {
    await client().createTracker(good, {
      trackingNumber: 'A1',
      trackingProvider: 'ups',
      orderId: '1',
      postalCode: '  ',
      destinationCountry: null,
    });
    expect(sent[0]!.body).toEqual({ tracking_number: 'A1', tracking_provider: 'ups', order_id: '1' });
  });

  it('creating the same tracker twice makes one tracker and charges once', async () => {
    const c = client();
    const input = { trackingNumber: 'DUP1', trackingProvider: 'usps', orderId: '42' };
    const first = expectOk(await c.createTracker(good, input));
    const second = expectOk(await c.createTracker(good, input));
    expect(second.trackersBalance).toBe(first.trackersBalance);
    expect(await emulator.control.trackers(good.appName)).toHaveLength(1);
  });

  it('a carrier that needs postal code and country creates nothing without them and says why', async () => {
    const result = expectError(
      await client().createTracker(good, {
        trackingNumber: '3SABCD0123456',
        trackingProvider: 'postnl-3s',
        orderId: '6120000000003',
      }),
    );
    expect(result.error).toMatchObject({
      kind: 'application',
      reason: 'destination_required',
      retryable: false,
    });
    expect(result.error.message).toMatch(/postal/i);
    expect(result.outcomeUnknown).toBe(false);
    expect(await emulator.control.trackers(good.appName)).toHaveLength(0);

    expectOk(
      await client().createTracker(good, {
        trackingNumber: '3SABCD0123456',
        trackingProvider: 'postnl-3s',
        orderId: '6120000000003',
        postalCode: '1015 CV',
        destinationCountry: 'NL',
      }),
    );
  });

  it('an unknown provider is a 400 that names the provider as the cause', async () => {
    const result = expectError(
      await client().createTracker(good, {
        trackingNumber: 'X1',
        trackingProvider: 'no-such-carrier',
        orderId: '1',
      }),
    );
    expect(result.error).toMatchObject({
      kind: 'http',
      httpStatus: 400,
      reason: 'provider_not_found',
      retryable: false,
    });
  });

  it('an empty order id is answered 200 with status_msg "Order id not found": not created', async () => {
    const result = expectError(
      await client().createTracker(good, { trackingNumber: 'X2', trackingProvider: 'ups', orderId: '' }),
    );
    expect(result.error).toMatchObject({ kind: 'application', httpStatus: 200, reason: 'order_not_found' });
  });

  it('a create beyond the balance creates nothing and reports the exhausted balance', async () => {
    const poor = { apiKey: 'contract-key-poor-04', appName: 'poor-store' };
    const c = client();
    expect(
      expectOk(await c.createTracker(poor, { trackingNumber: 'P1', trackingProvider: 'ups', orderId: '1' })),
    ).toMatchObject({ trackersBalance: 0 });
    const result = expectError(
      await c.createTracker(poor, { trackingNumber: 'P2', trackingProvider: 'ups', orderId: '1' }),
    );
    expect(result.error).toMatchObject({
      kind: 'application',
      reason: 'balance_exhausted',
      retryable: false,
    });
    if (result.error.kind !== 'application') throw new Error('unreachable');
    expect(result.error.account?.trackersBalance).toBe(0);
    expect(await emulator.control.trackers('poor-store')).toHaveLength(1);
  });

  it('missing required parameters are a 400', async () => {
    const result = expectError(
      await client().createTracker(good, { trackingNumber: '', trackingProvider: 'ups', orderId: '1' }),
    );
    expect(result.error).toMatchObject({ kind: 'http', httpStatus: 400, reason: 'missing_parameter' });
  });
});

describe('authentication (401 causes)', () => {
  it('a store URL that is not HTTPS answers ssl_error', async () => {
    const result = expectError(await client().getShipment(noHttps, { trackingNumber: 'any' }));
    expect(result.error).toMatchObject({
      kind: 'http',
      httpStatus: 401,
      reason: 'ssl_error',
      retryable: false,
    });
  });

  it('a wrong key answers unauthorized, on every authenticated operation, without retrying', async () => {
    const c = client();
    const key = { trackingNumber: 'A', trackingProvider: 'ups', orderId: '1' };
    const results: Array<TrackingResult<unknown>> = await Promise.all([
      c.createTracker(wrongKey, key),
      c.getShipment(wrongKey, { trackingNumber: 'A' }),
      c.getShipmentsByOrderId(wrongKey, '1'),
      c.deleteTracker(wrongKey, key),
    ]);
    for (const result of results) {
      expect(expectError(result).error).toMatchObject({
        kind: 'http',
        httpStatus: 401,
        reason: 'unauthorized',
      });
    }
    expect(sent).toHaveLength(4);
  });

  it('the API key never appears in an error message or a log line, even when the service echoes it', async () => {
    const { logger, lines } = captureLogger('debug');
    await emulator.control.script([
      {
        operation: 'get',
        status: 401,
        body: { status: 'error', message: `unauthorized key ${good.apiKey}` },
      },
      { operation: 'create', status: 200, body: { status: 'error', status_msg: `bad key ${good.apiKey}` } },
    ]);
    const c = client({ logger });
    const get = expectError(await c.getShipment(good, { trackingNumber: 'A' }));
    const create = expectError(
      await c.createTracker(good, { trackingNumber: 'A', trackingProvider: 'ups', orderId: '1' }),
    );
    expect(get.error.message).not.toContain(good.apiKey);
    expect(create.error.message).not.toContain(good.apiKey);
    expect(JSON.stringify([get, create])).not.toContain(good.apiKey);
    expect(lines.join('\n')).not.toContain(good.apiKey);
  });
});

describe('get (POST /shipment/get/)', () => {
  it('reads the full shipment, with plain-text service name, through the lifecycle', async () => {
    const c = client();
    expectOk(
      await c.createTracker(good, {
        trackingNumber: '1Z999AA10123456784',
        trackingProvider: 'ups',
        orderId: '6120000000001',
        postalCode: '40003',
        destinationCountry: 'US',
      }),
    );
    const pending = expectOk(
      await c.getShipment(good, { trackingNumber: '1Z999AA10123456784', trackingProvider: 'ups' }),
    );
    expect(pending).toMatchObject({
      trackingNumber: '1Z999AA10123456784',
      trackingProvider: 'ups',
      orderId: '6120000000001',
      destinationCountry: 'US',
    });
    expect(pending.events).toEqual([]);
    expect(pending.lastEventTime).toBeNull();

    await emulator.control.advanceClock(8 * 3600);
    const moving = expectOk(await c.getShipment(good, { trackingNumber: '1Z999AA10123456784' }));
    expect(moving.status).toBe('in_transit');
    expect(moving.events.length).toBeGreaterThanOrEqual(2);
    expect(moving.lastEventTime).toBe(moving.events.at(-1)!.datetime);
    for (const event of moving.events) {
      expect(event.datetime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(event.message.length).toBeGreaterThan(0);
    }
    if (moving.shippingServiceRaw !== null) {
      expect(moving.shippingService).not.toMatch(/[<>]|&[a-z#0-9]+;/i);
    }

    await emulator.control.advanceClock(3 * 24 * 3600);
    const delivered = expectOk(await c.getShipment(good, { trackingNumber: '1Z999AA10123456784' }));
    expect(delivered.status).toBe('delivered');
    expect(delivered.lastEventTime).toBe(delivered.events.at(-1)!.datetime);
    expect(sent.filter((r) => r.url.endsWith('/shipment/get/'))).toHaveLength(3);
  });

  it('an unknown tracking number is HTTP 200 with status error', async () => {
    const result = expectError(await client().getShipment(good, { trackingNumber: 'NOPE' }));
    expect(result.error).toMatchObject({
      kind: 'application',
      httpStatus: 200,
      reason: 'tracking_not_found',
    });
  });

  it('an unknown provider is a 400', async () => {
    const result = expectError(
      await client().getShipment(good, { trackingNumber: 'X', trackingProvider: 'zzz' }),
    );
    expect(result.error).toMatchObject({ kind: 'http', httpStatus: 400, reason: 'provider_not_found' });
  });

  it('sends only tracking_number when no provider is given', async () => {
    await client().getShipment(good, { trackingNumber: 'X' });
    expect(sent[0]!.body).toEqual({ tracking_number: 'X' });
  });
});

describe('by order id (POST /shipment/by-order-id, no trailing slash)', () => {
  it('lists every shipment of the order, tolerating the missing optional fields', async () => {
    const c = client();
    for (const n of ['1234567890', '1234567891']) {
      expectOk(
        await c.createTracker(good, {
          trackingNumber: n,
          trackingProvider: 'dhl-express',
          orderId: '6120000000002',
        }),
      );
    }
    expectOk(
      await c.createTracker(good, { trackingNumber: 'OTHER', trackingProvider: 'ups', orderId: '999' }),
    );
    const shipments = expectOk(await c.getShipmentsByOrderId(good, '6120000000002'));
    expect(shipments.map((s) => s.trackingNumber).sort()).toEqual(['1234567890', '1234567891']);
    for (const s of shipments) {
      expect(s.orderId).toBe('6120000000002');
      expect(s.estimatedDeliveryDate).toBeNull();
      expect(s.shippingService).toBeNull();
    }
    expect(sent.at(-1)!.url).toBe(`${emulator.baseUrl}/shipment/by-order-id`);
  });

  it('an unknown order id is HTTP 200 with status error', async () => {
    const result = expectError(await client().getShipmentsByOrderId(good, 'no-such-order'));
    expect(result.error).toMatchObject({ kind: 'application', reason: 'order_not_found' });
  });
});

describe('delete (POST /shipment/delete/)', () => {
  it('deletes, and a second delete reports the tracker as not found', async () => {
    const c = client();
    const key = { trackingNumber: 'DEL1', trackingProvider: 'fedex', orderId: '77' };
    expectOk(await c.createTracker(good, key));
    const deleted = expectOk(await c.deleteTracker(good, key));
    expect(deleted.message).toMatch(/deleted/i);
    expect(await emulator.control.trackers(good.appName)).toHaveLength(0);
    const again = expectError(await c.deleteTracker(good, key));
    expect(again.error).toMatchObject({
      kind: 'http',
      httpStatus: 400,
      reason: 'tracking_not_found',
      retryable: false,
    });
    expect(sent.at(-1)!.body).toEqual({
      tracking_number: 'DEL1',
      tracking_provider: 'fedex',
      order_id: '77',
    });
  });

  it('a tracker under another order id is not deleted', async () => {
    const c = client();
    expectOk(
      await c.createTracker(good, { trackingNumber: 'DEL2', trackingProvider: 'fedex', orderId: '77' }),
    );
    const result = expectError(
      await c.deleteTracker(good, { trackingNumber: 'DEL2', trackingProvider: 'fedex', orderId: '78' }),
    );
    expect(result.error).toMatchObject({ httpStatus: 400, reason: 'order_not_found' });
    expect(await emulator.control.trackers(good.appName)).toHaveLength(1);
  });

  it('an app name the account does not know is HTTP 200 with status error', async () => {
    const result = expectError(
      await client().deleteTracker(
        { ...good, appName: 'someone-else' },
        { trackingNumber: 'A', trackingProvider: 'ups', orderId: '1' },
      ),
    );
    expect(result.error).toMatchObject({
      kind: 'application',
      httpStatus: 200,
      reason: 'app_name_not_found',
    });
  });
});

describe('providers (GET /shipping_carriers/supported)', () => {
  it('lists at least 100 carriers, without sending credentials or a body', async () => {
    const providers = expectOk(await client().listProviders());
    expect(providers.length).toBeGreaterThanOrEqual(100);
    const slugs = new Set(providers.map((p) => p.slug));
    for (const slug of [
      'ups',
      'usps',
      'fedex',
      'dhl-express',
      'royal-mail',
      'canada-post',
      'australia-post',
      'postnl-3s',
    ]) {
      expect(slugs.has(slug), slug).toBe(true);
    }
    expect(sent[0]).toMatchObject({
      method: 'GET',
      url: `${emulator.baseUrl}/shipping_carriers/supported`,
      body: undefined,
    });
    expect(sent[0]!.headers['service-api-key']).toBeUndefined();
    expect(sent[0]!.headers['app-name']).toBeUndefined();
  });

  it('a 500 from the provider list is an HTTP error after bounded retries', async () => {
    await emulator.control.setFaults({ errorRate: 1, operations: ['providers'] });
    const result = expectError(await client().listProviders());
    expect(result.error).toMatchObject({
      kind: 'http',
      httpStatus: 500,
      reason: 'server_error',
      retryable: true,
      attempts: 3,
    });
    expect(await emulator.control.calls({ operation: 'providers' })).toHaveLength(3);
  });
});

describe('routes that do not exist (404 Invalid route)', () => {
  it('answers every operation on an unknown version with invalid_route', async () => {
    const c = client({ baseUrl: `${emulator.url}/v9` });
    const results: Array<TrackingResult<unknown>> = await Promise.all([
      c.createTracker(good, { trackingNumber: 'A', trackingProvider: 'ups', orderId: '1' }),
      c.getShipment(good, { trackingNumber: 'A' }),
      c.getShipmentsByOrderId(good, '1'),
      c.deleteTracker(good, { trackingNumber: 'A', trackingProvider: 'ups', orderId: '1' }),
      c.listProviders(),
    ]);
    for (const result of results) {
      expect(expectError(result).error).toMatchObject({
        kind: 'http',
        httpStatus: 404,
        reason: 'invalid_route',
        retryable: false,
      });
    }
  });

  it('refuses a base URL without its version segment', () => {
    expect(() => createTrackingClient({ baseUrl: emulator.url })).toThrow(/version segment/);
    expect(() => createTrackingClient({ baseUrl: `${emulator.baseUrl}/` })).not.toThrow();
  });
});

describe('transient faults and retries', () => {
  it('retries a read on 500 up to the bound, then reports a retryable HTTP error', async () => {
    await emulator.control.setFaults({ errorRate: 1 });
    const result = expectError(await client().getShipment(good, { trackingNumber: 'A' }));
    expect(result.error).toMatchObject({ kind: 'http', httpStatus: 500, retryable: true, attempts: 3 });
    expect(await emulator.control.calls({ operation: 'get' })).toHaveLength(3);
  });

  it('does not repeat a create after a 500 (it may have acted): one call, outcome unknown', async () => {
    await emulator.control.setFaults({ errorRate: 1 });
    const result = expectError(
      await client().createTracker(good, { trackingNumber: 'C500', trackingProvider: 'ups', orderId: '1' }),
    );
    expect(result.error).toMatchObject({ kind: 'http', httpStatus: 500, retryable: true });
    expect(result.outcomeUnknown).toBe(true);
    expect(await emulator.control.calls({ operation: 'create' })).toHaveLength(1);
  });

  it('recovers when a fault passes: the retry succeeds', async () => {
    await emulator.control.script([
      { operation: 'get', status: 500, body: { status: 'error', message: 'Internal Server Error' } },
    ]);
    const c = client();
    expectOk(await c.createTracker(good, { trackingNumber: 'R1', trackingProvider: 'ups', orderId: '1' }));
    const result = await c.getShipment(good, { trackingNumber: 'R1' });
    expect(expectOk(result).trackingNumber).toBe('R1');
    expect(result.ok && result.attempts).toBe(2);
  });

  it('honours Retry-After on 429, for creates too (a rate-limited request was not processed)', async () => {
    await emulator.control.script([
      {
        operation: 'create',
        status: 429,
        body: { status: 'error', message: 'Too many requests' },
        headers: { 'retry-after': '2' },
      },
    ]);
    const slept: number[] = [];
    const c = client({ sleep: async (ms) => void slept.push(ms) });
    const result = await c.createTracker(good, {
      trackingNumber: 'RL1',
      trackingProvider: 'ups',
      orderId: '1',
    });
    expectOk(result);
    expect(slept).toEqual([2000]);
    expect(await emulator.control.calls({ operation: 'create' })).toHaveLength(2);
  });

  it('hands a Retry-After longer than it will wait back to the caller', async () => {
    await emulator.control.script([
      {
        operation: 'get',
        status: 429,
        body: { status: 'error', message: 'slow down' },
        headers: { 'retry-after': '600' },
      },
    ]);
    const result = expectError(await client().getShipment(good, { trackingNumber: 'A' }));
    expect(result.error).toMatchObject({
      kind: 'http',
      httpStatus: 429,
      reason: 'rate_limited',
      retryable: true,
      retryAfterMs: 600_000,
    });
    expect(await emulator.control.calls({ operation: 'get' })).toHaveLength(1);
  });

  it('a timeout is a retryable transport failure; a create is not repeated and its outcome is unknown', async () => {
    await emulator.control.setFaults({ timeoutRate: 1 });
    const c = client({ timeoutMs: 250 });
    const get = expectError(await c.getShipment(good, { trackingNumber: 'A' }));
    expect(get.error).toMatchObject({ kind: 'transport', cause: 'timeout', retryable: true, attempts: 3 });
    const create = expectError(
      await c.createTracker(good, { trackingNumber: 'T1', trackingProvider: 'ups', orderId: '1' }),
    );
    expect(create.error).toMatchObject({ kind: 'transport', cause: 'timeout', attempts: 1 });
    expect(create.outcomeUnknown).toBe(true);
  });

  it('a connection reset is a retryable transport failure', async () => {
    await emulator.control.setFaults({ resetRate: 1 });
    const result = expectError(await client().getShipmentsByOrderId(good, '1'));
    expect(result.error).toMatchObject({ kind: 'transport', cause: 'reset', retryable: true, attempts: 3 });
  });

  it('a refused connection is retried even for a create (nothing was sent)', async () => {
    const c = client({ baseUrl: `http://127.0.0.1:${await closedPort()}/v1` });
    const result = expectError(
      await c.createTracker(good, { trackingNumber: 'A', trackingProvider: 'ups', orderId: '1' }),
    );
    expect(result.error).toMatchObject({ kind: 'transport', cause: 'refused', attempts: 3 });
    expect(result.outcomeUnknown).toBe(false);
  });

  it('a create whose answer was lost (the service acted) shows up on a following get', async () => {
    await emulator.control.setFaults({ resetRate: 1, applyBeforeFault: true, operations: ['create'] });
    const c = client();
    const create = expectError(
      await c.createTracker(good, { trackingNumber: 'LOST1', trackingProvider: 'ups', orderId: '5' }),
    );
    expect(create.outcomeUnknown).toBe(true);
    await emulator.control.setFaults({});
    expect(
      expectOk(await c.getShipment(good, { trackingNumber: 'LOST1', trackingProvider: 'ups' })).orderId,
    ).toBe('5');
  });
});

describe('versioning (Deprecation / Sunset, RFC 8594)', () => {
  it('surfaces the headers on results and logs them once per endpoint', async () => {
    await emulator.control.setFaults({ deprecation: '@1798761600', sunset: 'Sat, 01 Jan 2028 00:00:00 GMT' });
    const { logger, records } = captureLogger('info');
    const c = client({ logger });
    const first = await c.getShipment(good, { trackingNumber: 'A' });
    await c.getShipment(good, { trackingNumber: 'B' });
    const providers = await c.listProviders();
    expect(first.deprecation).toEqual({
      deprecation: '@1798761600',
      sunset: 'Sat, 01 Jan 2028 00:00:00 GMT',
      link: null,
    });
    expect(providers.deprecation?.sunset).toBe('Sat, 01 Jan 2028 00:00:00 GMT');
    const warnings = records.filter((r) => r.msg.includes('deprecated'));
    expect(warnings.map((w) => w.endpoint).sort()).toEqual([
      '/shipment/get/',
      '/shipping_carriers/supported',
    ]);
  });

  it('has no deprecation notice when the headers are absent', async () => {
    expect((await client().listProviders()).deprecation).toBeNull();
  });
});

describe('documented response variants', () => {
  const event = (extra: Record<string, unknown> = {}) => ({
    message: 'Arrived at facility',
    status: 'in_transit',
    datetime: '2026-11-20 09:15:00',
    source: 'Carrier API',
    tracking_location: { city: '', state: '', country: 'DE', zip: '' },
    ...extra,
  });

  async function scriptedGet(data: unknown) {
    await emulator.control.script([{ operation: 'get', status: 200, body: { status: 'success', data } }]);
    return client().getShipment(good, { trackingNumber: 'V1' });
  }

  it('trackers_balance as numeric text, as a number, absent or not numeric', async () => {
    const variants: Array<[unknown, number | null]> = [
      ['1500', 1500],
      [1500, 1500],
      [undefined, null],
      ['unlimited', null],
      [null, null],
    ];
    for (const [balance, expected] of variants) {
      await emulator.control.script([
        {
          operation: 'create',
          status: 200,
          body: { status: 'ok', status_msg: 'pending', trackers_balance: balance, user_plan: 'Pro' },
        },
      ]);
      const created = expectOk(
        await client().createTracker(good, { trackingNumber: 'B', trackingProvider: 'ups', orderId: '1' }),
      );
      expect(created.trackersBalance, String(balance)).toBe(expected);
    }
  });

  it('a create answered 200 "ok" whose status_msg says ssl_error created nothing', async () => {
    await emulator.control.script([
      { operation: 'create', status: 200, body: { status: 'ok', status_msg: 'ssl_error' } },
    ]);
    const result = expectError(
      await client().createTracker(good, { trackingNumber: 'S', trackingProvider: 'ups', orderId: '1' }),
    );
    expect(result.error).toMatchObject({ kind: 'application', reason: 'ssl_error', retryable: false });
  });

  it('null vs empty vs absent optional fields, null destination_events, events missing optional fields', async () => {
    const shipment = expectOk(
      await scriptedGet({
        tracking_number: 'V1',
        tracking_provider: 'dhl-express',
        order_id: '9',
        tracking_event_status: 'in_transit',
        tracking_est_delivery_date: null,
        destination_country: '',
        shipping_service: 'DHL Express Worldwide &amp; <b>Priority</b>',
        last_event_time: '2026-11-20 09:15:00',
        events: [event(), event({ object: 'TrackingDetail', description: '', status_detail: 'arrived' })],
        destination_events: null,
        some_future_field: { nested: true },
      }),
    );
    expect(shipment.destinationCountry).toBeNull();
    expect(shipment.estimatedDeliveryDate).toBeNull();
    expect(shipment.originCountry).toBeNull();
    expect(shipment.shippingService).toBe('DHL Express Worldwide & Priority');
    expect(shipment.shippingServiceRaw).toBe('DHL Express Worldwide &amp; <b>Priority</b>');
    expect(shipment.destinationEvents).toEqual([]);
    expect(shipment.events[0]).toEqual({
      message: 'Arrived at facility',
      description: null,
      status: 'in_transit',
      statusDetail: null,
      datetime: '2026-11-20 09:15:00',
      source: 'Carrier API',
      location: { city: null, state: null, country: 'DE', zip: null },
    });
    expect(shipment.events[1]!.statusDetail).toBe('arrived');
    expect('some_future_field' in shipment).toBe(false);
  });

  it('destination_events as an array of events', async () => {
    const shipment = expectOk(
      await scriptedGet({
        tracking_number: 'V1',
        tracking_event_status: 'in_transit',
        events: [],
        destination_events: [event()],
      }),
    );
    expect(shipment.destinationEvents).toHaveLength(1);
  });

  it('a by-order-id element with only a few fields', async () => {
    await emulator.control.script([
      {
        operation: 'by-order-id',
        status: 200,
        body: {
          status: 'success',
          data: [{ tracking_number: 'V1', tracking_provider: 'ups', tracking_event_status: 'delivered' }],
        },
      },
    ]);
    const [only] = expectOk(await client().getShipmentsByOrderId(good, '1'));
    expect(only).toMatchObject({
      trackingNumber: 'V1',
      status: 'delivered',
      events: [],
      lastEventTime: null,
      orderId: null,
    });
  });

  it('a 2xx body that is not JSON, or of the wrong shape, is an invalid response', async () => {
    await emulator.control.script([
      { operation: 'get', status: 200, body: '<html>maintenance</html>' },
      { operation: 'get', status: 200, body: { status: 'success', data: { no_tracking_number: true } } },
    ]);
    const c = client();
    expect(expectError(await c.getShipment(good, { trackingNumber: 'A' })).error).toMatchObject({
      kind: 'invalid_response',
    });
    expect(expectError(await c.getShipment(good, { trackingNumber: 'A' })).error).toMatchObject({
      kind: 'invalid_response',
    });
  });

  it('an error status with a non-JSON body is still an HTTP error with its status', async () => {
    await emulator.control.script([{ operation: 'delete', status: 502, body: '<html>Bad gateway</html>' }]);
    await emulator.control.script([{ operation: 'delete', status: 502, body: '<html>Bad gateway</html>' }]);
    await emulator.control.script([{ operation: 'delete', status: 502, body: '<html>Bad gateway</html>' }]);
    const result = expectError(
      await client().deleteTracker(good, { trackingNumber: 'A', trackingProvider: 'ups', orderId: '1' }),
    );
    expect(result.error).toMatchObject({
      kind: 'http',
      httpStatus: 502,
      reason: 'server_error',
      retryable: true,
    });
  });

  it('a providers answer with success false is an application error', async () => {
    await emulator.control.script([
      { operation: 'providers', status: 200, body: { success: false, data: [] } },
    ]);
    expect(expectError(await client().listProviders()).error).toMatchObject({ kind: 'application' });
  });
});
