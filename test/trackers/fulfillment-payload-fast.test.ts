import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fulfillmentPayload,
  isPlainFulfillment,
  parseFulfillmentPayload,
  readFulfillmentFast,
} from '../../src/trackers/fulfillment-payload.js';
import { checkTopicBody, topicBodies, verifyTopicBody } from '../../src/webhooks/topic-bodies.js';
import { fixture } from '../helpers/webhooks.js';

/**
 * The hand-read fulfilment body (the intake's and the worker's hot path) against the zod schema, the
 * reference: whatever the fast reader takes, the schema takes with the very same result; what it leaves,
 * the schema decides. And it does take the store's ordinary bodies, or it would be no faster.
 */

const fixtures = [
  'fulfillments-create.ups',
  'fulfillments-create.dhl-two-parcels',
  'fulfillments-create.postnl-needs-postcode',
  'fulfillments-update.cancelled',
  'fulfillments-update.tracking-corrected',
];

/** A field absent (undefined drops it from the object), or one of these. */
const field = <T>(...values: fc.Arbitrary<T>[]) =>
  fc.oneof(fc.constant(undefined), fc.constant(null), ...values, fc.jsonValue());

const text = fc.oneof(
  fc.constantFrom('', ' ', 'UPS', ' DHL Express ', 'a\u0000b', 'x\ud800', '\u0007', 'É'),
  fc.string({ maxLength: 12 }),
  fc.string({ minLength: 495, maxLength: 510 }),
);
const id = fc.oneof(
  fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  fc.constantFrom(-1, 1.5, 2 ** 53, 2 ** 60, -0, 5521012345678),
  fc.constantFrom('42', ' 42 ', '', 'abc', '12a', '٣', '0x1f', '1e3', '00012'),
  fc.nat().map(String),
);
const timestamp = fc.oneof(
  fc.constantFrom(
    '2026-11-18T10:21:43-05:00',
    '2026-11-18T15:21:43Z',
    'yesterday',
    '',
    '0000-01-01T00:00:00Z',
  ),
  fc.constantFrom('+275760-09-13T00:00:00Z', '10000-01-01T00:00:00Z', '2026-02-30'),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
);
const numbers = fc.oneof(
  fc.array(fc.option(text, { nil: null }), { maxLength: 5 }),
  fc.array(fc.jsonValue(), { maxLength: 3 }),
  fc.constant(Array.from({ length: 260 }, (_, i) => `N${i}`)),
);
const urls = fc.oneof(
  fc.array(fc.oneof(fc.constantFrom('https://x.example/t', 'javascript:alert(1)', ''), fc.jsonValue()), {
    maxLength: 4,
  }),
  fc.constantFrom('nope', 7),
);
const destination = fc.oneof(
  fc.record({ zip: field(text), country_code: field(text), city: field(text) }, { requiredKeys: [] }),
  fc.constantFrom([], 'DE'),
);

/** Each field's wild values: absent, null, well- and ill-formed, any JSON. */
const wild = {
  id: field(id),
  order_id: field(id),
  status: field(text, fc.constantFrom('success', ' Cancelled ')),
  created_at: field(timestamp),
  updated_at: field(timestamp),
  tracking_company: field(text),
  tracking_number: field(text),
  tracking_numbers: field(numbers),
  tracking_url: field(text, fc.constant('https://www.ups.com/track?n=1')),
  tracking_urls: field(urls),
  destination: field(destination),
  name: field(text, fc.constant('#1001.1')),
  email: field(text, fc.constantFrom('jane@example.com', ' jane@example.com ', 'not an email')),
};

/** A store fixture with a few of its fields replaced by wild values (or removed). */
const nearFixture = fc
  .tuple(
    fc.constantFrom(...fixtures),
    fc.uniqueArray(fc.constantFrom(...(Object.keys(wild) as Array<keyof typeof wild>)), { maxLength: 3 }),
  )
  .chain(([name, keys]) =>
    fc.tuple(...keys.map((k) => wild[k])).map((values) => {
      const input: Record<string, unknown> = { ...fixture(name) };
      keys.forEach((k, i) => {
        if (values[i] === undefined) delete input[k];
        else input[k] = values[i];
      });
      return input;
    }),
  );

const body = fc.oneof(nearFixture, fc.record(wild, { requiredKeys: [] }), fc.jsonValue());

describe('the hand-read fulfilment body', () => {
  it('reads every store fixture itself, exactly as the schema does', () => {
    for (const name of fixtures) {
      const input = fixture(name);
      const fast = readFulfillmentFast(input);
      expect(fast, name).not.toBeNull();
      expect(fast).toEqual(fulfillmentPayload.parse(input));
    }
  });

  it('takes only what the schema takes, with the same result (property, over well- and ill-formed bodies)', () => {
    let taken = 0;
    fc.assert(
      fc.property(body, (input) => {
        const fast = readFulfillmentFast(input);
        const reference = fulfillmentPayload.safeParse(input);
        if (fast === null) return;
        taken++;
        expect(reference.success).toBe(true);
        expect(fast).toEqual(reference.data);
      }),
      { numRuns: 5_000 },
    );
    // Not only empty shells: many generated bodies are well-formed, and those the fast reader must take.
    expect(taken).toBeGreaterThan(200);
  });

  it('leaves the rest to the schema, which decides and words the refusal', () => {
    fc.assert(
      fc.property(body, (input) => {
        const parsed = parseFulfillmentPayload(input);
        const reference = fulfillmentPayload.safeParse(input);
        expect(parsed.success).toBe(reference.success);
        if (parsed.success) expect(parsed.data).toEqual(reference.data);
        else expect(parsed.error.issues).toEqual(reference.error!.issues);
      }),
      { numRuns: 2_000 },
    );
  });

  it("is intake's verdict: the same as the full check's, for every topic, shop and body (property)", () => {
    const topics = [...Object.keys(topicBodies), 'products/update'];
    const bodies = fc.oneof(body, fc.constantFrom(fixture('orders-cancelled')));
    fc.assert(
      fc.property(
        fc.constantFrom(...topics),
        fc.constantFrom('a.myshopify.com', 'b.myshopify.com'),
        bodies,
        (topic, shop, input) => {
          const full = checkTopicBody(topic, shop, input);
          const verdict = verifyTopicBody(topic, shop, input);
          expect(verdict.ok).toBe(full.ok);
          if (!full.ok) expect(verdict).toEqual(full);
          if (isPlainFulfillment(input)) expect(readFulfillmentFast(input)).not.toBeNull();
        },
      ),
      { numRuns: 3_000 },
    );
  });
});
