import { describe, expect, it } from 'vitest';
import { hostParamProblem } from '../../../src/ui/auth/admin-host.js';

const SHOP = 'my-store.myshopify.com';
const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('hostParamProblem', () => {
  it('takes base64 of the store’s admin host, padded or not, new or old admin', () => {
    for (const host of [
      b64('admin.shopify.com/store/my-store'),
      b64('admin.shopify.com/store/my-store').replace(/=+$/, ''),
      b64('my-store.myshopify.com/admin'),
    ])
      expect(hostParamProblem({ host, embedded: '1' }, SHOP), host).toBeNull();
  });

  it('needs one only for an embedded start', () => {
    expect(hostParamProblem({}, SHOP)).toBeNull();
    expect(hostParamProblem({ embedded: '1' }, SHOP)).toMatch(/^host is missing/);
  });

  it('says why it refuses one', () => {
    expect(hostParamProblem({ host: '' }, SHOP)).toMatch(/^host is empty/);
    expect(hostParamProblem({ host: ['a', 'b'] }, SHOP)).toBe('host must be given once');
    expect(hostParamProblem({ host: 'a b' }, SHOP)).toMatch(/must be base64/);
    expect(hostParamProblem({ host: 'A' }, SHOP)).toMatch(/must be base64/); // atob throws
    expect(hostParamProblem({ host: 'x'.repeat(600) }, SHOP)).toMatch(/must be base64/);
    for (const decoded of [
      'a b',
      'evil.example.com',
      'admin.shopify.com/store/',
      '\u0000',
      'admin.shopify.com/store/a/b',
    ])
      expect(hostParamProblem({ host: b64(decoded) }, SHOP), decoded).toMatch(/store admin's host/);
    expect(hostParamProblem({ host: b64('admin.shopify.com/store/other') }, SHOP)).toBe(
      'host names another store than shop',
    );
  });
});
