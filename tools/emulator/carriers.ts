/**
 * The shipping providers the emulated service knows, with TrackShip-style slugs.
 * Each carrier also carries what the emulator needs to simulate it: the fields it requires at creation,
 * its country of origin, its service name (sometimes with HTML entities or markup, as the real service
 * returns them) and whether it reports a second, destination-country event list.
 */

export interface Carrier {
  /** Provider code used as `tracking_provider`. */
  readonly slug: string;
  /** Human-readable name. */
  readonly label: string;
  /** Two-letter country the shipments start in; null when the carrier does not report one. */
  readonly originCountry: string | null;
  /** Service name reported as `shipping_service`; may contain HTML entities or markup; null for some. */
  readonly shippingService: string | null;
  readonly requiresPostalCode: boolean;
  readonly requiresDestinationCountry: boolean;
  /** International carriers whose shipment data carries a `destination_events` array (else null). */
  readonly hasDestinationEvents: boolean;
}

interface CarrierExtras {
  service?: string | null;
  postal?: boolean;
  country?: boolean;
  intl?: boolean;
}

function carrier(
  slug: string,
  label: string,
  originCountry: string | null,
  extras: CarrierExtras = {},
): Carrier {
  return {
    slug,
    label,
    originCountry,
    shippingService: extras.service === undefined ? `${label} Standard` : extras.service,
    requiresPostalCode: extras.postal ?? false,
    requiresDestinationCountry: extras.country ?? false,
    hasDestinationEvents: extras.intl ?? false,
  };
}

export const carriers: readonly Carrier[] = [
  // North America
  carrier('ups', 'UPS', 'US', { service: 'UPS Ground&reg;' }),
  carrier('usps', 'USPS', 'US', { service: '<b>Priority</b> Mail&#8482;' }),
  carrier('fedex', 'FedEx', 'US', { service: 'FedEx Home Delivery&reg;' }),
  carrier('ontrac', 'OnTrac', 'US', { service: null }),
  carrier('lasership', 'LaserShip', 'US', { service: null }),
  carrier('dhl-ecommerce', 'DHL eCommerce', 'US', { service: 'DHL SmartMail Parcel Plus &amp; Expedited' }),
  carrier('amazon-shipping', 'Amazon Shipping', 'US', { service: null }),
  carrier('ups-mail-innovations', 'UPS Mail Innovations', 'US', { service: 'UPS&reg; Mail Innovations' }),
  carrier('fedex-freight', 'FedEx Freight', 'US', { service: 'FedEx Freight&reg; Priority' }),
  carrier('estes', 'Estes Express Lines', 'US', { service: null }),
  carrier('speedee', 'Spee-Dee Delivery', 'US', { service: null }),
  carrier('gso', 'GLS US', 'US', { service: null }),
  carrier('better-trucks', 'Better Trucks', 'US', { service: null }),
  carrier('veho', 'Veho', 'US', { service: null }),
  carrier('canada-post', 'Canada Post', 'CA', { service: 'Expedited Parcel&trade;' }),
  carrier('purolator', 'Purolator', 'CA', { service: 'Purolator Ground&reg;' }),
  carrier('canpar', 'Canpar Express', 'CA'),
  carrier('dicom', 'Dicom', 'CA', { service: null }),
  carrier('loomis-express', 'Loomis Express', 'CA'),
  carrier('intelcom', 'Intelcom', 'CA', { service: null }),
  carrier('estafeta', 'Estafeta', 'MX'),
  carrier('correos-de-mexico', 'Correos de Mexico', 'MX', { service: null }),
  // Global express
  carrier('dhl-express', 'DHL Express', 'DE', { service: 'DHL Express Worldwide &amp; Priority' }),
  carrier('dhl', 'DHL', 'DE', { service: null }),
  carrier('tnt', 'TNT', 'NL', { service: 'TNT Express &ndash; 12:00' }),
  carrier('aramex', 'Aramex', 'AE', { service: 'Aramex Priority Parcel Express' }),
  carrier('sf-express', 'SF Express', 'CN', {
    service: 'SF International Standard &amp; Economy',
    intl: true,
  }),
  // United Kingdom and Ireland
  carrier('royal-mail', 'Royal Mail', 'GB', { service: 'Royal Mail Tracked 48&trade;' }),
  carrier('parcelforce', 'Parcelforce Worldwide', 'GB', { service: 'express48&reg;' }),
  carrier('dpd-uk', 'DPD UK', 'GB', { service: 'DPD Next Day &amp; Predict' }),
  carrier('evri', 'Evri', 'GB', { service: 'Evri Standard Tracked' }),
  carrier('hermes', 'Hermes', 'GB', { service: null }),
  carrier('yodel', 'Yodel', 'GB', { service: 'Yodel Xpect 48' }),
  carrier('dx', 'DX Delivery', 'GB', { service: null }),
  carrier('uk-mail', 'UK Mail', 'GB', { service: null }),
  carrier('an-post', 'An Post', 'IE', { service: 'An Post Registered &amp; Tracked' }),
  carrier('fastway-ie', 'Fastway Ireland', 'IE', { service: null }),
  // Benelux
  carrier('postnl-3s', 'PostNL International 3S', 'NL', {
    service: 'PostNL Packet Tracked &amp; Traced',
    postal: true,
    country: true,
    intl: true,
  }),
  carrier('postnl', 'PostNL', 'NL', { service: 'PostNL Standaard Pakket', postal: true, country: true }),
  carrier('postnl-international', 'PostNL International', 'NL', { service: null, intl: true }),
  carrier('dhl-parcel-nl', 'DHL Parcel NL', 'NL', { service: 'DHL Parcel Connect' }),
  carrier('bpost', 'bpost', 'BE', { service: 'bpack 24h Pro', postal: true }),
  carrier('bpost-international', 'bpost international', 'BE', { service: null, intl: true }),
  carrier('post-luxembourg', 'POST Luxembourg', 'LU', { service: null }),
  // Germany, Austria, Switzerland
  carrier('dhl-paket', 'DHL Paket', 'DE', { service: 'DHL Paket &uuml;berall', postal: true }),
  carrier('deutsche-post', 'Deutsche Post', 'DE', { service: 'Warenpost International' }),
  carrier('hermes-de', 'Hermes Germany', 'DE', { service: null }),
  carrier('dpd', 'DPD', 'DE', { service: 'DPD Classic' }),
  carrier('dpd-de', 'DPD Germany', 'DE', { service: null }),
  carrier('gls', 'GLS', 'DE', { service: 'GLS BusinessParcel', postal: true }),
  carrier('ups-de', 'UPS Germany', 'DE', { service: 'UPS Standard&reg;' }),
  carrier('austrian-post', 'Austrian Post', 'AT', { service: 'Paket Premium &Ouml;sterreich' }),
  carrier('swiss-post', 'Swiss Post', 'CH', { service: 'PostPac Priority' }),
  // France
  carrier('colissimo', 'Colissimo', 'FR', { service: 'Colissimo Domicile &ndash; sans signature' }),
  carrier('chronopost', 'Chronopost', 'FR', { service: 'Chrono 13', postal: true }),
  carrier('la-poste', 'La Poste', 'FR', { service: 'Lettre Suivie' }),
  carrier('mondial-relay', 'Mondial Relay', 'FR', { service: null }),
  carrier('colis-prive', 'Colis Privé', 'FR', { service: null }),
  carrier('dpd-fr', 'DPD France', 'FR', { service: 'DPD Predict' }),
  carrier('gls-fr', 'GLS France', 'FR', { service: null }),
  // Southern Europe
  carrier('correos', 'Correos', 'ES', { service: 'Paquete Premium' }),
  carrier('correos-express', 'Correos Express', 'ES', { service: null }),
  carrier('seur', 'SEUR', 'ES', { service: 'SEUR 24' }),
  carrier('mrw', 'MRW', 'ES', { service: null }),
  carrier('nacex', 'NACEX', 'ES', { service: null }),
  carrier('ctt', 'CTT', 'PT', { service: 'CTT Expresso 48' }),
  carrier('poste-italiane', 'Poste Italiane', 'IT', { service: 'Poste Delivery Business Express' }),
  carrier('brt', 'BRT Bartolini', 'IT', { service: null }),
  carrier('sda', 'SDA', 'IT', { service: 'SDA Extra Large' }),
  carrier('gls-italy', 'GLS Italy', 'IT', { service: null }),
  carrier('elta', 'ELTA Hellenic Post', 'GR', { service: null }),
  carrier('acs-courier', 'ACS Courier', 'GR', { service: null }),
  // Nordics and Eastern Europe
  carrier('posti', 'Posti', 'FI', { service: 'Postipaketti' }),
  carrier('postnord', 'PostNord', 'SE', { service: 'MyPack Collect' }),
  carrier('postnord-dk', 'PostNord Denmark', 'DK', { service: null }),
  carrier('bring', 'Bring', 'NO', { service: 'Bring PickUp Parcel' }),
  carrier('posten-norge', 'Posten Norge', 'NO', { service: null }),
  carrier('budbee', 'Budbee', 'SE', { service: null }),
  carrier('instabox', 'Instabox', 'SE', { service: null }),
  carrier('inpost', 'InPost', 'PL', { service: 'Paczkomat&reg; InPost' }),
  carrier('poczta-polska', 'Poczta Polska', 'PL', { service: null }),
  carrier('dpd-pl', 'DPD Poland', 'PL', { service: null }),
  carrier('czech-post', 'Czech Post', 'CZ', { service: null }),
  carrier('packeta', 'Packeta', 'CZ', { service: 'Z-BOX &amp; Pick-up point' }),
  carrier('magyar-posta', 'Magyar Posta', 'HU', { service: null }),
  carrier('posta-romana', 'Posta Romana', 'RO', { service: null }),
  carrier('fan-courier', 'FAN Courier', 'RO', { service: null }),
  carrier('econt', 'Econt', 'BG', { service: null }),
  carrier('ukrposhta', 'Ukrposhta', 'UA', { service: null, intl: true }),
  carrier('nova-poshta', 'Nova Poshta', 'UA', { service: null }),
  carrier('ptt', 'PTT Turkish Post', 'TR', { service: null, intl: true }),
  // Asia
  carrier('japan-post', 'Japan Post', 'JP', { service: 'EMS &amp; International ePacket', intl: true }),
  carrier('yamato', 'Yamato Transport', 'JP', { service: 'TA-Q-BIN' }),
  carrier('sagawa', 'Sagawa Express', 'JP', { service: null }),
  carrier('china-post', 'China Post', 'CN', { service: 'China Post Registered Air Mail', intl: true }),
  carrier('china-ems', 'China EMS', 'CN', { service: 'EMS International&reg;', intl: true }),
  carrier('yanwen', 'Yanwen', 'CN', { service: 'Yanwen Special Line&#8482;', intl: true }),
  carrier('4px', '4PX', 'CN', { service: '4PX Singpost &amp; Registered', intl: true }),
  carrier('yunexpress', 'YunExpress', 'CN', { service: 'YunExpress Global Direct Line', intl: true }),
  carrier('cainiao', 'Cainiao', 'CN', { service: 'AliExpress Standard Shipping', intl: true }),
  carrier('sfc', 'SFC Service', 'CN', { service: null, intl: true }),
  carrier('j-t-express', 'J&T Express', 'ID', { service: null }),
  carrier('ninja-van', 'Ninja Van', 'SG', { service: null }),
  carrier('singapore-post', 'Singapore Post', 'SG', { service: 'SpeedPost Priority', intl: true }),
  carrier('korea-post', 'Korea Post', 'KR', { service: 'K-Packet', intl: true }),
  carrier('cj-logistics', 'CJ Logistics', 'KR', { service: null }),
  carrier('thailand-post', 'Thailand Post', 'TH', { service: 'EMS World', intl: true }),
  carrier('kerry-express', 'Kerry Express', 'TH', { service: null }),
  carrier('pos-malaysia', 'Pos Malaysia', 'MY', { service: 'Pos Laju' }),
  carrier('lbc', 'LBC Express', 'PH', { service: null }),
  carrier('vietnam-post', 'Vietnam Post', 'VN', { service: null }),
  carrier('hong-kong-post', 'Hong Kong Post', 'HK', { service: 'Speedpost', intl: true }),
  carrier('chunghwa-post', 'Chunghwa Post', 'TW', { service: null }),
  carrier('india-post', 'India Post', 'IN', { service: 'Speed Post', intl: true }),
  carrier('delhivery', 'Delhivery', 'IN', { service: 'Delhivery Surface' }),
  carrier('blue-dart', 'Blue Dart', 'IN', { service: 'Dart Apex&reg;' }),
  carrier('dtdc', 'DTDC', 'IN', { service: null }),
  carrier('ecom-express', 'Ecom Express', 'IN', { service: null }),
  carrier('xpressbees', 'XpressBees', 'IN', { service: null }),
  carrier('shiprocket', 'Shiprocket', 'IN', { service: null }),
  // Middle East and Africa
  carrier('emirates-post', 'Emirates Post', 'AE', { service: null }),
  carrier('saudi-post', 'Saudi Post', 'SA', { service: null }),
  carrier('israel-post', 'Israel Post', 'IL', { service: null, intl: true }),
  carrier('the-courier-guy', 'The Courier Guy', 'ZA', { service: null }),
  carrier('south-african-post-office', 'South African Post Office', 'ZA', { service: null }),
  // Oceania
  carrier('australia-post', 'Australia Post', 'AU', { service: 'Parcel Post + Signature' }),
  carrier('startrack', 'StarTrack', 'AU', { service: 'StarTrack Premium' }),
  carrier('courier-please', 'CouriersPlease', 'AU', { service: null }),
  carrier('sendle', 'Sendle', 'AU', { service: 'Sendle Standard Pick-up' }),
  carrier('aramex-au', 'Aramex Australia', 'AU', { service: null }),
  carrier('toll-ipec', 'Toll IPEC', 'AU', { service: null }),
  carrier('new-zealand-post', 'New Zealand Post', 'NZ', { service: 'ParcelPost Tracked' }),
  carrier('nz-couriers', 'NZ Couriers', 'NZ', { service: null }),
  // South America
  carrier('correios', 'Correios', 'BR', { service: 'SEDEX' }),
  carrier('jadlog', 'Jadlog', 'BR', { service: null }),
  carrier('correo-argentino', 'Correo Argentino', 'AR', { service: null }),
  carrier('chilexpress', 'Chilexpress', 'CL', { service: null }),
  carrier('servientrega', 'Servientrega', 'CO', { service: null }),
  // Carriers that report no origin country
  carrier('other', 'Other', null, { service: null }),
  carrier('global-post', 'GlobalPost', null, { service: 'GlobalPost Economy&trade;', intl: true }),
];

const bySlug: ReadonlyMap<string, Carrier> = new Map(carriers.map((c) => [c.slug, c]));

/** The carrier with this slug, or undefined. Slugs are matched exactly (case-sensitive). */
export function findCarrier(slug: string): Carrier | undefined {
  return bySlug.get(slug);
}

/** The public provider list: label and slug of every carrier. */
export function providerList(): Array<{ label: string; slug: string }> {
  return carriers.map((c) => ({ label: c.label, slug: c.slug }));
}

/**
 * Names what a carrier needs at creation but did not get, as one sentence
 * (e.g. `postal_code and destination_country are required for postnl-3s`); null when nothing is missing.
 */
export function missingRequirements(
  c: Carrier,
  given: { postalCode: string | null; destinationCountry: string | null },
): string | null {
  const missing: string[] = [];
  if (c.requiresPostalCode && !given.postalCode) missing.push('postal_code');
  if (c.requiresDestinationCountry && !given.destinationCountry) missing.push('destination_country');
  if (missing.length === 0) return null;
  return `${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} required for ${c.slug}`;
}
