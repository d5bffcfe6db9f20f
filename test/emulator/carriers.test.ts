import { describe, expect, it } from 'vitest';
import { carriers, findCarrier, missingRequirements, providerList } from '../../tools/emulator/index.js';

describe('carriers', () => {
  it('has at least 100 carriers with unique kebab-case slugs and labels', () => {
    expect(carriers.length).toBeGreaterThanOrEqual(100);
    const slugs = carriers.map((c) => c.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const c of carriers) {
      expect(c.slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(c.label.length).toBeGreaterThan(0);
      if (c.originCountry !== null) expect(c.originCountry).toMatch(/^[A-Z]{2}$/);
    }
  });

  it('includes the well-known TrackShip-style slugs', () => {
    const expected =
      `ups usps fedex dhl-express dhl-ecommerce dhl-paket royal-mail canada-post australia-post postnl-3s
      postnl dpd dpd-uk gls hermes evri colissimo chronopost la-poste correos poste-italiane bpost swiss-post
      austrian-post posti postnord japan-post china-post china-ems yanwen 4px yunexpress cainiao india-post delhivery
      blue-dart aramex tnt purolator canpar ontrac lasership new-zealand-post courier-please sendle startrack
      singapore-post korea-post thailand-post`.split(/\s+/);
    for (const slug of expected) expect(findCarrier(slug), slug).toBeDefined();
    expect(findCarrier('postnl-3s')?.label).toBe('PostNL International 3S');
    expect(findCarrier('usps')?.label).toBe('USPS');
    expect(findCarrier('UPS')).toBeUndefined();
  });

  it('marks the carriers that need postal_code and/or destination_country', () => {
    const needs = (slug: string) => {
      const c = findCarrier(slug)!;
      return [c.requiresPostalCode, c.requiresDestinationCountry];
    };
    expect(needs('postnl-3s')).toEqual([true, true]);
    expect(needs('postnl')).toEqual([true, true]);
    for (const slug of ['gls', 'dhl-paket', 'bpost', 'chronopost'])
      expect(needs(slug)).toEqual([true, false]);
    expect(needs('ups')).toEqual([false, false]);
    const demanding = carriers.filter((c) => c.requiresPostalCode || c.requiresDestinationCountry);
    expect(demanding.length).toBeLessThan(10);
  });

  it('names what is missing in one sentence', () => {
    const postnl3s = findCarrier('postnl-3s')!;
    expect(missingRequirements(postnl3s, { postalCode: null, destinationCountry: null })).toBe(
      'postal_code and destination_country are required for postnl-3s',
    );
    expect(missingRequirements(postnl3s, { postalCode: '1011', destinationCountry: null })).toBe(
      'destination_country is required for postnl-3s',
    );
    expect(missingRequirements(postnl3s, { postalCode: '1011', destinationCountry: 'NL' })).toBeNull();
  });

  it('has service names with HTML entities or markup, and null ones', () => {
    const services = carriers.map((c) => c.shippingService);
    expect(services).toContain('UPS Ground&reg;');
    expect(services).toContain('DHL Express Worldwide &amp; Priority');
    expect(services).toContain('<b>Priority</b> Mail&#8482;');
    expect(services).toContain(null);
  });

  it('providerList has only label and slug', () => {
    expect(providerList()[0]).toEqual({ label: 'UPS', slug: 'ups' });
  });
});
