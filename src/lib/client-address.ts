import { isIPv4, isIPv6 } from 'node:net';
import type { Request } from 'express';

/**
 * Who sent a request, by the one rule the whole app uses.
 *
 * The app trusts only the proxies actually in front of it (TRUST_PROXY, set on Express as `trust proxy`):
 * walking the chain from the socket's address back through `X-Forwarded-For` (right to left, each hop
 * appends the address it saw), the client is the first address a trusted hop did not vouch for. Anything
 * further left was written by the client itself and is never used. This is Express's own `req.ip`.
 *
 * A shoppers' page request came through one more proxy: the platform's app proxy, which appends the
 * shopper's address to `X-Forwarded-For` and is the first untrusted hop as seen from here. Such requests
 * carry the platform's signature (checked first), so for them the address that proxy appended is taken:
 * one hop further than `req.ip`. With no such entry (a request that did not come through it, e.g. the dev
 * proxy's redirect), the address stays `req.ip`.
 */
export function clientAddress(req: Request, options: { viaPlatformProxy?: boolean } = {}): string {
  const trust = req.app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  const chain = [req.socket.remoteAddress ?? '', ...forwardedFor(req)];
  let hop = 0;
  while (hop < chain.length - 1 && trust(chain[hop]!, hop)) hop++;
  if (options.viaPlatformProxy && hop < chain.length - 1) hop++;
  return chain[hop]!;
}

/** The `X-Forwarded-For` addresses, nearest first (every header of that name, as Node joins them). */
function forwardedFor(req: Request): string[] {
  const header = req.headers['x-forwarded-for'];
  if (!header) return [];
  return ([] as string[])
    .concat(header)
    .join(',')
    .split(',')
    .map((address) => address.trim())
    .reverse();
}

/**
 * The key a limit counts an address under: an IPv4 address as itself (also when written as IPv6-mapped);
 * an IPv6 address by its /56 prefix, the block a provider gives one subscriber (one machine alone can use
 * any of 2^64 addresses in its /64). Anything else (not an address) is kept as written, cut to 64 chars.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (isIPv4(address)) return address;
  const groups = ipv6Groups(address);
  if (!groups) return address.slice(0, 64);
  const prefix = [groups[0]!, groups[1]!, groups[2]!, groups[3]! & 0xff00].map((g) => g.toString(16));
  return `${prefix.join(':')}::/56`;
}

/** The eight 16-bit groups of an IPv6 address (zone dropped), or null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  const bare = address.split('%')[0]!;
  if (!isIPv6(bare)) return null;
  let text = bare;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':') : []);
  const missing = 8 - part(head).length - part(tail).length;
  const all = [...part(head), ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...part(tail)];
  return all.length === 8 ? all.map((g) => parseInt(g, 16)) : null;
}
