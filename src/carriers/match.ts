/**
 * From the store's free-text carrier name to the tracking service's provider slug.
 * Order: the shop's own override, then the platform's known carrier names, then the service's list by
 * label or slug. Names are compared after folding case, accents, spaces and punctuation.
 */

export interface KnownProvider {
  slug: string;
  label: string;
}

/** `DHL Express` / `dhl-express` / ` DHL  express. ` → `dhlexpress`. */
export function normaliseCarrierName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, 'and')
    .replace(/[^a-z0-9]+/g, '');
}

/**
 * The platform's own carrier names (as merchants pick them in the admin) that do not normalise to the
 * service's label or slug on their own.
 */
const platformNames: Record<string, string> = {
  UPS: 'ups',
  'UPS Mail Innovations': 'ups',
  USPS: 'usps',
  'United States Postal Service': 'usps',
  FedEx: 'fedex',
  'FedEx Ground': 'fedex',
  'FedEx SmartPost': 'fedex',
  'DHL Express': 'dhl-express',
  DHL: 'dhl-express',
  'DHL eCommerce': 'dhl-ecommerce',
  'DHL eCommerce Asia': 'dhl-ecommerce',
  'DHL Parcel': 'dhl-paket',
  'DHL Paket': 'dhl-paket',
  'Deutsche Post': 'dhl-paket',
  PostNL: 'postnl',
  'PostNL International': 'postnl',
  'PostNL International 3S': 'postnl-3s',
  'PostNL 3S': 'postnl-3s',
  'Canada Post': 'canada-post',
  'Postes Canada': 'canada-post',
  'Royal Mail': 'royal-mail',
  'Australia Post': 'australia-post',
  StarTrack: 'startrack',
  Sendle: 'sendle',
  'Couriers Please': 'courier-please',
  CouriersPlease: 'courier-please',
  'New Zealand Post': 'new-zealand-post',
  'NZ Post': 'new-zealand-post',
  DPD: 'dpd',
  'DPD UK': 'dpd-uk',
  GLS: 'gls',
  Hermes: 'hermes',
  Evri: 'evri',
  Colissimo: 'colissimo',
  Chronopost: 'chronopost',
  'La Poste': 'la-poste',
  Correos: 'correos',
  'Correos de España': 'correos',
  'Poste Italiane': 'poste-italiane',
  Bpost: 'bpost',
  bpost: 'bpost',
  'Swiss Post': 'swiss-post',
  'Post Schweiz': 'swiss-post',
  'Austrian Post': 'austrian-post',
  'Österreichische Post': 'austrian-post',
  Posti: 'posti',
  PostNord: 'postnord',
  'PostNord Sweden': 'postnord',
  'PostNord Denmark': 'postnord',
  'Japan Post': 'japan-post',
  'Japan Post (EN)': 'japan-post',
  'China Post': 'china-post',
  'China EMS (ePacket)': 'china-ems',
  YunExpress: 'yunexpress',
  Yanwen: 'yanwen',
  '4PX': '4px',
  Cainiao: 'cainiao',
  'India Post': 'india-post',
  Delhivery: 'delhivery',
  Bluedart: 'blue-dart',
  'Blue Dart': 'blue-dart',
  Aramex: 'aramex',
  TNT: 'tnt',
  Purolator: 'purolator',
  Canpar: 'canpar',
  OnTrac: 'ontrac',
  LaserShip: 'lasership',
  'Singapore Post': 'singapore-post',
  'Korea Post': 'korea-post',
  'Thailand Post': 'thailand-post',
};

const platformIndex = new Map(
  Object.entries(platformNames).map(([name, slug]) => [normaliseCarrierName(name), slug]),
);

export type CarrierMatch =
  | { slug: string; source: 'override' | 'platform-name' | 'service-label' | 'service-slug' }
  | { slug: null; source: 'none' };

export interface CarrierMatcher {
  match(carrierName: string | null | undefined, overrides?: ReadonlyMap<string, string>): CarrierMatch;
}

/**
 * Builds a matcher over the service's provider list. With an empty list (never fetched yet) the platform
 * names still match; with a list, a platform name only matches a slug the service actually offers.
 */
export function createCarrierMatcher(providers: readonly KnownProvider[]): CarrierMatcher {
  const slugs = new Set(providers.map((p) => p.slug));
  const byLabel = new Map<string, string>();
  const bySlug = new Map<string, string>();
  for (const p of providers) {
    const label = normaliseCarrierName(p.label);
    if (label !== '' && !byLabel.has(label)) byLabel.set(label, p.slug);
    bySlug.set(normaliseCarrierName(p.slug), p.slug);
  }
  const offered = (slug: string) => slugs.size === 0 || slugs.has(slug);

  return {
    match(carrierName, overrides) {
      if (carrierName == null) return { slug: null, source: 'none' };
      const key = normaliseCarrierName(carrierName);
      if (key === '') return { slug: null, source: 'none' };
      const override = overrides?.get(key);
      if (override) return { slug: override, source: 'override' };
      const platform = platformIndex.get(key);
      if (platform && offered(platform)) return { slug: platform, source: 'platform-name' };
      const label = byLabel.get(key);
      if (label) return { slug: label, source: 'service-label' };
      const slug = bySlug.get(key);
      if (slug) return { slug, source: 'service-slug' };
      return { slug: null, source: 'none' };
    },
  };
}
