import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Shopify } from '@shopify/shopify-api';
import { z } from 'zod';
import { isStorableDate } from '../db/storable-text.js';
import { type TopicBodyFailure, verifyTopicBody } from './topic-bodies.js';

/**
 * Checks one delivery: the HMAC, the headers, that the body is a JSON object, and that it is a body of the
 * header's topic for the header's shop (the headers are not signed: see topic-bodies.ts). Returns a union
 * with a reason; `httpStatusFor` is the one place reasons become statuses.
 *
 * The HMAC is the platform's scheme (base64 HMAC-SHA256 of the raw body bytes with the app's secret, the very
 * key @shopify/shopify-api is configured with), checked with node:crypto and a constant-time comparison.
 * The library's `webhooks.validate` gives the same answer but costs about half a millisecond of CPU per
 * request in header canonicalisation and WebCrypto, a third of intake's budget on a busy day
 * (bench/results.md); test/webhooks/verify.test.ts holds both to the same verdicts.
 */

export interface VerifiedDelivery {
  topic: string;
  shopDomain: string;
  webhookId: string;
  /** X-Shopify-Event-Id, shared by every delivery of one merchant action; the webhook id when absent. */
  eventId: string;
  apiVersion: string | null;
  triggeredAt: Date | null;
  /** The body as text (the signed bytes, decoded as UTF-8), for storage. */
  rawBody: string;
  payload: Record<string, unknown>;
}

export type VerificationFailure =
  | 'missing_hmac'
  | 'invalid_hmac'
  | 'missing_headers'
  | 'malformed_headers'
  | 'malformed_body'
  | TopicBodyFailure;

export type Verification =
  { ok: true; delivery: VerifiedDelivery } | { ok: false; reason: VerificationFailure; detail: string };

export function httpStatusFor(reason: VerificationFailure): 400 | 401 | 403 {
  switch (reason) {
    case 'missing_hmac':
    case 'invalid_hmac':
      return 401;
    case 'missing_headers':
    case 'malformed_headers':
    case 'malformed_body':
    case 'unsupported_topic':
    case 'body_not_of_topic':
      return 400;
    case 'shop_mismatch':
      return 403;
  }
}

const headers = z.object({
  topic: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9_]+\/[a-z0-9_]+$/, 'topic is not of the form resource/event'),
  shopDomain: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9][a-z0-9-]*\.myshopify\.com$/, 'shop domain is not a *.myshopify.com domain'),
  webhookId: z.string().trim().min(1).max(255),
  eventId: z.string().trim().min(1).max(255).optional(),
  apiVersion: z.string().trim().max(32).optional(),
  triggeredAt: z.string().optional(),
});

/** The headers the platform always sends with a webhook (the library's list). */
const requiredHeaders = [
  'x-shopify-api-version',
  'x-shopify-shop-domain',
  'x-shopify-topic',
  'x-shopify-webhook-id',
] as const;

/**
 * Exactly the base64 digest of the bytes received, as the platform signs them and the library compares it
 * (no lenient decoding of what was sent; no text decoding of the body before it is checked).
 */
function validHmac(secret: string, rawBody: Uint8Array, received: string): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('base64'));
  const given = Buffer.from(received);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function verifyWebhook(shopify: Shopify, req: IncomingMessage, rawBody: Uint8Array): Verification {
  const hmac = header(req, 'x-shopify-hmac-sha256');
  if (!hmac) return { ok: false, reason: 'missing_hmac', detail: 'missing_hmac (X-Shopify-Hmac-Sha256)' };
  if (!validHmac(shopify.config.apiSecretKey, rawBody, hmac)) {
    return { ok: false, reason: 'invalid_hmac', detail: 'invalid_hmac' };
  }
  const missing = requiredHeaders.filter((name) => !header(req, name));
  if (missing.length > 0) {
    return { ok: false, reason: 'missing_headers', detail: `missing_headers (${missing.join(', ')})` };
  }
  const parsedHeaders = headers.safeParse({
    topic: header(req, 'x-shopify-topic'),
    shopDomain: header(req, 'x-shopify-shop-domain'),
    webhookId: header(req, 'x-shopify-webhook-id'),
    eventId: header(req, 'x-shopify-event-id') || undefined,
    apiVersion: header(req, 'x-shopify-api-version') || undefined,
    triggeredAt: header(req, 'x-shopify-triggered-at') || undefined,
  });
  if (!parsedHeaders.success) {
    return {
      ok: false,
      reason: 'malformed_headers',
      detail: parsedHeaders.error.issues.map((i) => i.message).join('; '),
    };
  }
  const text = Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8');
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'malformed_body', detail: 'body is not JSON' };
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    return { ok: false, reason: 'malformed_body', detail: 'body is not a JSON object' };
  }
  const h = parsedHeaders.data;
  const body = verifyTopicBody(h.topic, h.shopDomain, payload);
  if (!body.ok) return { ok: false, reason: body.reason, detail: body.detail };
  const triggeredAt = h.triggeredAt ? new Date(h.triggeredAt) : null;
  return {
    ok: true,
    delivery: {
      topic: h.topic,
      shopDomain: h.shopDomain,
      webhookId: h.webhookId,
      eventId: h.eventId ?? h.webhookId,
      apiVersion: h.apiVersion ?? null,
      // Informational only: an unreadable or unstorable date is dropped rather than failing the write.
      triggeredAt: triggeredAt && isStorableDate(triggeredAt) ? triggeredAt : null,
      rawBody: text,
      payload: payload as Record<string, unknown>,
    },
  };
}
