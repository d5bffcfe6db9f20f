import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isStorableText,
  storableString,
  storableText,
  truncateText,
  unstorableTextMessage,
} from '../../src/db/storable-text.js';

/** Any UTF-16 code unit, lone surrogates and NUL included (fast-check's 'binary' unit is slow to draw). */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

describe('isStorableText', () => {
  it('refuses a NUL and a lone surrogate, either half; a whole pair and other control characters are fine', () => {
    for (const bad of ['\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\udc00\ud800', 'ab\ud83d'])
      expect(isStorableText(bad), JSON.stringify(bad)).toBe(false);
    for (const good of ['', 'UPS', '📦', 'tab\there', 'line\nbreak', '\u0001', 'Ünïcödé'])
      expect(isStorableText(good), JSON.stringify(good)).toBe(true);
  });

  it('holds for everything storableText makes (property)', () => {
    fc.assert(fc.property(fc.string({ unit: codeUnit }), (s) => isStorableText(storableText(s))));
  });
});

describe('storableString', () => {
  it('refuses before any other rule, with one issue', () => {
    const schema = storableString().trim().min(1).max(3);
    const result = schema.safeParse('  abcdef\u0000  ');
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([expect.objectContaining({ message: unstorableTextMessage })]);
    expect(schema.parse(' ab ')).toBe('ab');
  });
});

describe('truncateText', () => {
  it('never ends in half a surrogate pair', () => {
    expect(truncateText('ab📦', 3)).toBe('ab');
    expect(truncateText('ab📦', 4)).toBe('ab📦');
    expect(truncateText('abc', 2)).toBe('ab');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.nat(40), (s, n) => isStorableText(truncateText(s, n))),
    );
  });
});
