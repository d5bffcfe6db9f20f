import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devAppProxy, devAppProxySecret, devProxyParameters } from '../../tools/dev/dev-proxy.js';
import { proxyPath, storeProxyPath } from '../../src/lib/proxy-paths.js';
import { proxyParams, signProxyQuery, verifyProxyRequest } from '../../src/proxy/signature.js';

/**
 * `npm run dev`'s stand-in for the store's app proxy (GET /apps/track → signed → GET /proxy), on a real
 * local server: what it signs is read back from its redirect and verified as GET /proxy verifies it.
 */

const DEV_SHOP = 'demo-shop.myshopify.com';
const OTHER_SHOP = 'other-shop.myshopify.com';

let server: Server;
let base: string;

beforeAll(async () => {
  const app = express();
  app.get(storeProxyPath, devAppProxy({ secret: devAppProxySecret, shop: DEV_SHOP }));
  await new Promise<void>((resolve) => {
    server = app.listen(0, '127.0.0.1', () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

/** GET /apps/track?<query>: the status, and the query it signed for GET /proxy (when it redirected). */
async function throughDevProxy(query: string): Promise<{ status: number; signed: string | null }> {
  const res = await fetch(`${base}${storeProxyPath}?${query}`, { redirect: 'manual' });
  await res.arrayBuffer();
  const location = res.headers.get('location');
  if (location === null) return { status: res.status, signed: null };
  expect(location.startsWith(`${proxyPath}?`)).toBe(true);
  return { status: res.status, signed: location.slice(location.indexOf('?')) };
}

/**
 * The re-split: a query whose signed string (entries joined with nothing between) is the one the dev
 * proxy signed for `carrier=1shop=<OTHER_SHOP>t=`, but which names `shop` = OTHER_SHOP. The entry before
 * the carrier swallows `carrier=1` (or the carrier keeps `1`), and a key `t` swallows what lies between
 * the forged shop and the timestamp: the real path_prefix and/or shop.
 */
function forgeForOtherShop(signed: string, carrier: 'order' | 'q'): string {
  const params = proxyParams(signed);
  const first = (key: string) => params.get(key)?.[0] ?? '';
  const forged = new URLSearchParams();
  for (const [key, [value]] of params)
    if (!['shop', 'signature', 'path_prefix', 'timestamp', carrier].includes(key)) forged.set(key, value!);
  if (carrier === 'order') {
    // order=1 | shop=OTHER | t=path_prefix=/apps/trackshop=DEV | timestamp=…
    forged.set('order', '1');
    forged.set('t', `path_prefix=${first('path_prefix')}shop=${first('shop')}`);
  } else {
    // path_prefix=/apps/trackq=1 | shop=OTHER | t=shop=DEV | timestamp=…
    forged.set('path_prefix', `${first('path_prefix')}q=1`);
    forged.set('t', `shop=${first('shop')}`);
  }
  forged.set('shop', OTHER_SHOP);
  forged.set('timestamp', first('timestamp'));
  forged.set('signature', first('signature'));
  return `?${forged.toString()}`;
}

describe('the dev app proxy (GET /apps/track)', () => {
  it('signs the page’s own parameters for the dev shop, which GET /proxy accepts', async () => {
    const { status, signed } = await throughDevProxy(
      'format=html&locale=de&tracking=1Z999&order=1002&email=m.keller%40example.de',
    );
    expect(status).toBe(302);
    const verified = verifyProxyRequest(devAppProxySecret, signed!);
    expect(verified.ok).toBe(true);
    if (!verified.ok) return;
    expect(verified.shop).toBe(DEV_SHOP);
    expect(verified.loggedInCustomerId).toBeNull();
    expect(Object.fromEntries([...verified.params].map(([k, [v]]) => [k, v]))).toMatchObject({
      format: 'html',
      locale: 'de',
      tracking: '1Z999',
      order: '1002',
      email: 'm.keller@example.de',
      path_prefix: storeProxyPath,
    });
  });

  it('drops the platform’s parameters: a logged_in_customer_id (or shop, timestamp…) is never signed', async () => {
    const { status, signed } = await throughDevProxy(
      new URLSearchParams({
        format: 'html',
        logged_in_customer_id: '42',
        shop: OTHER_SHOP,
        path_prefix: '/elsewhere',
        timestamp: '1',
        signature: 'ab'.repeat(32),
      }).toString(),
    );
    expect(status).toBe(302);
    const verified = verifyProxyRequest(devAppProxySecret, signed!);
    expect(verified.ok && verified.shop).toBe(DEV_SHOP);
    expect(verified.ok && verified.loggedInCustomerId).toBeNull();
    const params = proxyParams(signed!);
    expect(params.has('logged_in_customer_id')).toBe(false);
    expect(params.get('path_prefix')).toEqual([storeProxyPath]);
    expect(params.get('signature')).toHaveLength(1);
  });

  it('hands on nothing but the page’s own parameters, the first value of each', async () => {
    const { signed } = await throughDevProxy('tracking=1Z1&tracking=1Z2&extra=x&q=1&format=html');
    expect([...proxyParams(signed!).keys()].sort()).toEqual(
      ['format', 'path_prefix', 'shop', 'signature', 'timestamp', 'tracking'].sort(),
    );
    expect(proxyParams(signed!).get('tracking')).toEqual(['1Z1']);
    expect(devProxyParameters).toEqual(['tracking', 'order', 'email', 'view', 'locale', 'format']);
  });

  it('why "=" matters: a signed order=1shop=…t= re-splits into another shop’s request', () => {
    // What the dev proxy would sign, were such a value handed on: the forgery verifies, for OTHER_SHOP.
    const signed = `?${signProxyQuery(devAppProxySecret, {
      order: `1shop=${OTHER_SHOP}t=`,
      shop: DEV_SHOP,
      path_prefix: storeProxyPath,
    })}`;
    const forged = verifyProxyRequest(devAppProxySecret, forgeForOtherShop(signed, 'order'));
    expect(forged.ok && forged.shop).toBe(OTHER_SHOP);
    // The same from any parameter name, were unknown ones handed on.
    const viaQ = `?${signProxyQuery(devAppProxySecret, {
      q: `1shop=${OTHER_SHOP}t=`,
      shop: DEV_SHOP,
      path_prefix: storeProxyPath,
    })}`;
    const forgedViaQ = verifyProxyRequest(devAppProxySecret, forgeForOtherShop(viaQ, 'q'));
    expect(forgedViaQ.ok && forgedViaQ.shop).toBe(OTHER_SHOP);
  });

  it('refuses a value with "=" (400) and signs nothing, so no other shop’s request can be made of it', async () => {
    const attack = await throughDevProxy(
      new URLSearchParams({ format: 'html', order: `1shop=${OTHER_SHOP}t=` }).toString(),
    );
    expect(attack).toEqual({ status: 400, signed: null });
  });

  it('an unknown parameter carrying the same attack is dropped: the signature stays the dev shop’s', async () => {
    const { status, signed } = await throughDevProxy(
      new URLSearchParams({ format: 'html', q: `1shop=${OTHER_SHOP}t=` }).toString(),
    );
    expect(status).toBe(302);
    expect(proxyParams(signed!).has('q')).toBe(false);
    const forged = verifyProxyRequest(devAppProxySecret, forgeForOtherShop(signed!, 'q'));
    expect(forged.ok).toBe(false);
  });

  it('refuses to be created with any secret but the development one', () => {
    expect(devAppProxySecret).toBe('dev-app-secret');
    for (const secret of ['a-real-app-secret', '', 'dev-app-secret '])
      expect(() => devAppProxy({ secret, shop: DEV_SHOP })).toThrow(/only with the development secret/);
  });
});
