import { createHmac, randomUUID } from 'node:crypto';

/**
 * Signs webhook deliveries exactly as the store platform does, for the dev tools and the tests: the
 * signature is the base64 HMAC-SHA256 of the raw body, keyed with the app's client secret.
 */

/** The API version the platform stamps on deliveries (the app's admin API version, see src/shopify/api.ts). */
export const webhookApiVersion = '2026-10';

/** The platform's signature of a raw body: base64 HMAC-SHA256 with the app's client secret. */
export function signWebhookBody(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('base64');
}

export interface WebhookHeaderOptions {
  topic: string;
  shop: string;
  /** The raw body, exactly as it will be sent. */
  body: string;
  secret: string;
  /** Shared by every delivery of one merchant action: the duplicate key. Random when absent. */
  eventId?: string;
  /** Random when absent. */
  webhookId?: string;
  /** ISO time; now when absent. */
  triggeredAt?: string;
  apiVersion?: string;
}

/** Every header of a delivery as the platform sends it, with the body's signature. */
export function webhookHeaders(options: WebhookHeaderOptions): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-shopify-topic': options.topic,
    'x-shopify-hmac-sha256': signWebhookBody(options.body, options.secret),
    'x-shopify-shop-domain': options.shop,
    'x-shopify-api-version': options.apiVersion ?? webhookApiVersion,
    'x-shopify-webhook-id': options.webhookId ?? randomUUID(),
    'x-shopify-event-id': options.eventId ?? randomUUID(),
    'x-shopify-triggered-at': options.triggeredAt ?? new Date().toISOString(),
  };
}
