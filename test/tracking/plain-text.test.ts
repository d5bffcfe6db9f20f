import { describe, expect, it } from 'vitest';
import { decodeEntities, toPlainText } from '../../src/tracking/plain-text.js';

describe('toPlainText', () => {
  it.each([
    ['UPS Ground&reg;', 'UPS Ground®'],
    ['DHL Express Worldwide &amp; Priority', 'DHL Express Worldwide & Priority'],
    ['<b>Priority</b> Mail&#8482;', 'Priority Mail™'],
    ['Line<br/>break', 'Line break'],
    ['&lt;script&gt; is text here', '<script> is text here'],
    ['<script>alert(1)</script>Express', 'Express'],
    ['  spaced\n\tout  ', 'spaced out'],
    ['Caf&eacute; &#x1F4E6;', 'Café 📦'],
  ])('%j → %j', (input, expected) => {
    expect(toPlainText(input)).toBe(expected);
  });

  it('gives null for null, empty and markup-only input', () => {
    expect(toPlainText(null)).toBeNull();
    expect(toPlainText(undefined)).toBeNull();
    expect(toPlainText('')).toBeNull();
    expect(toPlainText('<p> </p>')).toBeNull();
  });

  it('leaves unknown and invalid references as written', () => {
    expect(decodeEntities('&bogus; &#xD800; &#0; &amp')).toBe('&bogus; &#xD800; &#0; &amp');
  });
});
