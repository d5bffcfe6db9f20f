import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { addressKey, clientAddress } from '../../src/lib/client-address.js';
import { loadAppConfig } from '../../src/config.js';

/**
 * The visitor's address: only the hops TRUST_PROXY names are believed; a shoppers' page request goes one
 * hop further (the platform's proxy). The test client connects from 127.0.0.1, which plays the nearest
 * proxy (a load balancer) or, with TRUST_PROXY=0, the platform's proxy itself.
 */
function appWith(trustProxy: number | string[]) {
  const app = express();
  app.set('trust proxy', trustProxy);
  app.get('/', (req, res) => {
    res.json({
      ip: req.ip,
      client: clientAddress(req),
      shopper: clientAddress(req, { viaPlatformProxy: true }),
    });
  });
  return app;
}

async function seen(trustProxy: number | string[], forwardedFor?: string) {
  const req = request(appWith(trustProxy)).get('/');
  const res = await (forwardedFor === undefined ? req : req.set('X-Forwarded-For', forwardedFor));
  return res.body as { ip: string; client: string; shopper: string };
}

describe('clientAddress', () => {
  it("behind the platform's proxy and a load balancer (TRUST_PROXY=1): the address the platform appended, whatever the shopper wrote", async () => {
    // The shopper wrote 6.6.6.6; the platform appended the shopper's real 203.0.113.5; the load balancer
    // (the socket, 127.0.0.1) appended the platform's 34.1.1.1.
    const page = await seen(1, '6.6.6.6, 203.0.113.5, 34.1.1.1');
    expect(page.shopper).toBe('203.0.113.5');
    // Any other request: the client is what the load balancer saw, as Express's own req.ip says.
    expect(page.client).toBe('34.1.1.1');
    expect(page.ip).toBe(page.client);
    // Rotating the spoofed part changes nothing.
    for (const spoof of ['1.2.3.4', '9.9.9.9, 8.8.8.8', 'not-an-address'])
      expect((await seen(1, `${spoof}, 203.0.113.5, 34.1.1.1`)).shopper).toBe('203.0.113.5');
  });

  it("with the platform's proxy straight in front (TRUST_PROXY=0): its appended address; nothing a visitor writes", async () => {
    const page = await seen(0, '6.6.6.6, 203.0.113.5');
    expect(page.shopper).toBe('203.0.113.5');
    expect(page.client).toBe('127.0.0.1');
    expect(page.ip).toBe('127.0.0.1');
  });

  it('trusts proxies by address: an untrusted hop ends the walk', async () => {
    const page = await seen(['loopback', '10.0.0.0/8'], '6.6.6.6, 203.0.113.5, 34.1.1.1, 10.1.2.3');
    expect(page.client).toBe('34.1.1.1');
    expect(page.ip).toBe(page.client);
    expect(page.shopper).toBe('203.0.113.5');
  });

  it('without X-Forwarded-For: the socket address, also for the page (no hop to go further to)', async () => {
    const page = await seen(1);
    expect(page).toEqual({ ip: '127.0.0.1', client: '127.0.0.1', shopper: '127.0.0.1' });
  });
});

describe('addressKey', () => {
  it('keys IPv4 as itself (also IPv6-mapped), IPv6 by its /56, anything else as written', () => {
    expect(addressKey('203.0.113.5')).toBe('203.0.113.5');
    expect(addressKey('::ffff:203.0.113.5')).toBe('203.0.113.5');
    expect(addressKey('2001:db8:aa:bb12:1:2:3:4')).toBe('2001:db8:aa:bb00::/56');
    // Every address of the /56 is one key: rotating through a subscriber's block does not help.
    expect(addressKey('2001:db8:aa:bbff::1')).toBe('2001:db8:aa:bb00::/56');
    expect(addressKey('2001:db8:aa:cc00::1')).not.toBe(addressKey('2001:db8:aa:bb00::1'));
    expect(addressKey('::1')).toBe('0:0:0:0::/56');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/56');
    expect(addressKey('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:0::/56');
    expect(addressKey('x'.repeat(100))).toHaveLength(64);
  });
});

describe('TRUST_PROXY', () => {
  const env = {
    SHOPIFY_API_KEY: 'k',
    SHOPIFY_API_SECRET: 's',
    SHOPIFY_APP_URL: 'https://app.example',
    TRACKING_API_BASE_URL: 'https://service.example/v1',
    ENCRYPTION_KEY: 'x',
  };
  const load = (value?: string) => loadAppConfig({ ...env, TRUST_PROXY: value }).trustProxy;

  it('defaults to one reverse proxy; takes a hop count or addresses, ranges and named ranges', () => {
    expect(load()).toBe(1);
    expect(load('2')).toBe(2);
    expect(load('0')).toBe(0);
    expect(load('loopback, 10.0.0.0/8, 2001:db8::/32, 192.0.2.7')).toEqual([
      'loopback',
      '10.0.0.0/8',
      '2001:db8::/32',
      '192.0.2.7',
    ]);
  });

  it('refuses "true" (a visitor could name its own address), nonsense and impossible ranges, clearly', () => {
    expect(() => load('true')).toThrow(/TRUST_PROXY: give the number of proxies/);
    expect(() => load('11')).toThrow(/TRUST_PROXY: a hop count is at most 10/);
    expect(() => load('10.0.0.0/33')).toThrow(/"10.0.0.0\/33" is not a hop count, an address, a range/);
    expect(() => load('proxy.example')).toThrow(/"proxy.example" is not/);
  });
});
