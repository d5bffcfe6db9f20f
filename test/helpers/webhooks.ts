import { readSample } from '../../tools/dev/samples.js';
import { signWebhookBody, webhookHeaders } from '../../tools/dev/webhook-sign.js';

/** A sample delivery's body by name (samples/shopify/, e.g. `fulfillments-create.ups`), a fresh copy each call. */
export function fixture(name: string): Record<string, unknown> {
  return readSample(name);
}

/** The platform's signature: base64 HMAC-SHA256 of the raw body with the app's client secret. */
export const signBody = signWebhookBody;

export interface DeliveryOptions {
  topic: string;
  shop: string;
  body: unknown;
  secret: string;
  /** Shared by every delivery of one merchant action: the duplicate key. */
  eventId?: string;
  webhookId?: string;
  triggeredAt?: string;
}

/** A signed delivery as the platform sends it: raw body and every header. */
export function signedDelivery(options: DeliveryOptions): { body: string; headers: Record<string, string> } {
  const body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  return {
    body,
    headers: webhookHeaders({
      topic: options.topic,
      shop: options.shop,
      body,
      secret: options.secret,
      eventId: options.eventId,
      webhookId: options.webhookId,
      triggeredAt: options.triggeredAt,
    }),
  };
}

/** POSTs a signed delivery to a running app; returns the status and body. */
export async function deliver(
  appUrl: string,
  options: DeliveryOptions,
): Promise<{ status: number; body: unknown }> {
  const { body, headers } = signedDelivery(options);
  const response = await fetch(`${appUrl}/webhooks`, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
}
