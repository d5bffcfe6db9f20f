import type { RequestHandler } from 'express';
import { myshopifyDomain } from '../../lib/shop-domain.js';

/**
 * The `host` the admin passes to an embedded app: base64 of the store admin's host, unpadded or padded —
 * `admin.shopify.com/store/<store>`, or `<store>.myshopify.com/admin` for older admins.
 */
const base64 = /^[A-Za-z0-9+/]+={0,2}$/;
const adminHosts = [
  /^admin\.shopify\.com\/store\/([a-z0-9][a-z0-9-]*)$/i,
  /^([a-z0-9][a-z0-9-]*)\.myshopify\.com\/admin$/i,
];

/**
 * Why `host` cannot be used for an OAuth start of `shop`, or null when it can (or, at the top level, is
 * absent: only an embedded start needs it). The same rules as @shopify/shopify-api's sanitizeHost, stricter,
 * and checked first: the library answers a missing host with a bare 500 and throws "Invalid URL" on one
 * that decodes to no URL.
 */
export function hostParamProblem(query: { host?: unknown; embedded?: unknown }, shop: string): string | null {
  const { host } = query;
  if (host === undefined)
    return query.embedded === '1' ? 'host is missing: open the app from the store admin' : null;
  if (typeof host !== 'string') return 'host must be given once';
  if (host === '') return 'host is empty: open the app from the store admin';
  if (host.length > 512 || !base64.test(host)) return 'host must be base64, as the store admin passes it';
  let decoded: string;
  try {
    decoded = atob(host);
  } catch {
    return 'host must be base64, as the store admin passes it';
  }
  const store = adminHosts.map((pattern) => pattern.exec(decoded)?.[1]).find((name) => name !== undefined);
  if (store === undefined)
    return "host must be base64 of the store admin's host (admin.shopify.com/store/<store>)";
  if (myshopifyDomain(`${store}.myshopify.com`) !== shop) return 'host names another store than shop';
  return null;
}

/** 400 with the reason unless `host` is fit for the OAuth start (after requireShopParam: `shop` is valid). */
export const requireHostParam: RequestHandler = (req, res, next) => {
  const shop = myshopifyDomain(req.query.shop) ?? '';
  const problem = hostParamProblem(req.query, shop);
  if (problem !== null) {
    res.status(400).json({ error: 'bad_request', reason: problem });
    return;
  }
  next();
};
