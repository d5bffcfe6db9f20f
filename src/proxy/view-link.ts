import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A link to one parcel's or one order's view on the shoppers' page that needs no e-mail again: what the
 * page's "Copy link" gives and what the order status extension links to. The `view` parameter carries the
 * shop, what it shows and until when, signed with a key derived from the app's secret (never the secret
 * itself); it opens the same view until it expires, and only in its own shop.
 *
 * A link is never renewed: a page opened from a link shares that same link, so no link opens its view past
 * the lifetime of the first one. It carries when it was made, and opens nothing when made before the shop
 * cut its links off (an uninstall: `Shop.viewLinksValidFrom`) or before a customers/redact named its order
 * (`TrackingLine.redactedAt`): both read with the rows the page reads anyway, so a check costs nothing more.
 * Links of the first format (no issue time) were all made `viewLinkLifetimeMs` before their expiry.
 */

export type ViewTarget = { kind: 'parcel'; trackingNumber: string } | { kind: 'order'; orderId: string };

/** How long a link opens its view: long enough for a parcel's journey and a return. */
export const viewLinkLifetimeMs = 60 * 86_400_000;
/** The longest `view` parameter read (a longer one is refused before any work). */
const maxTokenLength = 400;

export type ViewLinkCheck =
  | { ok: true; target: ViewTarget; expiresAt: Date; issuedAt: Date }
  | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' | 'other_shop' };

function keyOf(apiSecret: string): Buffer {
  return createHmac('sha256', apiSecret).update('tracksync shoppers-page view link v1').digest();
}

function signatureOf(apiSecret: string, payload: string): Buffer {
  return createHmac('sha256', keyOf(apiSecret)).update(payload).digest().subarray(0, 18);
}

/** When a link made at `now` stops opening its view (whole seconds, as the token carries it). */
export function viewLinkExpiry(now: number, lifetimeMs = viewLinkLifetimeMs): Date {
  return new Date(Math.floor((now + lifetimeMs) / 1000) * 1000);
}

/** The `view` parameter's value for this shop's target, valid until `now + lifetime`. */
export function viewToken(
  apiSecret: string,
  shopId: string,
  target: ViewTarget,
  now: number,
  lifetimeMs = viewLinkLifetimeMs,
): string {
  const ref = target.kind === 'parcel' ? target.trackingNumber : target.orderId;
  const expires = viewLinkExpiry(now, lifetimeMs).getTime() / 1000;
  const issued = Math.floor(now / 1000);
  const payload = Buffer.from(
    JSON.stringify([2, shopId, target.kind === 'parcel' ? 'p' : 'o', ref, expires, issued]),
  ).toString('base64url');
  return `${payload}.${signatureOf(apiSecret, payload).toString('base64url')}`;
}

/** What a `view` parameter opens in this shop, or why it opens nothing. */
export function checkViewToken(apiSecret: string, shopId: string, token: string, now: number): ViewLinkCheck {
  if (token.length > maxTokenLength) return { ok: false, reason: 'malformed' };
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token);
  if (!match) return { ok: false, reason: 'malformed' };
  const given = Buffer.from(match[2]!, 'base64url');
  const expected = signatureOf(apiSecret, match[1]!);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'bad_signature' };
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(match[1]!, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const version = Array.isArray(fields) ? fields[0] : null;
  if (
    !Array.isArray(fields) ||
    !((version === 1 && fields.length === 5) || (version === 2 && fields.length === 6)) ||
    (version === 2 && typeof fields[5] !== 'number') ||
    typeof fields[1] !== 'string' ||
    (fields[2] !== 'p' && fields[2] !== 'o') ||
    typeof fields[3] !== 'string' ||
    typeof fields[4] !== 'number'
  )
    return { ok: false, reason: 'malformed' };
  if (fields[1] !== shopId) return { ok: false, reason: 'other_shop' };
  const expiresAt = new Date(fields[4] * 1000);
  if (expiresAt.getTime() <= now) return { ok: false, reason: 'expired' };
  const ref = fields[3];
  const issuedAt = new Date(
    version === 2 ? (fields[5] as number) * 1000 : expiresAt.getTime() - viewLinkLifetimeMs,
  );
  return {
    ok: true,
    target: fields[2] === 'p' ? { kind: 'parcel', trackingNumber: ref } : { kind: 'order', orderId: ref },
    expiresAt,
    issuedAt,
  };
}

/**
 * Whether a link made at `issuedAt` was cut off by a cut-off at `from` (an uninstall, a redact). The link's
 * time is in whole seconds, rounded down: one made in the same second as the cut-off counts as before it.
 */
export function madeBefore(issuedAt: Date, from: Date | null | undefined): boolean {
  return from != null && issuedAt.getTime() <= from.getTime();
}

/**
 * The page's address for a view: `base` is the store's proxy path (`/apps/track`, relative, for links on
 * the page) or a whole URL (`https://shop.example/apps/track`, for the order status extension).
 */
export function viewLinkUrl(base: string, token: string, locale: string | null): string {
  const params = new URLSearchParams({ view: token });
  if (locale) params.set('locale', locale);
  return `${base}?${params.toString()}`;
}
