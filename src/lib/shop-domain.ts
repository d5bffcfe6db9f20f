const MYSHOPIFY_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

/** The shop's *.myshopify.com domain, lower-cased, or null when `value` is not one. */
export function myshopifyDomain(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const domain = value.trim().toLowerCase();
  return MYSHOPIFY_DOMAIN.test(domain) ? domain : null;
}

/**
 * The shop of an `https://<shop>.myshopify.com` URL (a path such as /admin allowed; no port, no user), as
 * session tokens name it in `dest` and `iss`; else null.
 */
export function shopOfHttpsUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.port !== '' || url.username !== '' || url.password !== '') return null;
  return myshopifyDomain(url.hostname);
}
