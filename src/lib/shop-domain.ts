const MYSHOPIFY_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

/** The shop's *.myshopify.com domain, lower-cased, or null when `value` is not one. */
export function myshopifyDomain(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const domain = value.trim().toLowerCase();
  return MYSHOPIFY_DOMAIN.test(domain) ? domain : null;
}
