import { createHmac } from 'node:crypto';

/**
 * A query string signed the way the platform signs app proxy requests, computed here independently of
 * src/proxy: every parameter but `signature`, sorted by name, `key=value` (several values joined by
 * commas), concatenated, HMAC-SHA256 with the app secret, hex.
 */
export function signedProxyQuery(
  params: Record<string, string | string[]>,
  secret: string,
  timestamp: number = Math.floor(Date.now() / 1000),
): string {
  const all: Record<string, string | string[]> = { timestamp: String(timestamp), ...params };
  const message = Object.keys(all)
    .sort()
    .map((key) => `${key}=${([] as string[]).concat(all[key]!).join(',')}`)
    .join('');
  const signature = createHmac('sha256', secret).update(message).digest('hex');
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(all))
    for (const v of ([] as string[]).concat(value)) query.append(key, v);
  query.append('signature', signature);
  return query.toString();
}

let clients = 0;
/** A new client address each time (the rate limit counts lookups per address). */
export function clientAddress(): string {
  clients += 1;
  return `198.51.${Math.floor(clients / 250) % 250}.${(clients % 250) + 1}`;
}
