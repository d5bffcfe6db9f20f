import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { myshopifyDomain, shopOfHttpsUrl } from '../lib/shop-domain.js';

/**
 * Session tokens of the order status extension (extensions/order-status-tracking): the JWT the platform
 * hands a customer account UI extension (`shopify.sessionToken.get()`), sent as `Authorization: Bearer`.
 * The platform documents its claims (customer account UI extensions, Session Token API): `dest` the shop
 * (`store-name.myshopify.com`), `aud` the app's client id, `exp` five minutes after issue, `nbf`, `iat`,
 * `jti`, and `sub`, the customer's GID (`gid://shopify/Customer/<id>`), present only when the customer is
 * logged in and the app may read customers; signed HS256 with the app's secret.
 *
 * Checked here, in this order, each failure its own reason: the header, the signature (HS256 only, the
 * app's secret, compared in constant time), the claims' shape, `exp` and `nbf` with a 10 s leeway, a
 * lifetime no longer than the platform's five minutes, the audience, the shop (`dest`, and `iss` when
 * present, on that same *.myshopify.com store), the customer. Whether the shop installed the app is the
 * caller's question (a database read): see src/proxy/order-status.ts.
 */

export type CustomerTokenFailure =
  | 'missing_token'
  | 'malformed'
  | 'unsupported_algorithm'
  | 'bad_signature'
  | 'expired'
  | 'not_yet_valid'
  | 'too_long_lived'
  | 'wrong_audience'
  | 'bad_shop'
  | 'no_customer';

export type CustomerTokenVerification =
  | { ok: true; shopDomain: string; customerId: string; expiresAt: Date }
  | { ok: false; reason: CustomerTokenFailure };

/** Clock difference allowed either way on `exp` and `nbf`, in seconds. */
export const customerTokenLeewayS = 10;
/** The platform's tokens live five minutes; one made to live longer was not made by it. */
export const customerTokenMaxLifetimeS = 5 * 60;
/** Longer than any token the platform makes: refused before any work. */
const maxTokenLength = 4096;

const customerGid = /^gid:\/\/shopify\/Customer\/(\d{1,20})$/;

const claimsSchema = z.object({
  exp: z.number().finite(),
  nbf: z.number().finite().optional(),
  iat: z.number().finite().optional(),
  aud: z.unknown(),
  dest: z.unknown(),
  iss: z.unknown().optional(),
  sub: z.unknown().optional(),
});

function jsonOf(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The shop a `dest` or `iss` names: `store.myshopify.com`, or an https URL on that host (an admin's
 * `https://store.myshopify.com/admin`), else null.
 */
export function shopNamedBy(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (!value.includes('/')) return myshopifyDomain(value) === value ? value : null;
  return shopOfHttpsUrl(value);
}

/** `Authorization: Bearer <token>` → the token, or undefined. */
export function bearerTokenOf(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

export function verifyCustomerAccountToken(
  config: { apiKey: string; apiSecret: string },
  token: string | undefined,
  nowMs: number,
): CustomerTokenVerification {
  const refuse = (reason: CustomerTokenFailure) => ({ ok: false, reason }) as const;
  if (!token) return refuse('missing_token');
  const parts = token.length <= maxTokenLength ? token.split('.') : [];
  if (parts.length !== 3 || !parts.every((p) => /^[A-Za-z0-9_-]+$/.test(p))) return refuse('malformed');
  const [headerPart, claimsPart, signaturePart] = parts as [string, string, string];
  const header = jsonOf(headerPart) as { alg?: unknown } | undefined;
  if (!header || typeof header !== 'object') return refuse('malformed');
  // Only the algorithm the platform signs with: never `none`, never one the token picks for itself.
  if (header.alg !== 'HS256') return refuse('unsupported_algorithm');
  const expected = createHmac('sha256', config.apiSecret).update(`${headerPart}.${claimsPart}`).digest();
  const given = Buffer.from(signaturePart, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return refuse('bad_signature');

  const parsed = claimsSchema.safeParse(jsonOf(claimsPart));
  if (!parsed.success) return refuse('malformed');
  const claims = parsed.data;
  const nowS = nowMs / 1000;
  if (claims.exp + customerTokenLeewayS <= nowS) return refuse('expired');
  if (claims.nbf !== undefined && claims.nbf - customerTokenLeewayS > nowS) return refuse('not_yet_valid');
  // The remaining lifetime and the whole one (from iat, else nbf) are bounded.
  const issued = claims.iat ?? claims.nbf;
  if (
    claims.exp - nowS > customerTokenMaxLifetimeS + customerTokenLeewayS ||
    (issued !== undefined && claims.exp - issued > customerTokenMaxLifetimeS)
  )
    return refuse('too_long_lived');
  if (claims.aud !== config.apiKey) return refuse('wrong_audience');
  const shopDomain = shopNamedBy(claims.dest);
  if (!shopDomain) return refuse('bad_shop');
  if (claims.iss !== undefined && shopNamedBy(claims.iss) !== shopDomain) return refuse('bad_shop');
  if (claims.sub === undefined) return refuse('no_customer');
  const customer = typeof claims.sub === 'string' ? customerGid.exec(claims.sub) : null;
  if (!customer) return refuse('malformed');
  return { ok: true, shopDomain, customerId: customer[1]!, expiresAt: new Date(claims.exp * 1000) };
}
