import type { ProblemKind } from '../shipments/problem-words.js';

/** The store's handle, as the admin names it: the shop domain without `.myshopify.com`. */
export function storeHandle(shopDomain: string): string {
  return shopDomain.replace(/\.myshopify\.com$/i, '');
}

/**
 * Where a notification sends the merchant: the app's "Needs attention" page inside the store admin,
 * filtered to one kind of problem (or all of them). The one place such a link is built.
 */
export function attentionUrl(shopDomain: string, appApiKey: string, kind?: ProblemKind): string {
  const store = encodeURIComponent(storeHandle(shopDomain));
  const base = `https://admin.shopify.com/store/${store}/apps/${encodeURIComponent(appApiKey)}/attention`;
  return kind ? `${base}?kind=${encodeURIComponent(kind)}` : base;
}
