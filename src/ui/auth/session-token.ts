import { shopOfHttpsUrl } from '../../lib/shop-domain.js';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { JwtPayload, Shopify } from '@shopify/shopify-api';
import type { RequestHandler } from 'express';
import { shopifyApiOf, type TracksyncShopify } from '../../shopify/api.js';
import { type Logger, silentLogger } from '../../logger.js';

/**
 * Session tokens (App Bridge's JWTs) for the page's API and the embedded page load.
 *
 * A token is verified by @shopify/shopify-api's decodeSessionToken (HS256 with the app secret, exp and
 * nbf with its 10 s tolerance); it must not live longer than the platform's tokens (MAX_TOKEN_LIFETIME_S,
 * from now and from its iat/nbf); then its audience must be our API key, and its `dest` an https
 * *.myshopify.com origin (with `iss` on that same shop's admin when present). The shop comes from the
 * token and from nowhere else: a query string or body naming another shop changes nothing.
 */

export type SessionTokenFailure =
  'missing_token' | 'invalid_token' | 'expired' | 'too_long_lived' | 'wrong_audience' | 'bad_shop';

export type SessionTokenVerification =
  { ok: true; shopDomain: string; payload: JwtPayload } | { ok: false; reason: SessionTokenFailure };

/** App Bridge fetches a fresh token and repeats the request when it sees this header on a 401. */
export const RETRY_INVALID_SESSION_HEADER = 'X-Shopify-Retry-Invalid-Session-Request';

/** decodeSessionToken's own clock tolerance, in seconds. */
const CLOCK_TOLERANCE_S = 10;

/**
 * The longest a session token may live, clock skew included. The platform's tokens live one minute; a
 * token valid for longer (say until the year 2100) was not made by it, or is a leaked token made to last.
 */
export const MAX_TOKEN_LIFETIME_S = 5 * 60;

export async function verifySessionToken(
  shopify: TracksyncShopify | Shopify,
  token: string | undefined,
  now: () => number = Date.now,
): Promise<SessionTokenVerification> {
  const api = 'api' in shopify ? shopifyApiOf(shopify) : shopify;
  if (!token) return { ok: false, reason: 'missing_token' };
  let payload: JwtPayload;
  try {
    payload = await api.session.decodeSessionToken(token, { checkAudience: false });
  } catch {
    return {
      ok: false,
      reason: isSignedButExpired(token, api.config.apiSecretKey, now()) ? 'expired' : 'invalid_token',
    };
  }
  // jose checks exp only when there is one; a token that never expires is not a session token.
  if (typeof payload.exp !== 'number') return { ok: false, reason: 'invalid_token' };
  // Both the remaining lifetime and the whole lifetime (from iat or nbf, when given) are bounded.
  const issued =
    typeof payload.iat === 'number' ? payload.iat : typeof payload.nbf === 'number' ? payload.nbf : null;
  if (
    payload.exp - now() / 1000 > MAX_TOKEN_LIFETIME_S ||
    (issued !== null && payload.exp - issued > MAX_TOKEN_LIFETIME_S)
  )
    return { ok: false, reason: 'too_long_lived' };
  if (payload.aud !== api.config.apiKey) return { ok: false, reason: 'wrong_audience' };
  const shopDomain = shopOfHttpsUrl(payload.dest);
  if (!shopDomain) return { ok: false, reason: 'bad_shop' };
  if (payload.iss !== undefined && shopOfHttpsUrl(payload.iss) !== shopDomain)
    return { ok: false, reason: 'bad_shop' };
  return { ok: true, shopDomain, payload };
}

/**
 * Only to name the failure: whether a token decodeSessionToken refused carries our signature and an
 * `exp` already past (a stale token, as opposed to a forged or broken one).
 */
function isSignedButExpired(token: string, secret: string, nowMs: number): boolean {
  const parts = token.split('.');
  if (parts.length !== 3) return false;
  const [header, body, signature] = parts as [string, string, string];
  const expected = createHmac('sha256', secret).update(`${header}.${body}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  try {
    const alg = (JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown }).alg;
    const exp = (JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return alg === 'HS256' && typeof exp === 'number' && exp + CLOCK_TOLERANCE_S <= nowMs / 1000;
  } catch {
    return false;
  }
}

/** `Authorization: Bearer <token>` → the token, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/**
 * Express middleware for the page's API (/api/*, not the OAuth routes): a valid session token, or 401
 * `{"error":"unauthorized","reason":…}` with X-Shopify-Retry-Invalid-Session-Request: 1. On success
 * `res.locals.shopDomain` is the token's shop — the only shop the API may read or change.
 */
export function requireSessionToken(
  shopify: TracksyncShopify | Shopify,
  options: { logger?: Logger } = {},
): RequestHandler {
  const logger = options.logger ?? silentLogger;
  return async (req, res, next) => {
    const verification = await verifySessionToken(shopify, bearerToken(req.headers.authorization));
    if (!verification.ok) {
      logger.debug({ reason: verification.reason, path: req.path }, 'page API request refused');
      res
        .status(401)
        .set(RETRY_INVALID_SESSION_HEADER, '1')
        .set('Cache-Control', 'no-store')
        .json({ error: 'unauthorized', reason: verification.reason });
      return;
    }
    res.locals.shopDomain = verification.shopDomain;
    next();
  };
}
