import { createHmac, timingSafeEqual } from 'node:crypto';
import { myshopifyDomain } from '../lib/shop-domain.js';

/**
 * App proxy requests (`https://<shop>/apps/track…` → `GET /proxy…`) carry the platform's `signature`: the
 * hex HMAC-SHA256, with the app's secret, of every other query parameter sorted by name, each written
 * `key=value` (a parameter given several times: its values joined by commas), concatenated with nothing
 * between. @shopify/shopify-api validates the same signature but allows only 90 s of clock difference and
 * throws; this returns why a request is refused, with the 5 minutes the page allows either way.
 */

export const proxyClockToleranceS = 300;

/** Parameters that must appear once (a second value would change what was signed). */
const single = new Set(['shop', 'signature', 'timestamp', 'path_prefix', 'logged_in_customer_id']);

export type ProxyVerification =
  | { ok: true; shop: string; loggedInCustomerId: string | null; params: Map<string, string[]> }
  | {
      ok: false;
      reason: 'missing_signature' | 'bad_signature' | 'repeated_parameter' | 'stale' | 'bad_shop';
    };

/** The string the platform signs: the parameters but `signature`, sorted by name (code units). */
export function proxySignedString(params: Map<string, string[]>): string {
  return [...params.keys()]
    .filter((key) => key !== 'signature')
    .sort()
    .map((key) => `${key}=${params.get(key)!.join(',')}`)
    .join('');
}

export function signProxyString(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text, 'utf8').digest('hex');
}

/** The query as the platform sent it: every value of every name, in order. */
export function proxyParams(search: string): Map<string, string[]> {
  const params = new Map<string, string[]>();
  for (const [key, value] of new URLSearchParams(search)) {
    const values = params.get(key) ?? [];
    values.push(value);
    params.set(key, values);
  }
  return params;
}

export function verifyProxyRequest(
  secret: string,
  search: string,
  nowMs: number = Date.now(),
): ProxyVerification {
  const params = proxyParams(search);
  for (const key of single)
    if ((params.get(key)?.length ?? 0) > 1) return { ok: false, reason: 'repeated_parameter' };
  const signature = params.get('signature')?.[0];
  if (!signature) return { ok: false, reason: 'missing_signature' };
  const expected = Buffer.from(signProxyString(secret, proxySignedString(params)), 'hex');
  const given = /^[0-9a-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad_signature' };
  }
  const timestamp = Number(params.get('timestamp')?.[0]);
  if (!Number.isInteger(timestamp) || Math.abs(nowMs / 1000 - timestamp) > proxyClockToleranceS) {
    return { ok: false, reason: 'stale' };
  }
  const shop = myshopifyDomain(params.get('shop')?.[0]);
  if (!shop) return { ok: false, reason: 'bad_shop' };
  const customer = params.get('logged_in_customer_id')?.[0]?.trim() ?? '';
  return { ok: true, shop, loggedInCustomerId: customer === '' ? null : customer, params };
}

/** A query signed as the platform signs proxy requests (the dev tool's links; the platform signs real ones). */
export function signProxyQuery(
  secret: string,
  params: Record<string, string>,
  timestampS: number = Math.floor(Date.now() / 1000),
): string {
  const all = new Map<string, string[]>(
    Object.entries({ ...params, timestamp: String(timestampS) }).map(([k, v]) => [k, [v]]),
  );
  const query = new URLSearchParams();
  for (const [key, [value]] of all) query.set(key, value!);
  query.set('signature', signProxyString(secret, proxySignedString(all)));
  return query.toString();
}
