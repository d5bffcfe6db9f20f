import { describe, expect, it } from 'vitest';
import { checkViewToken, viewLinkLifetimeMs, viewLinkUrl, viewToken } from '../../src/proxy/view-link.js';

const secret = 'app-secret';
const now = Date.UTC(2026, 10, 25, 12);

describe('share links (view=)', () => {
  it('open the parcel or order they were made for, in their own shop, until they expire', () => {
    const parcel = viewToken(secret, 'shop-a', { kind: 'parcel', trackingNumber: '1Z999AA10123456784' }, now);
    expect(parcel).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(checkViewToken(secret, 'shop-a', parcel, now + 1000)).toEqual({
      ok: true,
      target: { kind: 'parcel', trackingNumber: '1Z999AA10123456784' },
      expiresAt: new Date(Math.floor((now + viewLinkLifetimeMs) / 1000) * 1000),
      issuedAt: new Date(Math.floor(now / 1000) * 1000),
    });
    const order = viewToken(secret, 'shop-a', { kind: 'order', orderId: '6120000000002' }, now);
    const opened = checkViewToken(secret, 'shop-a', order, now);
    expect(opened.ok && opened.target).toEqual({ kind: 'order', orderId: '6120000000002' });
    expect(checkViewToken(secret, 'shop-a', order, now + viewLinkLifetimeMs + 1000)).toEqual({
      ok: false,
      reason: 'expired',
    });
    expect(checkViewToken(secret, 'shop-b', order, now)).toEqual({ ok: false, reason: 'other_shop' });
  });

  it('refuse a changed, forged or malformed link, whatever it says', () => {
    const token = viewToken(secret, 'shop-a', { kind: 'parcel', trackingNumber: 'N1' }, now);
    const [payload, signature] = token.split('.') as [string, string];
    const other = Buffer.from(JSON.stringify([1, 'shop-a', 'p', 'N2', 9_999_999_999])).toString('base64url');
    expect(checkViewToken(secret, 'shop-a', `${other}.${signature}`, now)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(checkViewToken('another-secret', 'shop-a', token, now)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    const flipped = `${payload}.${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    expect(checkViewToken(secret, 'shop-a', flipped, now).ok).toBe(false);
    for (const bad of ['', 'x', 'a.b.c', `${payload}.`, `${'a'.repeat(500)}.${signature}`, 'constructor'])
      expect(checkViewToken(secret, 'shop-a', bad, now).ok, bad).toBe(false);
  });

  it('are written on the page’s own path, with the language when one was named', () => {
    expect(viewLinkUrl('/apps/track', 'abc.def', null)).toBe('/apps/track?view=abc.def');
    expect(viewLinkUrl('https://shop.example/apps/track', 'abc.def', 'pt-BR')).toBe(
      'https://shop.example/apps/track?view=abc.def&locale=pt-BR',
    );
  });
});
