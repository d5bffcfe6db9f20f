import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Shopify } from '@shopify/shopify-api';
import { z } from 'zod';
import { isStorableDate } from './payloads.js';

/**
 * Checks one delivery: the HMAC (through @shopify/shopify-api), the headers, and that the body is a JSON
 * object. Returns a union with a reason; `httpStatusFor` is the one place reasons become statuses.
 */

export interface VerifiedDelivery {
  topic: string;
  shopDomain: string;
  webhookId: string;
  /** X-Shopify-Event-Id, shared by every delivery of one merchant action; the webhook id when absent. */
  eventId: string;
  apiVersion: string | null;
  triggeredAt: Date | null;
  /** The raw body, exactly as signed. */
  rawBody: string;
  payload: Record<string, unknown>;
}

export type VerificationFailure =
  'missing_hmac' | 'invalid_hmac' | 'missing_headers' | 'malformed_headers' | 'malformed_body';

export type Verification =
  { ok: true; delivery: VerifiedDelivery } | { ok: false; reason: VerificationFailure; detail: string };

export function httpStatusFor(reason: VerificationFailure): 400 | 401 {
  switch (reason) {
    case 'missing_hmac':
    case 'invalid_hmac':
      return 401;
    case 'missing_headers':
    case 'malformed_headers':
    case 'malformed_body':
      return 400;
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

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export async function verifyWebhook(
  shopify: Shopify,
  req: IncomingMessage,
  res: ServerResponse,
  rawBody: string,
): Promise<Verification> {
  const check = await shopify.webhooks.validate({ rawBody, rawRequest: req, rawResponse: res });
  if (!check.valid) {
    const reason: VerificationFailure =
      check.reason === 'missing_hmac'
        ? 'missing_hmac'
        : check.reason === 'invalid_hmac'
          ? 'invalid_hmac'
          : 'missing_headers';
    const missing = 'missingHeaders' in check ? ` (${String(check.missingHeaders)})` : '';
    return { ok: false, reason, detail: `${check.reason}${missing}` };
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
  let payload: unknown;
  try {
    payload = JSON.parse(rawBody);
  } catch {
    return { ok: false, reason: 'malformed_body', detail: 'body is not JSON' };
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    return { ok: false, reason: 'malformed_body', detail: 'body is not a JSON object' };
  }
  const h = parsedHeaders.data;
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
      rawBody,
      payload: payload as Record<string, unknown>,
    },
  };
}
