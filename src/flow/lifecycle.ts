import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { DatabaseClient } from '../db/client.js';
import { shopIdByDomain } from '../shops/shop-repository.js';
import { dropTriggerInUse, writeTriggerInUse } from './queries/flow-events.js';
import { myshopifyDomain } from '../lib/shop-domain.js';
import { type FlowTriggerHandle, handleOfDefinition } from './triggers.js';

/**
 * Shopify Flow's trigger lifecycle callback: a signed POST telling the app whether a store has an enabled
 * workflow on one of its triggers, so triggers are queued only for the stores that use them. The body is
 * JSON (`flow_trigger_definition_id`, `has_enabled_flow`, `shop_id`, `shopify_domain`, `timestamp`), signed
 * like a webhook: base64 HMAC-SHA256 of the raw body with the app's secret, in X-Shopify-Hmac-SHA256.
 * Flow waits at most five seconds for a 2xx, or the merchant cannot turn the workflow on.
 *
 * Newer callbacks win: the stored row's `updatedAt` is the callback's `timestamp`, and an older callback
 * changes nothing (the platform's advice). A `timestamp` more than `maxCallbackLeadMs` ahead of the app's
 * clock is clamped to the time it arrived: it is applied (a refusal would stop the merchant turning the
 * workflow on, and the body is signed by the platform), but it cannot stand as the newest for ever and hide
 * every later real callback (one dated 9999-12-31 did). A row stored with such a time earlier holds no
 * callback back.
 */

/** How far ahead of the app's clock a callback's time is taken as sent: clocks drift, a little. */
export const maxCallbackLeadMs = 5 * 60_000;

export interface LifecycleCallback {
  definitionId: string;
  enabled: boolean;
  shopDomain: string;
  timestamp: Date;
}

export type LifecycleFailure = 'missing_hmac' | 'invalid_hmac' | 'malformed_body';

export type LifecycleVerification =
  { ok: true; callback: LifecycleCallback } | { ok: false; reason: LifecycleFailure; detail: string };

/** The one place a refusal becomes an HTTP status. */
export function lifecycleStatusFor(reason: LifecycleFailure): 400 | 401 {
  switch (reason) {
    case 'missing_hmac':
    case 'invalid_hmac':
      return 401;
    case 'malformed_body':
      return 400;
  }
}

const body = z.object({
  flow_trigger_definition_id: z.string().trim().min(1).max(255),
  has_enabled_flow: z.boolean(),
  // Documented as a number, shown as a string in the platform's example: either is taken.
  shop_id: z.union([z.number().int().positive(), z.string().regex(/^\d+$/)]),
  shopify_domain: z.string().transform((value, ctx) => {
    const domain = myshopifyDomain(value);
    if (!domain) ctx.addIssue({ code: 'custom', message: 'shopify_domain is not a *.myshopify.com domain' });
    return domain ?? '';
  }),
  timestamp: z.iso.datetime({ offset: true }),
});

/** Exactly the base64 digest of the bytes received, compared in constant time. */
function validHmac(secret: string, rawBody: Uint8Array, received: string): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('base64'));
  const given = Buffer.from(received);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Checks a callback's signature, then its body. */
export function verifyLifecycleCallback(
  secret: string,
  hmac: string | undefined,
  rawBody: Uint8Array,
): LifecycleVerification {
  if (!hmac) return { ok: false, reason: 'missing_hmac', detail: 'missing X-Shopify-Hmac-SHA256' };
  if (!validHmac(secret, rawBody, hmac)) return { ok: false, reason: 'invalid_hmac', detail: 'invalid_hmac' };
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed_body', detail: 'body is not JSON' };
  }
  const parsed = body.safeParse(json);
  if (!parsed.success) {
    return {
      ok: false,
      reason: 'malformed_body',
      detail: parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
    };
  }
  return {
    ok: true,
    callback: {
      definitionId: parsed.data.flow_trigger_definition_id,
      enabled: parsed.data.has_enabled_flow,
      shopDomain: parsed.data.shopify_domain,
      timestamp: new Date(parsed.data.timestamp),
    },
  };
}

/**
 * What a callback did: the trigger is now in use by the shop or not, an older callback changed nothing
 * (`stale`), or it named a shop or a trigger this app does not know (answered 200 all the same, so the
 * merchant is never blocked by it).
 */
export type LifecycleResult =
  | {
      kind: 'enabled' | 'disabled' | 'stale';
      shopId: string;
      handle: FlowTriggerHandle;
      /** The callback's time was too far ahead and taken as its arrival (`maxCallbackLeadMs`). */
      clamped: boolean;
    }
  | { kind: 'unknown_shop' }
  | { kind: 'unknown_trigger'; shopId: string };

/** Records whether the shop uses the trigger: its FlowTriggerInUse row written or deleted. */
export async function applyLifecycleCallback(
  prisma: DatabaseClient,
  callback: LifecycleCallback,
  now: Date = new Date(),
): Promise<LifecycleResult> {
  const shop = await shopIdByDomain(prisma, callback.shopDomain);
  if (!shop) return { kind: 'unknown_shop' };
  const handle = handleOfDefinition(callback.definitionId);
  if (!handle) return { kind: 'unknown_trigger', shopId: shop.id };
  const latestAllowed = new Date(now.getTime() + maxCallbackLeadMs);
  const clamped = callback.timestamp > latestAllowed;
  const at = clamped ? now : callback.timestamp;
  if (!callback.enabled) {
    const { newer } = await dropTriggerInUse(prisma, shop.id, handle, at, latestAllowed);
    return { kind: newer > 0 ? 'stale' : 'disabled', shopId: shop.id, handle, clamped };
  }
  // One statement: written unless a newer callback's row is there.
  const written = await writeTriggerInUse(prisma, shop.id, handle, at, latestAllowed);
  return { kind: written ? 'enabled' : 'stale', shopId: shop.id, handle, clamped };
}
