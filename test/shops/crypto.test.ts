import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { needsReseal, open, parseKeyring, SecretUnreadableError, seal } from '../../src/shops/crypto.js';
import { randomKey } from '../helpers/factories.js';

describe('parseKeyring', () => {
  it('reads one bare base64 key as key id k1', () => {
    const key = randomKey();
    const ring = parseKeyring(key);
    expect(ring.currentKeyId).toBe('k1');
    expect([...ring.keys.keys()]).toEqual(['k1']);
    expect(ring.keys.get('k1')).toEqual(Buffer.from(key, 'base64'));
  });

  it('reads id:key lists, the first entry being current, spaces and empty entries ignored', () => {
    const ring = parseKeyring(` k2:${randomKey()} , ,k1:${randomKey()},`);
    expect(ring.currentKeyId).toBe('k2');
    expect([...ring.keys.keys()]).toEqual(['k2', 'k1']);
  });

  it.each([
    ['an empty value', '', /empty/],
    ['only commas', ' , ,', /empty/],
    ['a key that is not 32 bytes', `k1:${Buffer.alloc(16).toString('base64')}`, /not 32 bytes/],
    [
      'a key with a typo that still decodes to 32 bytes',
      `k1:${Buffer.alloc(32, 9)
        .toString('base64')
        .replace(/^(.{10})/, '$1!')}`,
      /the key "k1" of ENCRYPTION_KEY has characters that are not base64/,
    ],
    ['a bad key id', `bad id:${Buffer.alloc(32).toString('base64')}`, /key id/],
    ['a too long key id', `${'a'.repeat(33)}:${Buffer.alloc(32).toString('base64')}`, /key id/],
    ['an empty key id', `:${Buffer.alloc(32).toString('base64')}`, /key id/],
  ])('refuses %s', (_what, value, message) => {
    expect(() => parseKeyring(value)).toThrow(message);
  });

  it('takes the URL-safe alphabet and a key without its padding', () => {
    const raw = Buffer.alloc(32, 251);
    const urlSafe = raw.toString('base64url');
    expect(parseKeyring(`k1:${urlSafe}`).keys.get('k1')).toEqual(raw);
    expect(parseKeyring(`k1:${raw.toString('base64').replace(/=$/, '')}`).keys.get('k1')).toEqual(raw);
  });

  it('refuses a key id named twice', () => {
    expect(() => parseKeyring(`k1:${randomKey()},k1:${randomKey()}`)).toThrow(/twice/);
  });

  it('never puts key material in its error messages', () => {
    const key = Buffer.alloc(31, 7).toString('base64');
    try {
      parseKeyring(`k1:${key}`);
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain(key);
    }
  });
});

describe('seal and open', () => {
  it('round-trips and tags the ciphertext with the current key id', () => {
    const ring = parseKeyring(`k2:${randomKey()},k1:${randomKey()}`);
    const sealed = seal(ring, 'service-api-key-0001');
    expect(sealed.keyId).toBe('k2');
    expect(sealed.ciphertext).not.toContain('service-api-key-0001');
    expect(open(ring, sealed)).toBe('service-api-key-0001');
  });

  it('uses a fresh IV every time', () => {
    const ring = parseKeyring(randomKey());
    expect(seal(ring, 'same').ciphertext).not.toBe(seal(ring, 'same').ciphertext);
  });

  it('round-trips any text, the empty string and non-ASCII included (property)', () => {
    const ring = parseKeyring(randomKey());
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (plaintext) => {
        expect(open(ring, seal(ring, plaintext))).toBe(plaintext);
      }),
    );
  });

  it('refuses a ciphertext whose key is not in the keyring', () => {
    const old = parseKeyring(`k1:${randomKey()}`);
    const sealed = seal(old, 'secret');
    const rotatedAway = parseKeyring(`k2:${randomKey()}`);
    expect(() => open(rotatedAway, sealed)).toThrow(SecretUnreadableError);
    expect(() => open(rotatedAway, sealed)).toThrow(/key "k1" is not in ENCRYPTION_KEY/);
  });

  it('refuses a ciphertext opened with another key under the same id', () => {
    const sealed = seal(parseKeyring(`k1:${randomKey()}`), 'secret');
    expect(() => open(parseKeyring(`k1:${randomKey()}`), sealed)).toThrow(/authentication failed/);
  });

  it('refuses tampered data: any flipped bit of iv, tag or body (property)', () => {
    const ring = parseKeyring(randomKey());
    const sealed = seal(ring, 'a secret worth protecting');
    const raw = Buffer.from(sealed.ciphertext, 'base64');
    fc.assert(
      fc.property(fc.nat(raw.length - 1), fc.integer({ min: 0, max: 7 }), (index, bit) => {
        const tampered = Buffer.from(raw);
        tampered[index] = tampered[index]! ^ (1 << bit);
        expect(() => open(ring, { keyId: sealed.keyId, ciphertext: tampered.toString('base64') })).toThrow(
          SecretUnreadableError,
        );
      }),
    );
  });

  it('refuses a ciphertext relabelled with another key id (the id is authenticated)', () => {
    const shared = randomKey();
    const ring = parseKeyring(`k1:${shared},k2:${shared}`);
    const sealed = seal(ring, 'secret');
    expect(sealed.keyId).toBe('k1');
    expect(() => open(ring, { ...sealed, keyId: 'k2' })).toThrow(/authentication failed/);
  });

  it('refuses a ciphertext too short to hold iv and tag', () => {
    const ring = parseKeyring(randomKey());
    expect(() => open(ring, { keyId: 'k1', ciphertext: Buffer.alloc(27).toString('base64') })).toThrow(
      /too short/,
    );
  });
});

describe('rotation', () => {
  it('opens secrets sealed with a retired key and says they need re-sealing', () => {
    const oldKey = randomKey();
    const before = parseKeyring(`k1:${oldKey}`);
    const sealed = seal(before, 'rotate me');
    expect(needsReseal(before, sealed)).toBe(false);

    const after = parseKeyring(`k2:${randomKey()},k1:${oldKey}`);
    expect(needsReseal(after, sealed)).toBe(true);
    expect(open(after, sealed)).toBe('rotate me');

    const resealed = seal(after, open(after, sealed));
    expect(resealed.keyId).toBe('k2');
    expect(needsReseal(after, resealed)).toBe(false);
    expect(open(parseKeyring(`k2:${Buffer.from(after.keys.get('k2')!).toString('base64')}`), resealed)).toBe(
      'rotate me',
    );
  });
});

describe('ENCRYPTION_KEY errors', () => {
  it('say what the value must look like, never name a key id the user did not type, never echo the value', () => {
    let message = '';
    try {
      parseKeyring('abc');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^ENCRYPTION_KEY is not 32 bytes in base64/);
    expect(message).toContain('44 characters');
    expect(message).not.toContain('"k1"');
    expect(message).not.toContain('abc');
  });
});
