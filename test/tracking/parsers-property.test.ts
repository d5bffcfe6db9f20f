import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTrackingClient, type TrackingClient } from '../../src/tracking/client.js';
import { shipmentSchema } from '../../src/tracking/schemas.js';
import type { TrackingResult } from '../../src/tracking/types.js';

/**
 * The parsers see whatever the network hands them. These properties feed the client random, truncated
 * and wrong-typed bodies through an injected fetch (no server needed to fuzz parsing) and demand a typed
 * result every time: never a throw, never a success built from a body that breaks the contract.
 */

const credentials = { apiKey: 'prop-test-key-123456', appName: 'prop-store' };

function clientAnswering(status: number, body: string, headers: Record<string, string> = {}): TrackingClient {
  return createTrackingClient({
    baseUrl: 'http://127.0.0.1:9/v1',
    fetch: async () =>
      new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } }),
    retry: { maxAttempts: 2, baseDelayMs: 0, maxDelayMs: 0 },
    sleep: async () => {},
  });
}

const operations: Array<(c: TrackingClient) => Promise<TrackingResult<unknown>>> = [
  (c) => c.createTracker(credentials, { trackingNumber: '1Z1', trackingProvider: 'ups', orderId: '1' }),
  (c) => c.getShipment(credentials, { trackingNumber: '1Z999AA10123456784' }),
  (c) => c.getShipmentsByOrderId(credentials, '1'),
  (c) => c.deleteTracker(credentials, { trackingNumber: '1Z1', trackingProvider: 'ups', orderId: '1' }),
  (c) => c.listProviders(),
];

function assertTyped(result: TrackingResult<unknown>): void {
  expect(typeof result.ok).toBe('boolean');
  if (!result.ok) {
    expect(['application', 'http', 'transport', 'invalid_response']).toContain(result.error.kind);
    expect(typeof result.error.retryable).toBe('boolean');
    expect(typeof result.error.message).toBe('string');
    expect(result.error.message).not.toContain(credentials.apiKey);
  }
}

const validEvent = {
  object: 'TrackingDetail',
  message: 'Picked up',
  description: '',
  status: 'in_transit',
  status_detail: 'arrived_at_facility',
  datetime: '2026-11-20 10:00:00',
  source: 'UPS',
  tracking_location: { object: 'TrackingLocation', city: 'Louisville', state: 'KY', country: 'US', zip: '' },
};
const validShipment = {
  order_id: '6120000000001',
  tracking_number: '1Z999AA10123456784',
  tracking_provider: 'ups',
  tracking_event_status: 'in_transit',
  tracking_est_delivery_date: '2026-11-22',
  origin_country: 'US',
  destination_country: 'US',
  delivery_number: null,
  delivery_provider: null,
  shipping_service: 'UPS Ground&reg;',
  last_event_time: '2026-11-20 10:00:00',
  events: [validEvent],
  destination_events: null,
};
const validBodies = [
  { status: 'ok', status_msg: 'pending', trackers_balance: '99', user_plan: 'Free' },
  { status: 'success', data: validShipment },
  { status: 'success', data: [validShipment] },
  { status: 'success', message: 'Tracking deleted successfully' },
  { success: true, data: [{ label: 'UPS', slug: 'ups' }] },
];

/** Replaces one value somewhere inside a JSON value with an arbitrary one. */
function mutate(value: unknown, path: number[], replacement: unknown): unknown {
  if (path.length === 0 || value === null || typeof value !== 'object') return replacement;
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  if (entries.length === 0) return replacement;
  const [head, ...rest] = path;
  const index = (head ?? 0) % entries.length;
  const copy: Record<string | number, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...value };
  const key = entries[index]![0];
  (copy as Record<string | number, unknown>)[key] = mutate(entries[index]![1], rest, replacement);
  return copy;
}

const statuses = fc.constantFrom(200, 201, 400, 401, 404, 429, 500, 502, 503);

describe('response parsers under random input', () => {
  it('any JSON value, any status: a typed result, never a throw', async () => {
    await fc.assert(
      fc.asyncProperty(statuses, fc.jsonValue(), fc.nat(4), async (status, body, op) => {
        assertTyped(await operations[op]!(clientAnswering(status, JSON.stringify(body))));
      }),
      { numRuns: 300 },
    );
  });

  it('arbitrary text bodies (not JSON at all): a typed result', async () => {
    await fc.assert(
      fc.asyncProperty(statuses, fc.string({ maxLength: 200 }), fc.nat(4), async (status, body, op) => {
        assertTyped(await operations[op]!(clientAnswering(status, body)));
      }),
      { numRuns: 300 },
    );
  });

  it('valid bodies truncated at any point: a typed failure', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(4), fc.nat(), async (op, cutSeed) => {
        const text = JSON.stringify(validBodies[op]);
        const cut = text.slice(0, cutSeed % text.length);
        const result = await operations[op]!(clientAnswering(200, cut));
        assertTyped(result);
        expect(result.ok).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('valid bodies with one value swapped for a wrong-typed one: a typed result', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(4),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.oneof(fc.jsonValue(), fc.constant(undefined)),
        async (op, path, replacement) => {
          const body = mutate(validBodies[op], path, replacement);
          assertTyped(await operations[op]!(clientAnswering(200, JSON.stringify(body) ?? '')));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('the untouched valid bodies all succeed', async () => {
    for (const [op, body] of validBodies.entries()) {
      const result = await operations[op]!(clientAnswering(200, JSON.stringify(body)));
      expect(result.ok, JSON.stringify(result)).toBe(true);
    }
  });

  it('shipmentSchema.safeParse never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const result = shipmentSchema.safeParse(value);
        expect(typeof result.success).toBe('boolean');
      }),
      { numRuns: 500 },
    );
  });
});
