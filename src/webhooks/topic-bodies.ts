import type { z } from 'zod';
import {
  type FulfillmentPayload,
  isPlainFulfillment,
  orderCancelledPayload,
  parseFulfillmentPayload,
} from '../trackers/fulfillment-payload.js';
import {
  appUninstalledPayload,
  customersDataRequestPayload,
  customersRedactPayload,
  shopRedactPayload,
} from './payloads.js';

/**
 * What each topic's body must be, and which of its fields name a shop.
 *
 * The platform's HMAC covers the body only: the topic and shop headers are not signed, so a captured body
 * with its signature can be re-sent under any topic and any shop. A delivery is therefore only taken when
 * its body parses as its own topic's schema and every field in it that names a shop names the header's
 * shop. Intake refuses anything else before it is stored, and the worker checks again before applying a
 * stored body (deliveries stored before this check existed), with this one function.
 */

interface TopicBodySpec<T> {
  /** The body read as the topic's (a zod schema's safeParse, or a reader that answers alike). */
  parse(payload: unknown): z.ZodSafeParseResult<T>;
  /** The shop names the body carries, each of which must equal the header's shop. */
  shopNames(body: T): Array<string | null | undefined>;
  /**
   * For a topic whose bodies name no shop: true when a body is plainly of the topic (parse would take it),
   * told without reading it whole. False says nothing: parse decides.
   */
  plainlyOfTopic?(payload: unknown): boolean;
}

function spec<T>(schema: z.ZodType<T>, shopNames: (body: T) => Array<string | null | undefined>) {
  return { parse: (payload: unknown) => schema.safeParse(payload), shopNames } satisfies TopicBodySpec<T>;
}

/** Fulfilments, the busiest topics: read by hand where plainly well-formed, else by their schema. */
const fulfillmentSpec = {
  parse: parseFulfillmentPayload,
  shopNames: () => [],
  plainlyOfTopic: isPlainFulfillment,
} satisfies TopicBodySpec<FulfillmentPayload>;

/** A `*.myshopify.com` name; anything else in a Shop's `domain` is the merchant's own custom domain. */
const isPlatformDomain = (domain: string) => domain.endsWith('.myshopify.com');

export const topicBodies = {
  'fulfillments/create': fulfillmentSpec,
  'fulfillments/update': fulfillmentSpec,
  'orders/cancelled': spec(orderCancelledPayload, () => []),
  'app/uninstalled': spec(appUninstalledPayload, (b) => [
    b.myshopify_domain,
    // A custom primary domain cannot be compared with the header; a platform one must match.
    b.domain && isPlatformDomain(b.domain) ? b.domain : null,
  ]),
  'customers/data_request': spec(customersDataRequestPayload, (b) => [b.shop_domain]),
  'customers/redact': spec(customersRedactPayload, (b) => [b.shop_domain]),
  'shop/redact': spec(shopRedactPayload, (b) => [b.shop_domain]),
};

export type SupportedTopic = keyof typeof topicBodies;
export type TopicBody<T extends SupportedTopic> =
  ReturnType<(typeof topicBodies)[T]['parse']> extends z.ZodSafeParseResult<infer B> ? B : never;

/** A body that passed its topic's checks, typed by topic. */
export type CheckedBody = { [T in SupportedTopic]: { topic: T; body: TopicBody<T> } }[SupportedTopic];

export type TopicBodyFailure = 'unsupported_topic' | 'body_not_of_topic' | 'shop_mismatch';

export type TopicBodyCheck =
  { ok: true; checked: CheckedBody } | { ok: false; reason: TopicBodyFailure; detail: string };

export function isSupportedTopic(topic: string): topic is SupportedTopic {
  return Object.hasOwn(topicBodies, topic);
}

/** At most this many issues are named in a refusal: enough to fix a body, never a wall of text. */
const issuesShown = 3;

/** A stored delivery's body checked as its topic's (a body that is not JSON fails like any other). */
export function checkStoredBody(delivery: {
  topic: string;
  shopDomain: string;
  payload: string;
}): TopicBodyCheck {
  let payload: unknown;
  try {
    payload = JSON.parse(delivery.payload);
  } catch {
    payload = undefined;
  }
  return checkTopicBody(delivery.topic, delivery.shopDomain, payload);
}

/**
 * Intake's check: the verdict alone (the body is stored as received, and read again by the worker). A body
 * plainly of a topic that names no shop is taken without being read whole; anything else is checked in full.
 */
export function verifyTopicBody(
  topic: string,
  shopDomain: string,
  payload: unknown,
): { ok: true } | Extract<TopicBodyCheck, { ok: false }> {
  if (isSupportedTopic(topic) && (topicBodies[topic] as TopicBodySpec<unknown>).plainlyOfTopic?.(payload)) {
    return { ok: true };
  }
  const check = checkTopicBody(topic, shopDomain, payload);
  return check.ok ? { ok: true } : check;
}

export function checkTopicBody(topic: string, shopDomain: string, payload: unknown): TopicBodyCheck {
  if (!isSupportedTopic(topic)) {
    return { ok: false, reason: 'unsupported_topic', detail: `topic ${topic} is not one this app handles` };
  }
  return checkSupported(topic, shopDomain, payload);
}

function checkSupported<T extends SupportedTopic>(
  topic: T,
  shopDomain: string,
  payload: unknown,
): TopicBodyCheck {
  // Each entry's parse and shopNames agree on the body type (spec() ties them); the union loses that.
  const { parse, shopNames } = topicBodies[topic] as unknown as TopicBodySpec<TopicBody<T>>;
  const parsed = parse(payload);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, issuesShown)
      .map((i) => `${i.path.map(String).join('.') || '(body)'}: ${i.message}`)
      .join('; ');
    return { ok: false, reason: 'body_not_of_topic', detail: `not a ${topic} body (${issues})` };
  }
  const expected = shopDomain.toLowerCase();
  const other = shopNames(parsed.data).find((name) => name != null && name.toLowerCase() !== expected);
  if (other != null) {
    return {
      ok: false,
      reason: 'shop_mismatch',
      detail: `the body names another shop than the X-Shopify-Shop-Domain header (${expected})`,
    };
  }
  return { ok: true, checked: { topic, body: parsed.data } as CheckedBody };
}
