import { shopifyApi } from '@shopify/shopify-api';
import '@shopify/shopify-api/adapters/node';
import { describe, expect, it } from 'vitest';
import { proxySignedString, proxyParams, verifyProxyRequest } from '../../src/proxy/signature.js';
import { signedProxyQuery } from '../helpers/proxy.js';

const secret = 'proxy-test-secret';
const now = Date.UTC(2026, 10, 24, 12, 0, 0);
const ts = now / 1000;
const base = { shop: 'proxy-shop.myshopify.com', path_prefix: '/apps/track', logged_in_customer_id: '' };

describe('verifyProxyRequest', () => {
  it('accepts a request signed as the platform signs it, with several values of one name', () => {
    const query = signedProxyQuery({ ...base, tracking: '1Z999', extra: ['b', 'a'] }, secret, ts);
    const verified = verifyProxyRequest(secret, `?${query}`, now);
    expect(verified).toMatchObject({ ok: true, shop: 'proxy-shop.myshopify.com', loggedInCustomerId: null });
    // The signed string: names sorted, values joined by commas in the order given.
    expect(proxySignedString(proxyParams(query))).toBe(
      `extra=b,alogged_in_customer_id=path_prefix=/apps/trackshop=proxy-shop.myshopify.comtimestamp=${ts}tracking=1Z999`,
    );
  });

  it("agrees with @shopify/shopify-api's own app proxy validation", async () => {
    const shopify = shopifyApi({
      apiKey: 'k',
      apiSecretKey: secret,
      hostName: 'tracksync.example.com',
      apiVersion: '2025-10' as never,
      isEmbeddedApp: true,
      logger: { level: 0, log: async () => {} },
    });
    const query = signedProxyQuery({ ...base, tracking: 'ÄÖ-ü 1' }, secret);
    const params = Object.fromEntries(new URLSearchParams(query));
    expect(await shopify.utils.validateHmac(params, { signator: 'appProxy' })).toBe(true);
    expect(verifyProxyRequest(secret, `?${query}`).ok).toBe(true);
  });

  it('refuses a missing or wrong signature, a changed parameter, another secret', () => {
    const query = signedProxyQuery({ ...base, tracking: '1Z999' }, secret, ts);
    expect(verifyProxyRequest(secret, `?${query.replace(/&signature=[^&]+/, '')}`, now)).toEqual({
      ok: false,
      reason: 'missing_signature',
    });
    expect(verifyProxyRequest(secret, `?${query.replace('1Z999', '1Z998')}`, now)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(verifyProxyRequest('another-secret', `?${query}`, now)).toMatchObject({ reason: 'bad_signature' });
    expect(
      verifyProxyRequest(secret, `?${query.replace(/signature=[0-9a-f]+/, 'signature=zz')}`, now),
    ).toMatchObject({
      reason: 'bad_signature',
    });
  });

  it('refuses a timestamp more than 5 minutes away either way, accepts one within', () => {
    for (const [offset, ok] of [
      [-301, false],
      [301, false],
      [-299, true],
      [299, true],
    ] as const) {
      const query = signedProxyQuery(base, secret, ts + offset);
      expect(verifyProxyRequest(secret, `?${query}`, now).ok, String(offset)).toBe(ok);
    }
  });

  it('refuses a repeated shop or timestamp, and a shop that is not a store domain', () => {
    const twice = `${signedProxyQuery(base, secret, ts)}&shop=other.myshopify.com`;
    expect(verifyProxyRequest(secret, `?${twice}`, now)).toEqual({ ok: false, reason: 'repeated_parameter' });
    const query = signedProxyQuery({ ...base, shop: 'evil.example.com' }, secret, ts);
    expect(verifyProxyRequest(secret, `?${query}`, now)).toEqual({ ok: false, reason: 'bad_shop' });
  });
});
