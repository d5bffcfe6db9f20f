import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCarrierMatcher, normaliseCarrierName } from '../../src/carriers/match.js';
import { providerList } from '../../tools/emulator/carriers.js';

describe('normaliseCarrierName', () => {
  it.each([
    ['DHL Express', 'dhlexpress'],
    ['dhl-express', 'dhlexpress'],
    [' DHL  express. ', 'dhlexpress'],
    ['Österreichische Post', 'osterreichischepost'],
    ['Correos de España', 'correosdeespana'],
    ['P&O Parcels', 'pandoparcels'],
    ['Japan Post (EN)', 'japanposten'],
    ['—', ''],
    ['', ''],
  ])('%j → %j', (name, key) => {
    expect(normaliseCarrierName(name)).toBe(key);
  });

  it('is idempotent and yields only [a-z0-9] (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (name) => {
        const key = normaliseCarrierName(name);
        expect(key).toMatch(/^[a-z0-9]*$/);
        expect(normaliseCarrierName(key)).toBe(key);
      }),
    );
  });

  it('ignores case, spacing and punctuation (property)', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9]{1,8}$/);
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(' ', '-', '.', '  ', '_'),
        (words, sep) => {
          expect(normaliseCarrierName(words.join(sep).toUpperCase())).toBe(words.join('').toLowerCase());
        },
      ),
    );
  });
});

const service = [
  { slug: 'ups', label: 'UPS' },
  { slug: 'dhl-express', label: 'DHL Express' },
  { slug: 'dhl', label: 'DHL' },
  { slug: 'postnl-3s', label: 'PostNL International 3S' },
  { slug: 'acme-couriers', label: 'ACME Couriers Ltd' },
  { slug: 'swift-mail', label: 'Swift' },
];

describe('createCarrierMatcher', () => {
  it('matches nothing for a missing or blank name', () => {
    const matcher = createCarrierMatcher(service);
    for (const name of [null, undefined, '', '  ', '---']) {
      expect(matcher.match(name)).toEqual({ slug: null, source: 'none' });
    }
  });

  it('prefers the shop override over every automatic match', () => {
    const matcher = createCarrierMatcher(service);
    const overrides = new Map([[normaliseCarrierName('UPS'), 'my-ups-slug']]);
    expect(matcher.match(' ups ', overrides)).toEqual({ slug: 'my-ups-slug', source: 'override' });
    expect(matcher.match('DHL Express', overrides)).toEqual({ slug: 'dhl-express', source: 'platform-name' });
  });

  it('prefers a platform name over the service label and slug', () => {
    // "DHL" is the service's own label for slug "dhl", but the platform means DHL Express by it.
    const matcher = createCarrierMatcher(service);
    expect(matcher.match('DHL')).toEqual({ slug: 'dhl-express', source: 'platform-name' });
    expect(matcher.match('PostNL International 3S')).toEqual({ slug: 'postnl-3s', source: 'platform-name' });
  });

  it('matches the service label, then the service slug', () => {
    const matcher = createCarrierMatcher(service);
    expect(matcher.match('acme couriers ltd')).toEqual({ slug: 'acme-couriers', source: 'service-label' });
    expect(matcher.match('ACME-COURIERS')).toEqual({ slug: 'acme-couriers', source: 'service-slug' });
    expect(matcher.match('Swift')).toEqual({ slug: 'swift-mail', source: 'service-label' });
    expect(matcher.match('swift mail')).toEqual({ slug: 'swift-mail', source: 'service-slug' });
  });

  it('with a known list, matches a platform name only to a slug the service offers', () => {
    // "FedEx" is a platform name (→ fedex), but this service list has no fedex.
    const matcher = createCarrierMatcher(service);
    expect(matcher.match('FedEx')).toEqual({ slug: null, source: 'none' });
    // "Royal Mail" → royal-mail, not offered; falls through to nothing.
    expect(matcher.match('Royal Mail')).toEqual({ slug: null, source: 'none' });
  });

  it('with a known list, falls back to label or slug when the platform slug is not offered', () => {
    const matcher = createCarrierMatcher([{ slug: 'fedex-intl', label: 'FedEx' }]);
    expect(matcher.match('FedEx')).toEqual({ slug: 'fedex-intl', source: 'service-label' });
  });

  it('with no list yet (never fetched), still matches platform names', () => {
    const matcher = createCarrierMatcher([]);
    expect(matcher.match('FedEx')).toEqual({ slug: 'fedex', source: 'platform-name' });
    expect(matcher.match('Royal Mail')).toEqual({ slug: 'royal-mail', source: 'platform-name' });
    expect(matcher.match('ACME Couriers Ltd')).toEqual({ slug: null, source: 'none' });
  });

  it('matches the store fixtures against the emulated service list', () => {
    const matcher = createCarrierMatcher(providerList());
    expect(matcher.match('UPS').slug).toBe('ups');
    expect(matcher.match('DHL Express').slug).toBe('dhl-express');
    expect(matcher.match('PostNL International 3S').slug).toBe('postnl-3s');
  });

  it('every slug it returns without an override is one the service offers (property)', () => {
    const list = providerList();
    const slugs = new Set(list.map((p) => p.slug));
    const matcher = createCarrierMatcher(list);
    const names = fc.oneof(
      fc.constantFrom(...list.map((p) => p.label), ...list.map((p) => p.slug)),
      fc.constantFrom('UPS', 'FedEx SmartPost', 'DHL', 'Royal Mail', 'PostNL 3S', 'NZ Post', 'Bluedart'),
      fc.string(),
    );
    fc.assert(
      fc.property(names, (name) => {
        const match = matcher.match(name);
        if (match.slug !== null) expect(slugs.has(match.slug)).toBe(true);
      }),
    );
  });

  it('finds a provider for every label and slug of the emulated service', () => {
    const list = providerList();
    const matcher = createCarrierMatcher(list);
    for (const p of list) {
      const bySlug = matcher.match(p.slug);
      expect(bySlug.slug).not.toBeNull();
      const byLabel = matcher.match(p.label);
      expect(byLabel.slug).not.toBeNull();
    }
  });
});
