import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../tools/emulator/clock.js';
import { FaultController, operations, parseFaultPlan } from '../../tools/emulator/faults.js';
import { type RunningEmulator, startEmulator } from '../../tools/emulator/index.js';
import { handleOperation } from '../../tools/emulator/operations.js';
import { EmulatorState } from '../../tools/emulator/state.js';
import { demoAuth, paths } from './http-helpers.js';

const operationPaths: string[] = [paths.create, paths.get, paths.byOrderId, paths.delete, paths.providers];
const otherPaths = [
  '/v1/shipment/by-order-id/',
  '/v1',
  '/',
  '/_emulator/calls',
  '/_emulator/calls?operation=create',
  '/_emulator/clock',
  '/_emulator/clock/advance',
  '/_emulator/accounts',
  '/_emulator/accounts/demo-store',
  '/_emulator/accounts/%E0%A4%A',
  '/_emulator/trackers',
  '/_emulator/reset',
];

const field = fc.oneof(
  fc.string(),
  fc.constantFrom('', ' ', 'ups', 'postnl-3s', 'gls', '1001', 'NL'),
  fc.integer(),
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
);

const trackingBody = fc
  .record(
    {
      tracking_number: field,
      tracking_provider: field,
      order_id: field,
      postal_code: field,
      destination_country: field,
      seconds: fc.oneof(fc.double(), fc.integer()),
      balance: fc.oneof(fc.integer(), fc.double()),
      https: fc.oneof(fc.boolean(), fc.string()),
    },
    { requiredKeys: [] },
  )
  .map((o) => JSON.stringify(o));

const body = fc.oneof(
  fc.constant(undefined),
  fc.string(),
  fc.json(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  trackingBody,
  trackingBody,
  fc.constantFrom(
    '{"__proto__":{"tracking_number":"p"},"constructor":"x","tracking_number":"a","order_id":"1"}',
    '{"tracking_number":"a","tracking_provider":"ups","order_id":"\u0000"}',
    '\ufeff{"tracking_number":"a"}',
  ),
);

const headerValue = fc.stringMatching(/^[a-zA-Z0-9 ._-]{0,24}$/);
const headers = fc.oneof(
  fc.constant<Record<string, string>>({ ...demoAuth }),
  fc.constant<Record<string, string>>({}),
  fc.record({ 'service-api-key': headerValue, 'app-name': headerValue }, { requiredKeys: [] }),
  fc.record({ 'service-api-key': fc.constant('demo-api-key'), 'app-name': headerValue }),
);

const request = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
  path: fc.oneof(
    fc.constantFrom(...operationPaths, ...otherPaths),
    fc.string().map((s) => `/v1/${encodeURIComponent(s)}`),
  ),
  body,
  headers,
});

type Req = { method: string; path: string; body: string | undefined; headers: Record<string, string> };

async function send(em: RunningEmulator, r: Req) {
  const res = await fetch(em.url + r.path, {
    method: r.method,
    headers: r.headers,
    body: r.method === 'GET' ? undefined : r.body,
  });
  return { status: res.status, text: await res.text() };
}

describe('robustness (fast-check)', () => {
  let em: RunningEmulator;

  beforeAll(async () => {
    em = await startEmulator({ port: 0 });
  });

  afterAll(async () => {
    await em.close();
  });

  it('random requests to every route never get a 5xx and always get JSON', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const { status, text } = await send(em, r);
        expect(status).toBeLessThan(500);
        expect(() => JSON.parse(text)).not.toThrow();
      }),
      { numRuns: 250 },
    );
    const alive = await fetch(em.url + paths.providers);
    expect(alive.status).toBe(200);
  });

  it('with errorRate 1, only the five operations answer 500', async () => {
    const faulty = await startEmulator({ port: 0, faults: { errorRate: 1 } });
    try {
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          const isOperation =
            (r.method === 'GET' && r.path === paths.providers) ||
            (r.method === 'POST' && operationPaths.includes(r.path) && r.path !== paths.providers);
          const { status } = await send(faulty, r);
          if (isOperation) expect(status).toBe(500);
          else expect(status).toBeLessThan(500);
        }),
        { numRuns: 100 },
      );
    } finally {
      await faulty.close();
    }
  });

  it('handleOperation never throws and answers only 200, 400 or 401', () => {
    const state = new EmulatorState({
      accounts: [],
      clock: new VirtualClock(),
      faults: new FaultController(parseFaultPlan({})),
    });
    fc.assert(
      fc.property(
        fc.constantFrom(...operations.filter((o) => o !== 'providers')),
        fc.oneof(fc.string(), trackingBody, fc.json()),
        fc.constantFrom('demo-api-key', 'nope', undefined),
        fc.constantFrom('demo-store', 'other', undefined),
        (op, bodyText, apiKey, appName) => {
          const reply = handleOperation(state, op, { apiKey, appName, bodyText, bodyTooLarge: false });
          expect([200, 400, 401]).toContain(reply.status);
          expect(reply.body).toHaveProperty('status');
        },
      ),
      { numRuns: 1000 },
    );
  });
});
