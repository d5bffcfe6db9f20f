/**
 * The scale bench's data: shops, fulfilments and everything the app writes for them, generated in SQL
 * (PostgreSQL: `generate_series`; SQLite: a recursive CTE), set-based, into the app's own schema after its
 * migrations, with its indexes and foreign keys in place (they are part of what the app pays per row).
 *
 * Rows per fulfilment, as the app writes them: 1 Fulfillment, ~1.2 TrackingLine and ~1.2 Tracker (a fifth
 * of the fulfilments carry two numbers), ~5 StoreFulfillmentEvent (one per platform status change of each
 * parcel), ~5.5 StatusPush (one per tracking event the service pushed, the body kept as received: the
 * shipment with its whole history so far), 1 WebhookDelivery (processed, body emptied). Statuses follow
 * the emulator's lifecycle (label → picked up → facility → out for delivery → delivered) over a 30–130 h
 * transit, with failed attempts, delays, parcels stuck in transit, returns, the service's own tracker states,
 * failed trackers, carriers not mapped and cancelled fulfilments mixed in; the tracker's `events` history
 * is stored as the poller stores it (`storeShipmentRead`). Fulfilments are spread over 89.9 days before
 * the seed's `now` (so a 90-day window asked later still holds every one of them), generated in time
 * slices across all shops so a shop's rows are interleaved with the others' as they would be in a real
 * table. Everything is deterministic except ids (random UUIDs), as in the app.
 *
 * Staging tables (`scale_seed.*` on PostgreSQL, `scale_seed_*` on SQLite) hold the per-fulfilment and
 * per-parcel plan; they are dropped once the app's tables are filled.
 */
import { createCarrierMatcher, normaliseCarrierName } from '../src/carriers/match.js';
import { sqlTimestamp } from '../src/db/insert-rows.js';
import { providerList } from '../tools/emulator/carriers.js';
import { parseKeyring, seal } from '../src/shops/crypto.js';
import { newPushToken } from '../src/status-pushes/token.js';

export type SeedProvider = 'postgresql' | 'sqlite';

/** Runs one seeding job (its statements, in order) on one connection. */
export type RunJob = (job: SeedJob) => Promise<void>;

export interface ScaleShop {
  no: number;
  domain: string;
  fulfillments: number;
  /** '1m', '100k', '10k' for the sized shops; 'small' for the many small ones. */
  label: string;
  /** Filled by the seed. */
  id?: string;
}

/** The service account every seeded shop is connected to (the emulator's, in the bench). */
export const scaleAccount = { apiKey: 'scale-service-key-0001', appName: 'scale-store' };

const daySeconds = 86_400;
/** Fulfilments are spread over this many days before `now`. */
export const spanDays = 89.9;

/** `10k` → 10 000, `1m` → 1 000 000. */
export function parseSize(label: string): number {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(label.trim());
  if (!m) throw new Error(`not a size: "${label}" (say 10k, 100k, 1m)`);
  const unit = m[2]!.toLowerCase() === 'm' ? 1_000_000 : m[2]!.toLowerCase() === 'k' ? 1_000 : 1;
  return Math.round(Number(m[1]) * unit);
}

/** Lines per fulfilment on average (a fifth carry two numbers). */
export const linesPerFulfillment = 1.2;

export function plannedShops(sizes: string[], smallShops: number): ScaleShop[] {
  const shops: ScaleShop[] = sizes.map((label, i) => ({
    no: i + 1,
    domain: `scale-${label.toLowerCase()}.myshopify.com`,
    fulfillments: Math.max(1, Math.round(parseSize(label) / linesPerFulfillment)),
    label: label.toLowerCase(),
  }));
  // 10–156 fulfilments each (mean ~83, ~100 parcels): a long tail of small stores.
  for (let i = 0; i < smallShops; i++) {
    const r = (i * 0.6180339887498949) % 1;
    shops.push({
      no: 100 + i,
      domain: `small-${String(i + 1).padStart(5, '0')}.myshopify.com`,
      fulfillments: 10 + Math.floor(r * 147),
      label: 'small',
    });
  }
  return shops;
}

/* ------------------------------------------------------------------ dialects */

interface Dialect {
  provider: SeedProvider;
  /** Staging table name. */
  t(name: string): string;
  /** A timestamp column's value from epoch seconds. */
  ts(epoch: string): string;
  /** `YYYY-MM-DDTHH:MM:SS.sssZ` (JSON, as Date#toISOString). */
  iso(epoch: string): string;
  /** `YYYY-MM-DD HH:MM:SS` (the service's times). */
  svc(epoch: string): string;
  /** `YYYY-MM-DD`. */
  date(epoch: string): string;
  /** Epoch seconds of the start of that UTC day. */
  dayStart(epoch: string): string;
  uuid(): string;
  /** A float in [0, 1) from an integer expression: a Weyl sequence per (odd, well-spread) multiplier. */
  rnd(expr: string, multiplier: number): string;
  floorInt(expr: string): string;
  lpad(expr: string, width: number): string;
  /** SHA-256 hex of a text (SQLite has none: random hex of the same length, same shape). */
  sha256(expr: string): string;
  newline: string;
  agg(expr: string, orderBy: string): string;
  runningAgg(expr: string, partitionBy: string, orderBy: string): string;
  /** `WITH RECURSIVE g(n) AS (… 0..max …)` (PostgreSQL: generate_series; SQLite: a recursive CTE). */
  series(maxExpr: string): string;
  /**
   * The fulfilments of one slice: a SELECT of (chunk, shop_no, shop_id, domain, nf, f, gf), one row per
   * fulfilment of each shop's range in that slice; `prefix` is the WITH clause it needs ('' if none).
   */
  fulfillmentsOf(chunk: number, range: string, shop: string): { prefix: string; select: string };
  bool(value: boolean): string;
  doubleType: string;
}

const weyl = (expr: string, multiplier: number) => `((${expr}) * ${multiplier}) % 4294967296`;

export const postgresDialect: Dialect = {
  provider: 'postgresql',
  t: (name) => `scale_seed.${name}`,
  ts: (e) => `(to_timestamp(${e}) AT TIME ZONE 'UTC')::timestamp(3)`,
  iso: (e) => `to_char(to_timestamp(${e}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  svc: (e) => `to_char(to_timestamp(${e}) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')`,
  date: (e) => `to_char(to_timestamp(${e}) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
  dayStart: (e) => `(floor((${e}) / 86400.0) * 86400.0)`,
  uuid: () => `gen_random_uuid()::text`,
  rnd: (e, m) => `((${weyl(e, m)})::float8 / 4294967296.0)`,
  floorInt: (e) => `floor(${e})::int`,
  lpad: (e, w) => `lpad((${e})::text, ${w}, '0')`,
  sha256: (e) => `encode(sha256(convert_to(${e}, 'UTF8')), 'hex')`,
  newline: `E'\\n'`,
  agg: (e, o) => `string_agg(${e}, ',' ORDER BY ${o})`,
  runningAgg: (e, p, o) =>
    `string_agg(${e}, ',') OVER (PARTITION BY ${p} ORDER BY ${o} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`,
  series: (max) => `WITH RECURSIVE g(n) AS (SELECT generate_series(0, (${max})) AS n)`,
  fulfillmentsOf: (chunk, range, shop) => ({
    prefix: '',
    select:
      `SELECT r.chunk, s.shop_no, s.shop_id, s.domain, s.nf, g.f, s.gf0 + g.f AS gf ` +
      `FROM ${range} r JOIN ${shop} s ON s.shop_no = r.shop_no CROSS JOIN LATERAL generate_series(r.f_lo, r.f_hi) AS g(f) ` +
      `WHERE r.chunk = ${chunk}`,
  }),
  bool: (v) => (v ? 'true' : 'false'),
  doubleType: 'double precision',
};

const sqliteUuid =
  `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || ` +
  `substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`;

export const sqliteDialect: Dialect = {
  provider: 'sqlite',
  t: (name) => `scale_seed_${name}`,
  ts: (e) => `strftime('%Y-%m-%dT%H:%M:%f+00:00', ${e}, 'unixepoch')`,
  iso: (e) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${e}, 'unixepoch')`,
  svc: (e) => `strftime('%Y-%m-%d %H:%M:%S', ${e}, 'unixepoch')`,
  date: (e) => `strftime('%Y-%m-%d', ${e}, 'unixepoch')`,
  dayStart: (e) => `(CAST((${e}) / 86400 AS INTEGER) * 86400.0)`,
  uuid: () => sqliteUuid,
  rnd: (e, m) => `((${weyl(e, m)}) * 1.0 / 4294967296.0)`,
  floorInt: (e) => `CAST(${e} AS INTEGER)`,
  lpad: (e, w) => `substr('${'0'.repeat(w)}' || (${e}), -${w}, ${w})`,
  sha256: () => `lower(hex(randomblob(32)))`,
  newline: 'char(10)',
  agg: (e, o) => `group_concat(${e}, ',' ORDER BY ${o})`,
  runningAgg: (e, p, o) =>
    `group_concat(${e}, ',') OVER (PARTITION BY ${p} ORDER BY ${o} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`,
  series: (max) => `WITH RECURSIVE g(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM g WHERE n < (${max}))`,
  fulfillmentsOf: (chunk, range, shop) => ({
    prefix: sqliteDialect.series(
      `(SELECT COALESCE(MAX(f_hi - f_lo), 0) FROM ${range} WHERE chunk = ${chunk})`,
    ),
    select:
      `SELECT r.chunk, s.shop_no, s.shop_id, s.domain, s.nf, r.f_lo + g.n AS f, s.gf0 + r.f_lo + g.n AS gf ` +
      `FROM ${range} r JOIN ${shop} s ON s.shop_no = r.shop_no JOIN g ON g.n <= r.f_hi - r.f_lo WHERE r.chunk = ${chunk}`,
  }),
  bool: (v) => (v ? '1' : '0'),
  doubleType: 'REAL',
};

/**
 * Multipliers of the pseudo-random draws (odd, their ratios to 2^32 far from simple fractions and from
 * each other, so the draws are independent enough): one per decision.
 */
const M = {
  // per fulfilment (gf)
  createdJitter: 2654435761,
  carrier: 3266489917,
  cancelled: 668265263,
  twoLines: 374761393,
  // per parcel (tn)
  scenario: 3432918353,
  failed: 1103515245,
  transit: 461845907,
  estimate: 2971215073,
  hasLabel: 1597334677,
  pushLabel: 3812015801,
  uspsPickup: 1779033703,
  originCity: 1234567891,
  hubCity: 2891336453,
  destCity: 3735928559,
  nextPoll: 2246822519,
  checkedAt: 668265263,
  // per event (tn * 16 + seq)
  eventJitter: 2246822519,
  storeRefused: 2654435761,
  stalePush: 1597334677,
};

/* ------------------------------------------------------------------ fixed data */

/** The store's carrier names, their share of fulfilments, number format and country. */
const storeCarriers = [
  { name: 'UPS', share: 0.28, fmt: 'ups', country: 'US', url: 'https://www.ups.com/track?tracknum=' },
  {
    name: 'USPS',
    share: 0.22,
    fmt: 'usps',
    country: 'US',
    url: 'https://tools.usps.com/go/TrackConfirmAction?tLabels=',
  },
  {
    name: 'FedEx',
    share: 0.14,
    fmt: 'fedex',
    country: 'US',
    url: 'https://www.fedex.com/fedextrack/?trknbr=',
  },
  {
    name: 'DHL Express',
    share: 0.08,
    fmt: 'dhl',
    country: 'DE',
    url: 'https://www.dhl.com/en/express/tracking.html?AWB=',
  },
  {
    name: 'Canada Post',
    share: 0.06,
    fmt: 'canada',
    country: 'CA',
    url: 'https://www.canadapost-postescanada.ca/track-reperage/en#/search?searchFor=',
  },
  {
    name: 'Royal Mail',
    share: 0.06,
    fmt: 'royal',
    country: 'GB',
    url: 'https://www.royalmail.com/track-your-item#/tracking-results/',
  },
  {
    name: 'PostNL International 3S',
    share: 0.04,
    fmt: 'postnl',
    country: 'NL',
    url: 'https://jouw.postnl.nl/track-and-trace/',
  },
  {
    name: 'DPD',
    share: 0.05,
    fmt: 'dpd',
    country: 'DE',
    url: 'https://tracking.dpd.de/status/en_US/parcel/',
  },
  { name: 'GLS', share: 0.04, fmt: 'gls', country: 'DE', url: 'https://gls-group.com/track/' },
  { name: 'Evri', share: 0.025, fmt: 'evri', country: 'GB', url: 'https://www.evri.com/track/parcel/' },
  // No provider matches this name: its lines wait for the merchant to map it (no tracker).
  { name: 'Speedy Local Couriers', share: 0.005, fmt: 'local', country: 'US', url: '' },
];

const cities: Record<string, Array<[string, string]>> = {
  US: [
    ['Louisville', 'KY'],
    ['Memphis', 'TN'],
    ['Chicago', 'IL'],
    ['Dallas', 'TX'],
    ['Atlanta', 'GA'],
    ['Newark', 'NJ'],
    ['Ontario', 'CA'],
    ['Seattle', 'WA'],
  ],
  CA: [
    ['Toronto', 'ON'],
    ['Mississauga', 'ON'],
    ['Montreal', 'QC'],
    ['Vancouver', 'BC'],
    ['Calgary', 'AB'],
    ['Ottawa', 'ON'],
    ['Winnipeg', 'MB'],
    ['Halifax', 'NS'],
  ],
  GB: [
    ['London', 'England'],
    ['Birmingham', 'England'],
    ['Manchester', 'England'],
    ['Leeds', 'England'],
    ['Glasgow', 'Scotland'],
    ['Bristol', 'England'],
    ['Cardiff', 'Wales'],
    ['Coventry', 'England'],
  ],
  NL: [
    ['Amsterdam', 'NH'],
    ['Rotterdam', 'ZH'],
    ['Utrecht', 'UT'],
    ['Eindhoven', 'NB'],
    ['Nieuwegein', 'UT'],
    ['Groningen', 'GR'],
    ['Den Haag', 'ZH'],
    ['Tilburg', 'NB'],
  ],
  DE: [
    ['Leipzig', 'SN'],
    ['Berlin', 'BE'],
    ['Hamburg', 'HH'],
    ['Cologne', 'NW'],
    ['Frankfurt', 'HE'],
    ['Munich', 'BY'],
    ['Stuttgart', 'BW'],
    ['Bremen', 'HB'],
  ],
};

/**
 * Scenarios (index → share of parcels) and their events. Each event happens at
 * created + fixed_h + frac_t × transit hours (± 10 min); only events up to `now` exist.
 */
const scenarioShares = [
  0.835, // 0 delivered
  0.03, // 1 failed attempt, then delivered
  0.03, // 2 delayed, then delivered
  0.02, // 3 stuck in transit after the facility scan (late)
  0.015, // 4 returned to sender
  0.01, // 5 exception, nothing since
  0.02, // 6 ready for pickup, then collected
  0.005, // 7 the service: invalid tracking number
  0.005, // 8 the service: first data not fetched yet (pending_trackship)
  0.005, // 9 the service: expired
  0.01, // 10 never read yet
];

interface EventTemplate {
  seq: number;
  /** label / pickup: only some carriers scan it. */
  opt: '' | 'label' | 'pickup';
  status: string;
  detail: string | null;
  message: string;
  description: string;
  place: 'o' | 'h' | 'd';
  fixedH: number;
  fracT: number;
  platform: string;
  change: boolean;
  /** 1: pushed; 2: pushed for a quarter of the parcels (the label was often made before the tracker). */
  pushed: 0 | 1 | 2;
}

function scenarioEvents(): Map<number, EventTemplate[]> {
  const label: Omit<EventTemplate, 'seq'> = {
    opt: 'label',
    status: 'pre_transit',
    detail: 'label_created',
    message: 'Shipping label created',
    description: 'The shipper created a label; the carrier has not received the item yet.',
    place: 'o',
    fixedH: 0.25,
    fracT: 0,
    platform: 'LABEL_PRINTED',
    change: true,
    pushed: 2,
  };
  const pickup: Omit<EventTemplate, 'seq'> = {
    opt: 'pickup',
    status: 'in_transit',
    detail: 'picked_up',
    message: 'Picked up by the carrier',
    description: 'The item was picked up and is on its way to a sorting facility.',
    place: 'o',
    fixedH: 6,
    fracT: 0,
    platform: 'CARRIER_PICKED_UP',
    change: true,
    pushed: 1,
  };
  const arrived: Omit<EventTemplate, 'seq'> = {
    opt: '',
    status: 'in_transit',
    detail: 'arrived_at_facility',
    message: 'Arrived at facility',
    description: 'The item arrived at a sorting facility.',
    place: 'h',
    fixedH: 0,
    fracT: 0.45,
    platform: 'IN_TRANSIT',
    change: true,
    pushed: 1,
  };
  const departed: Omit<EventTemplate, 'seq'> = {
    ...arrived,
    detail: 'departed_facility',
    message: 'Departed facility',
    description: 'The item left the sorting facility.',
    fixedH: 2,
    change: false,
  };
  const ofd = (fixedH: number, change = true): Omit<EventTemplate, 'seq'> => ({
    opt: '',
    status: 'in_transit',
    detail: 'out_for_delivery',
    message: 'Out for delivery',
    description: 'The item is on a delivery vehicle.',
    place: 'd',
    fixedH,
    fracT: 1,
    platform: 'OUT_FOR_DELIVERY',
    change,
    pushed: 1,
  });
  const delivered = (fixedH: number, message = 'Delivered'): Omit<EventTemplate, 'seq'> => ({
    opt: '',
    status: 'delivered',
    detail: 'delivered',
    message,
    description: 'Delivered, front door/porch.',
    place: 'd',
    fixedH,
    fracT: 1,
    platform: 'DELIVERED',
    change: true,
    pushed: 1,
  });
  const list = (...events: Array<Omit<EventTemplate, 'seq'>>): EventTemplate[] =>
    events.map((e, i) => ({ ...e, seq: i + 1 }));
  const head = [label, pickup, arrived];
  return new Map<number, EventTemplate[]>([
    [0, list(...head, departed, ofd(-8), delivered(0))],
    [
      1,
      list(
        ...head,
        ofd(-8),
        {
          opt: '',
          status: 'failure',
          detail: 'attempt_fail',
          message: 'Delivery attempted: nobody available to sign',
          description: 'A notice was left; the carrier tries again the next business day.',
          place: 'd',
          fixedH: 0,
          fracT: 1,
          platform: 'ATTEMPTED_DELIVERY',
          change: true,
          pushed: 1,
        },
        ofd(16),
        delivered(24),
      ),
    ],
    [
      2,
      list(
        ...head,
        {
          opt: '',
          status: 'exception',
          detail: 'weather_delay',
          message: 'Delayed: severe weather',
          description: 'Severe weather conditions have delayed delivery.',
          place: 'h',
          fixedH: 10,
          fracT: 0.5,
          platform: 'DELAYED',
          change: true,
          pushed: 1,
        },
        { ...arrived, fixedH: 12, fracT: 0.7 },
        ofd(16),
        delivered(24),
      ),
    ],
    [3, list(...head)],
    [
      4,
      list(...head, {
        opt: '',
        status: 'return_to_sender',
        detail: 'return_to_sender',
        message: 'Returned to sender: address unknown',
        description: 'The item could not be delivered and is on its way back to the shipper.',
        place: 'd',
        fixedH: 24,
        fracT: 1,
        platform: 'FAILURE',
        change: true,
        pushed: 1,
      }),
    ],
    [
      5,
      list(...head, {
        opt: '',
        status: 'exception',
        detail: 'exception',
        message: 'Exception: incorrect address',
        description: 'The address is incomplete; the carrier is contacting the recipient.',
        place: 'h',
        fixedH: 4,
        fracT: 0.6,
        platform: 'DELAYED',
        change: true,
        pushed: 1,
      }),
    ],
    [
      6,
      list(
        ...head,
        {
          opt: '',
          status: 'in_transit',
          detail: 'available_for_pickup',
          message: 'Available for pickup at the access point',
          description: 'The item is waiting at the pickup point.',
          place: 'd',
          fixedH: 0,
          fracT: 1,
          platform: 'READY_FOR_PICKUP',
          change: true,
          pushed: 1,
        },
        delivered(50, 'Picked up by the customer'),
      ),
    ],
  ]);
}

/** Statuses after which the poller stops (src/shipments/status.ts finalStatuses). */
const finalStatuses = ['delivered', 'returned', 'return_to_sender', 'expired', 'invalid_tracking'];

const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
const nullable = (s: string | null) => (s === null ? 'NULL' : q(s));

/* ------------------------------------------------------------------ the plan */

export interface SeedPlan {
  provider: SeedProvider;
  /** Epoch seconds: every event and row is at or before it. */
  now: number;
  shops: ScaleShop[];
  /** Time slices (chunks) the fulfilments are generated in. */
  slices: number;
  encryptionKey: string;
}

/** A unit of seeding work; `after` names the jobs that must be done first. */
export interface SeedJob {
  name: string;
  table: string;
  after: string[];
  sql: string[];
}

export interface SeedSetup {
  /** Staging tables, shops, carriers: run first, in order, on one connection. */
  setup: string[];
  /** Per slice, per table: may run on several connections at once, honouring `after`. */
  jobs: SeedJob[];
  /** Staging tables removed. */
  teardown: string[];
}

/** Epoch seconds → the value the app's column holds, as a literal. */
function tsLiteral(provider: SeedProvider, epochS: number): string {
  return q(sqlTimestamp(new Date(Math.round(epochS * 1000)), provider));
}

export function seedStatements(plan: SeedPlan): SeedSetup {
  const d = plan.provider === 'postgresql' ? postgresDialect : sqliteDialect;
  const T = (name: string) => d.t(name);
  const now = plan.now;
  const t0 = now - spanDays * daySeconds;
  const span = spanDays * daySeconds;
  const keyring = parseKeyring(plan.encryptionKey);
  const dbl = d.doubleType;
  const unlogged = d.provider === 'postgresql' ? 'UNLOGGED ' : '';
  const indexPrefix = d.provider === 'postgresql' ? '' : 'scale_seed_';

  const setup: string[] = [];
  if (d.provider === 'postgresql') setup.push('CREATE SCHEMA IF NOT EXISTS scale_seed');
  setup.push(
    `CREATE ${unlogged}TABLE ${T('shop')} (shop_no integer PRIMARY KEY, shop_id text NOT NULL, domain text NOT NULL, nf integer NOT NULL, gf0 bigint NOT NULL)`,
    `CREATE ${unlogged}TABLE ${T('range')} (chunk integer NOT NULL, shop_no integer NOT NULL, f_lo integer NOT NULL, f_hi integer NOT NULL)`,
    `CREATE ${unlogged}TABLE ${T('carrier')} (no integer PRIMARY KEY, name text NOT NULL, ckey text NOT NULL, slug text, label text, fmt text NOT NULL, country text NOT NULL, url text NOT NULL, lo ${dbl} NOT NULL, hi ${dbl} NOT NULL, service text)`,
    `CREATE ${unlogged}TABLE ${T('city')} (country text NOT NULL, idx integer NOT NULL, city text NOT NULL, state text NOT NULL, PRIMARY KEY (country, idx))`,
    `CREATE ${unlogged}TABLE ${T('tmpl')} (scenario integer NOT NULL, seq integer NOT NULL, opt text NOT NULL, status text NOT NULL, detail text, message text NOT NULL, description text NOT NULL, place text NOT NULL, fixed_h ${dbl} NOT NULL, frac_t ${dbl} NOT NULL, platform text NOT NULL, is_change integer NOT NULL, pushed integer NOT NULL, PRIMARY KEY (scenario, seq))`,
    `CREATE ${unlogged}TABLE ${T('f')} (chunk integer NOT NULL, shop_no integer NOT NULL, shop_id text NOT NULL, domain text NOT NULL, f integer NOT NULL, gf bigint NOT NULL, fid text NOT NULL, fulfillment_id text NOT NULL, order_id text NOT NULL, order_name text NOT NULL, fname text NOT NULL, created ${dbl} NOT NULL, carrier integer NOT NULL, cancelled integer NOT NULL, email text NOT NULL, nlines integer NOT NULL)`,
    `CREATE ${unlogged}TABLE ${T('t')} (chunk integer NOT NULL, shop_id text NOT NULL, tn bigint NOT NULL, fulfillment_id text NOT NULL, order_id text NOT NULL, order_name text NOT NULL, fname text NOT NULL, created ${dbl} NOT NULL, cancelled integer NOT NULL, tracker_id text, line_id text NOT NULL, tracking_number text NOT NULL, provider text, carrier_name text NOT NULL, carrier_key text NOT NULL, carrier_label text, service text, tracking_url text, country text NOT NULL, zip text NOT NULL, scenario integer NOT NULL, failed integer NOT NULL, transit_h ${dbl} NOT NULL, est_h ${dbl} NOT NULL, has_label integer NOT NULL, has_pickup integer NOT NULL, push_label integer NOT NULL, o_city text NOT NULL, o_state text NOT NULL, h_city text NOT NULL, h_state text NOT NULL, d_city text NOT NULL, d_state text NOT NULL)`,
  );

  // Shops: connected (sealed API key), pushes arriving, as a store that installed and set it up.
  const matcher = createCarrierMatcher(providerList());
  const labels = new Map(providerList().map((p) => [p.slug, p.label]));
  let gf0 = 0;
  const shopRows: string[] = [];
  const seedShopRows: string[] = [];
  for (const shop of plan.shops) {
    shop.id ??= crypto.randomUUID();
    const sealed = seal(keyring, scaleAccount.apiKey);
    const installed = tsLiteral(plan.provider, t0 - 30 * daySeconds);
    shopRows.push(
      `(${q(shop.id)}, ${q(shop.domain)}, ${q(scaleAccount.appName)}, ${q(sealed.ciphertext)}, ${q(sealed.keyId)}, ` +
        `100000000, 'Pro', ${installed}, ${installed}, ${tsLiteral(plan.provider, now)}, ${q(newPushToken())}, ` +
        `${tsLiteral(plan.provider, now - 120)})`,
    );
    seedShopRows.push(`(${shop.no}, ${q(shop.id)}, ${q(shop.domain)}, ${shop.fulfillments}, ${gf0})`);
    gf0 += shop.fulfillments;
  }
  for (let i = 0; i < shopRows.length; i += 1000) {
    setup.push(
      `INSERT INTO "Shop" ("id", "domain", "appName", "apiKeyCiphertext", "apiKeyKeyId", "trackersBalance", "userPlan", ` +
        `"installedAt", "createdAt", "updatedAt", "statusPushToken", "lastStatusPushAt") VALUES ${shopRows.slice(i, i + 1000).join(', ')}`,
      `INSERT INTO ${T('shop')} VALUES ${seedShopRows.slice(i, i + 1000).join(', ')}`,
    );
  }
  // The service's carrier list as the daily refresh caches it, refreshed just now.
  const carrierRows = providerList().map(
    (p) => `(${q(p.slug)}, ${q(p.label)}, ${tsLiteral(plan.provider, now)})`,
  );
  setup.push(
    `INSERT INTO "Carrier" ("slug", "label", "updatedAt") VALUES ${carrierRows.join(', ')}`,
    `INSERT INTO "AppState" ("key", "value", "updatedAt") VALUES ('carriers.refreshedAt', ${q(new Date(now * 1000).toISOString())}, ${tsLiteral(plan.provider, now)})`,
  );

  let lo = 0;
  const carrierValues = storeCarriers.map((c, i) => {
    const slug = matcher.match(c.name, new Map()).slug;
    const hi = i === storeCarriers.length - 1 ? 1.000001 : lo + c.share;
    const label = slug ? (labels.get(slug) ?? slug) : null;
    const row =
      `(${i}, ${q(c.name)}, ${q(normaliseCarrierName(c.name))}, ${nullable(slug)}, ${nullable(label)}, ${q(c.fmt)}, ` +
      `${q(c.country)}, ${q(c.url)}, ${lo}, ${hi}, ${nullable(label ? `${label} Standard` : null)})`;
    lo = hi;
    return row;
  });
  setup.push(`INSERT INTO ${T('carrier')} VALUES ${carrierValues.join(', ')}`);
  setup.push(
    `INSERT INTO ${T('city')} VALUES ${Object.entries(cities)
      .flatMap(([country, list]) =>
        list.map(([city, state], idx) => `(${q(country)}, ${idx}, ${q(city)}, ${q(state)})`),
      )
      .join(', ')}`,
  );
  const tmplRows = [...scenarioEvents()].flatMap(([scenario, events]) =>
    events.map(
      (e) =>
        `(${scenario}, ${e.seq}, ${q(e.opt)}, ${q(e.status)}, ${nullable(e.detail)}, ${q(e.message)}, ${q(e.description)}, ` +
        `${q(e.place)}, ${e.fixedH}, ${e.fracT}, ${q(e.platform)}, ${e.change ? 1 : 0}, ${e.pushed})`,
    ),
  );
  setup.push(`INSERT INTO ${T('tmpl')} VALUES ${tmplRows.join(', ')}`);

  // Time slices across every shop: slice c holds fulfilments [nf·c/C, nf·(c+1)/C) of each shop.
  const C = plan.slices;
  setup.push(
    `${d.series(String(C - 1))} INSERT INTO ${T('range')} ` +
      `SELECT g.n, s.shop_no, (s.nf * g.n) / ${C}, (s.nf * (g.n + 1)) / ${C} - 1 FROM ${T('shop')} s, g ` +
      `WHERE (s.nf * (g.n + 1)) / ${C} - 1 >= (s.nf * g.n) / ${C}`,
    `CREATE INDEX ${indexPrefix}range_chunk ON ${T('range')} (chunk)`,
  );

  // Scenario by cumulative share of one draw.
  const scenarioDraw = d.rnd('x.tn', M.scenario);
  let acc = 0;
  const scenarioCase =
    'CASE ' +
    scenarioShares
      .map((share, i) => {
        acc += share;
        return i === scenarioShares.length - 1
          ? `ELSE ${i}`
          : `WHEN ${scenarioDraw} < ${acc.toFixed(6)} THEN ${i}`;
      })
      .join(' ') +
    ' END';

  // Numbers in each carrier's shape, unique per shop: an injective scramble of the parcel's global number.
  const digits = (k: number, salt: number) => d.lpad(`(x.tn * 7919 + ${salt}) % ${10 ** k}`, k);
  const trackingNumber =
    `(CASE c.fmt ` +
    `WHEN 'ups' THEN '1ZV8A' || substr('ABCDEFGHJKLMNPRSTUVWXYZ', 1 + (x.shop_no % 23), 1) || '7403' || ${digits(8, 11)} ` +
    `WHEN 'usps' THEN '94001' || ${digits(17, 13)} ` +
    `WHEN 'fedex' THEN '7' || ${digits(11, 17)} ` +
    `WHEN 'dhl' THEN '4' || ${digits(9, 19)} ` +
    `WHEN 'canada' THEN '7023' || ${digits(12, 23)} ` +
    `WHEN 'royal' THEN 'RM' || ${digits(9, 29)} || 'GB' ` +
    `WHEN 'postnl' THEN '3SABCD' || ${digits(9, 31)} ` +
    `WHEN 'dpd' THEN '0150' || ${digits(10, 37)} ` +
    `WHEN 'gls' THEN '5' || ${digits(10, 41)} ` +
    `WHEN 'evri' THEN 'H00A' || ${digits(12, 43)} ` +
    `ELSE 'LC' || ${digits(10, 47)} END)`;
  const transit = `(30 + 100 * ${d.rnd('x.tn', M.transit)} * ${d.rnd('x.tn', M.transit)})`;
  const cityIdx = (m: number) => d.floorInt(`${d.rnd('x.tn', m)} * 8`);

  const jobs: SeedJob[] = [];
  const evTime = `(t.created + 3600.0 * (m.fixed_h + m.frac_t * t.transit_h) + CASE WHEN m.seq > 1 THEN 1200.0 * (${d.rnd('t.tn * 16 + m.seq', M.eventJitter)} - 0.5) ELSE 0 END)`;
  const optOk = `(m.opt = '' OR (m.opt = 'label' AND t.has_label = 1) OR (m.opt = 'pickup' AND t.has_pickup = 1))`;
  const placeCity = `CASE m.place WHEN 'o' THEN t.o_city WHEN 'h' THEN t.h_city ELSE t.d_city END`;
  const placeState = `CASE m.place WHEN 'o' THEN t.o_state WHEN 'h' THEN t.h_state ELSE t.d_state END`;
  const finals = finalStatuses.map(q).join(', ');
  const estDate = (a: string) => d.date(`${a}.created + 3600.0 * ${a}.est_h`);

  for (let chunk = 0; chunk < C; chunk++) {
    const stage = `stage-${chunk}`;
    const source = d.fulfillmentsOf(chunk, T('range'), T('shop'));
    const stageF =
      `${source.prefix} INSERT INTO ${T('f')} ` +
      `SELECT x.chunk, x.shop_no, x.shop_id, x.domain, x.f, x.gf, ${d.uuid()}, ` +
      `CAST(5000000000000 + x.gf AS text), CAST(6000000000000 + x.gf - x.second AS text), ` +
      `'#' || (1001 + x.f - x.second), '#' || (1001 + x.f - x.second) || '.' || (1 + x.second), ` +
      // Spread evenly over the span, ±0.4 of a slot: never after now.
      `${t0} + ${span} * ((x.f + 0.5 + 0.8 * (${d.rnd('x.gf', M.createdJitter)} - 0.5)) / x.nf), ` +
      `(SELECT c.no FROM ${T('carrier')} c WHERE ${d.rnd('x.gf', M.carrier)} >= c.lo AND ${d.rnd('x.gf', M.carrier)} < c.hi), ` +
      `CASE WHEN ${d.rnd('x.gf', M.cancelled)} < 0.01 THEN 1 ELSE 0 END, ` +
      `'buyer' || (1001 + x.f - x.second) || '@example.com', ` +
      `CASE WHEN ${d.rnd('x.gf', M.twoLines)} < 0.2 THEN 2 ELSE 1 END ` +
      // Every 20th fulfilment is its order's second one.
      `FROM (SELECT y.*, CASE WHEN y.f % 20 = 19 THEN 1 ELSE 0 END AS second FROM (${source.select}) y) x`;
    const stageT =
      `INSERT INTO ${T('t')} ` +
      `SELECT x.chunk, x.shop_id, x.tn, x.fulfillment_id, x.order_id, x.order_name, x.fname, x.created, x.cancelled, ` +
      `CASE WHEN c.slug IS NULL THEN NULL ELSE ${d.uuid()} END, ${d.uuid()}, ${trackingNumber}, c.slug, c.name, c.ckey, c.label, c.service, ` +
      `CASE WHEN c.url = '' THEN NULL ELSE c.url || ${trackingNumber} END, c.country, ${d.lpad('10000 + (x.tn * 31) % 89999', 5)}, ` +
      `CASE WHEN x.cancelled = 1 THEN 11 ELSE ${scenarioCase} END, ` +
      `CASE WHEN x.cancelled = 0 AND ${d.rnd('x.tn', M.failed)} < 0.005 THEN 1 ELSE 0 END, ` +
      `${transit}, ${transit} + 54 * ${d.rnd('x.tn', M.estimate)} - 24, ` +
      `CASE WHEN ${d.rnd('x.tn', M.hasLabel)} < 0.9 THEN 1 ELSE 0 END, ` +
      // USPS often has no separate pickup scan.
      `CASE WHEN c.fmt = 'usps' AND ${d.rnd('x.tn', M.uspsPickup)} < 0.5 THEN 0 ELSE 1 END, ` +
      `CASE WHEN ${d.rnd('x.tn', M.pushLabel)} < 0.35 THEN 1 ELSE 0 END, ` +
      `co.city, co.state, ch.city, ch.state, cd.city, cd.state ` +
      `FROM (SELECT f.*, f.gf * 2 + k.k - 1 AS tn FROM ${T('f')} f JOIN (SELECT 1 AS k UNION ALL SELECT 2) k ON k.k <= f.nlines ` +
      `WHERE f.chunk = ${chunk}) x ` +
      `JOIN ${T('carrier')} c ON c.no = x.carrier ` +
      `JOIN ${T('city')} co ON co.country = c.country AND co.idx = ${cityIdx(M.originCity)} ` +
      `JOIN ${T('city')} ch ON ch.country = c.country AND ch.idx = ${cityIdx(M.hubCity)} ` +
      `JOIN ${T('city')} cd ON cd.country = c.country AND cd.idx = ${cityIdx(M.destCity)}`;
    jobs.push({ name: stage, table: 'staging', after: [], sql: [stageF, stageT] });

    jobs.push({
      name: `fulfillments-${chunk}`,
      table: 'Fulfillment',
      after: [stage],
      sql: [
        `INSERT INTO "Fulfillment" ("id", "shopId", "fulfillmentId", "orderId", "orderName", "customerEmailHash", "status", "carrierName", "sourceUpdatedAt", "createdAt", "updatedAt") ` +
          `SELECT f.fid, f.shop_id, f.fulfillment_id, f.order_id, f.order_name, ${d.sha256(`f.shop_id || ${d.newline} || f.email`)}, ` +
          `CASE WHEN f.cancelled = 1 THEN 'cancelled' ELSE 'success' END, c.name, ${d.ts('f.created - 1')}, ${d.ts('f.created')}, ` +
          `${d.ts('f.created + CASE WHEN f.cancelled = 1 THEN 7200 ELSE 0 END')} ` +
          `FROM ${T('f')} f JOIN ${T('carrier')} c ON c.no = f.carrier WHERE f.chunk = ${chunk} ORDER BY f.created`,
      ],
    });
    jobs.push({
      name: `deliveries-${chunk}`,
      table: 'WebhookDelivery',
      after: [stage],
      sql: [
        `INSERT INTO "WebhookDelivery" ("id", "shopDomain", "topic", "eventId", "webhookId", "apiVersion", "triggeredAt", "payload", "receivedAt", "state", "attempts", "nextAttemptAt", "processedAt") ` +
          `SELECT ${d.uuid()}, f.domain, 'fulfillments/create', ${d.uuid()}, ${d.uuid()}, '2025-10', ${d.ts('f.created - 1.5')}, '', ${d.ts('f.created - 1')}, 'processed', 1, ${d.ts('f.created - 1')}, ${d.ts('f.created')} ` +
          `FROM ${T('f')} f WHERE f.chunk = ${chunk} ORDER BY f.created`,
      ],
    });

    const trackers = `trackers-${chunk}`;
    const storedEvent =
      `'{"at":"' || ${d.iso('e.at')} || '","status":"' || e.status || '","statusDetail":' || ` +
      `CASE WHEN e.detail IS NULL THEN 'null' ELSE '"' || e.detail || '"' END || ',"message":"' || e.message || ` +
      `'","location":"' || e.city || ', ' || e.state || ', ' || e.country || '"}'`;
    const statusExpr =
      `CASE WHEN t.failed = 1 OR t.scenario IN (10, 11) THEN NULL WHEN t.scenario = 7 THEN 'invalid_tracking' ` +
      `WHEN t.scenario = 8 THEN 'pending_trackship' WHEN t.scenario = 9 THEN 'expired' WHEN a.n IS NULL THEN 'pending' ELSE l.status END`;
    jobs.push({
      name: trackers,
      table: 'Tracker',
      after: [stage],
      sql: [
        `WITH e AS (SELECT * FROM (SELECT t.tn, m.seq, m.status, m.detail, m.message, ${placeCity} AS city, ${placeState} AS state, t.country, ${evTime} AS at ` +
          `FROM ${T('t')} t JOIN ${T('tmpl')} m ON m.scenario = t.scenario AND ${optOk} ` +
          `WHERE t.chunk = ${chunk} AND t.tracker_id IS NOT NULL AND t.failed = 0) ev WHERE ev.at <= ${now}), ` +
          `a AS (SELECT e.tn, ${d.agg(storedEvent, 'e.seq')} AS events, COUNT(*) AS n, MAX(e.seq) AS lastseq, MAX(e.at) AS last_at FROM e GROUP BY e.tn), ` +
          `s AS (SELECT t.*, a.events, a.n, a.last_at, l.detail AS l_detail, l.message AS l_message, l.place AS l_place, ${statusExpr} AS status ` +
          `FROM ${T('t')} t LEFT JOIN a ON a.tn = t.tn LEFT JOIN ${T('tmpl')} l ON l.scenario = t.scenario AND l.seq = a.lastseq ` +
          `WHERE t.chunk = ${chunk} AND t.tracker_id IS NOT NULL) ` +
          `INSERT INTO "Tracker" ("id", "shopId", "trackingNumber", "provider", "orderKey", "postalCode", "destinationCountry", "desired", "remote", "syncState", ` +
          `"attempts", "nextAttemptAt", "lastErrorReason", "lastError", "lastErrorAt", "version", "createCalls", "syncedAt", "status", "statusDetail", ` +
          `"estimatedDelivery", "lastEventAt", "lastEventMessage", "lastEventLocation", "events", "statusCheckedAt", "nextPollAt", "pollFailures", "createdAt", "updatedAt") ` +
          `SELECT s.tracker_id, s.shop_id, s.tracking_number, s.provider, s.order_id, s.zip, s.country, ` +
          `CASE WHEN s.cancelled = 1 THEN 'removed' ELSE 'active' END, ` +
          `CASE WHEN s.cancelled = 1 OR s.failed = 1 THEN 'absent' ELSE 'present' END, ` +
          `CASE WHEN s.failed = 1 THEN 'failed' ELSE 'synced' END, ` +
          `CASE WHEN s.failed = 1 THEN 1 ELSE 0 END, ${d.ts('s.created + 1')}, ` +
          `CASE WHEN s.failed = 1 THEN 'destination_required' ELSE NULL END, ` +
          `CASE WHEN s.failed = 1 THEN 'The carrier needs the destination postal code.' ELSE NULL END, ` +
          `CASE WHEN s.failed = 1 THEN ${d.ts('s.created + 2')} ELSE NULL END, ` +
          `2 + COALESCE(s.n, 0), CASE WHEN s.failed = 1 THEN 0 ELSE 1 END, ` +
          `CASE WHEN s.failed = 1 THEN NULL ELSE ${d.ts('s.created + 2')} END, ` +
          `s.status, s.l_detail, ` +
          `CASE WHEN s.n IS NULL THEN NULL ELSE ${estDate('s')} END, ` +
          `CASE WHEN s.n IS NULL THEN NULL ELSE ${d.ts('s.last_at')} END, s.l_message, ` +
          `CASE WHEN s.n IS NULL THEN NULL WHEN s.l_place = 'o' THEN s.o_city || ', ' || s.o_state || ', ' || s.country ` +
          `WHEN s.l_place = 'h' THEN s.h_city || ', ' || s.h_state || ', ' || s.country ELSE s.d_city || ', ' || s.d_state || ', ' || s.country END, ` +
          `CASE WHEN s.status IS NULL THEN NULL WHEN s.n IS NULL THEN '[]' ELSE '[' || s.events || ']' END, ` +
          // Read back at its last event (a final one), or within the last three hours (still moving).
          `CASE WHEN s.status IS NULL THEN NULL WHEN s.status IN (${finals}) THEN ${d.ts('COALESCE(s.last_at, s.created) + 600')} ` +
          `ELSE ${d.ts(`${now} - 10800 * ${d.rnd('s.tn', M.checkedAt)}`)} END, ` +
          // Moving parcels are next read in 1–6 h (after the bench is done); final and removed ones never.
          `CASE WHEN s.cancelled = 1 OR s.failed = 1 OR s.status IN (${finals}) THEN NULL ` +
          `ELSE ${d.ts(`${now} + 3600 + 18000 * ${d.rnd('s.tn', M.nextPoll)}`)} END, 0, ` +
          `${d.ts('s.created')}, ${d.ts('CASE WHEN s.n IS NULL THEN s.created + 2 ELSE s.last_at + 600 END')} ` +
          `FROM s ORDER BY s.created`,
      ],
    });
    jobs.push({
      name: `lines-${chunk}`,
      table: 'TrackingLine',
      after: [trackers],
      sql: [
        `INSERT INTO "TrackingLine" ("id", "shopId", "fulfillmentId", "orderId", "orderName", "fulfillmentName", "trackingNumber", "trackingUrl", "carrierName", ` +
          `"carrierKey", "postalCode", "destinationCountry", "active", "endedReason", "trackerId", "createdAt", "updatedAt") ` +
          `SELECT t.line_id, t.shop_id, t.fulfillment_id, t.order_id, t.order_name, t.fname, t.tracking_number, t.tracking_url, t.carrier_name, ` +
          `t.carrier_key, t.zip, t.country, CASE WHEN t.cancelled = 1 THEN ${d.bool(false)} ELSE ${d.bool(true)} END, ` +
          `CASE WHEN t.cancelled = 1 THEN 'fulfillment_cancelled' ELSE NULL END, t.tracker_id, ${d.ts('t.created')}, ` +
          `${d.ts('t.created + CASE WHEN t.cancelled = 1 THEN 7200 ELSE 0 END')} ` +
          `FROM ${T('t')} t WHERE t.chunk = ${chunk} ORDER BY t.created`,
      ],
    });
    const refused = `${d.rnd('e.tn * 16 + e.seq', M.storeRefused)} < 0.003`;
    jobs.push({
      name: `store-events-${chunk}`,
      table: 'StoreFulfillmentEvent',
      after: [trackers],
      sql: [
        `WITH e AS (SELECT * FROM (SELECT t.*, m.seq, m.message, m.platform, m.place, ${placeCity} AS city, ${placeState} AS state, ${evTime} AS at ` +
          `FROM ${T('t')} t JOIN ${T('tmpl')} m ON m.scenario = t.scenario AND ${optOk} AND m.is_change = 1 ` +
          `WHERE t.chunk = ${chunk} AND t.tracker_id IS NOT NULL AND t.failed = 0) ev WHERE ev.at <= ${now} - 60) ` +
          `INSERT INTO "StoreFulfillmentEvent" ("id", "shopId", "trackerId", "fulfillmentId", "status", "happenedAt", "message", "city", "province", "country", "zip", ` +
          `"estimatedDeliveryAt", "state", "attempts", "nextAttemptAt", "storeEventId", "error", "createdAt", "updatedAt") ` +
          `SELECT ${d.uuid()}, e.shop_id, e.tracker_id, e.fulfillment_id, e.platform, ${d.ts('e.at')}, e.message, e.city, e.state, e.country, ` +
          `CASE WHEN e.place = 'd' THEN e.zip ELSE NULL END, ${d.ts(d.dayStart('e.created + 3600.0 * e.est_h'))}, ` +
          // A few the store refused (listed on Activity); the rest written.
          `CASE WHEN ${refused} THEN 'failed' ELSE 'sent' END, 1, ${d.ts('e.at + 40')}, ` +
          `CASE WHEN ${refused} THEN NULL ELSE 'gid://shopify/FulfillmentEvent/' || (e.tn * 16 + e.seq) END, ` +
          `CASE WHEN ${refused} THEN 'Fulfillment event cannot be created for a cancelled fulfillment.' ELSE NULL END, ` +
          `${d.ts('e.at + 40')}, ${d.ts('e.at + 41')} ` +
          `FROM e ORDER BY e.at`,
      ],
    });
    const rawEvent =
      `'{"object":"TrackingDetail","message":"' || w.message || '","description":"' || w.description || '","status":"' || w.status || '",' || ` +
      `CASE WHEN w.detail IS NULL THEN '' ELSE '"status_detail":"' || w.detail || '",' END || '"datetime":"' || ${d.svc('w.at')} || ` +
      `'","source":"' || w.carrier_label || '","tracking_location":{"object":"TrackingLocation","city":"' || w.city || '","state":"' || w.state || ` +
      `'","country":"' || w.country || '","zip":"' || CASE WHEN w.place = 'd' THEN w.zip ELSE '' END || '"}}'`;
    jobs.push({
      name: `pushes-${chunk}`,
      table: 'StatusPush',
      after: [stage],
      sql: [
        `WITH w AS (SELECT * FROM (SELECT t.*, m.seq, m.status, m.detail, m.message, m.description, m.place, m.pushed, ${placeCity} AS city, ${placeState} AS state, ${evTime} AS at ` +
          `FROM ${T('t')} t JOIN ${T('tmpl')} m ON m.scenario = t.scenario AND ${optOk} ` +
          `WHERE t.chunk = ${chunk} AND t.tracker_id IS NOT NULL AND t.failed = 0) ev WHERE ev.at <= ${now} - 60), ` +
          `x AS (SELECT w.*, ${d.runningAgg(rawEvent, 'w.tn', 'w.seq')} AS evs FROM w) ` +
          `INSERT INTO "StatusPush" ("id", "shopId", "dedupeKey", "payload", "receivedAt", "state", "attempts", "nextAttemptAt", "processedAt") ` +
          `SELECT ${d.uuid()}, x.shop_id, ${d.sha256(`x.tracking_number || '/' || x.provider || '/' || x.seq`)}, ` +
          `'{"order_id":"' || x.order_id || '","tracking_number":"' || x.tracking_number || '","tracking_provider":"' || x.provider || ` +
          `'","tracking_event_status":"' || x.status || '","tracking_est_delivery_date":"' || ${estDate('x')} || ` +
          `'","origin_country":"' || x.country || '","destination_country":"' || x.country || '","delivery_number":null,"delivery_provider":null,"shipping_service":"' || ` +
          `x.service || '","last_event_time":"' || ${d.svc('x.at')} || '","events":[' || x.evs || '],"destination_events":null}', ` +
          `${d.ts('x.at + 30')}, CASE WHEN ${d.rnd('x.tn * 16 + x.seq', M.stalePush)} < 0.02 THEN 'stale' ELSE 'applied' END, 0, ${d.ts('x.at + 30')}, ${d.ts('x.at + 30.2')} ` +
          `FROM x WHERE x.pushed = 1 OR (x.pushed = 2 AND x.push_label = 1) ORDER BY x.at`,
      ],
    });
  }

  const teardown = ['t', 'f', 'range', 'tmpl', 'city', 'carrier', 'shop'].map(
    (name) => `DROP TABLE IF EXISTS ${T(name)}`,
  );
  if (d.provider === 'postgresql') teardown.push('DROP SCHEMA IF EXISTS scale_seed CASCADE');
  return { setup, jobs, teardown };
}

/**
 * Runs the jobs on `connections` (each runs whole jobs), honouring `after`, oldest slice first; `done`
 * names jobs finished before (an interrupted run's). Reports each job's time. A failure stops the other
 * connections after their current job.
 */
export async function runSeedJobs(
  jobs: SeedJob[],
  connections: RunJob[],
  onDone: (job: SeedJob, ms: number) => void,
  doneBefore: ReadonlySet<string> = new Set(),
): Promise<void> {
  const done = new Set<string>(doneBefore);
  const started = new Set<string>(doneBefore);
  let failure: Error | null = null;
  const waiters: Array<() => void> = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  const next = (): SeedJob | null | 'wait' => {
    if (failure) return null;
    const pending = jobs.filter((j) => !started.has(j.name));
    if (pending.length === 0) return null;
    return pending.find((j) => j.after.every((a) => done.has(a))) ?? 'wait';
  };
  await Promise.all(
    connections.map(async (run) => {
      for (;;) {
        const job = next();
        if (job === null) return;
        if (job === 'wait') {
          await new Promise<void>((resolve) => waiters.push(resolve));
          continue;
        }
        started.add(job.name);
        const t = performance.now();
        try {
          await run(job);
        } catch (error) {
          failure ??= new Error(
            `seeding ${job.name} failed: ${error instanceof Error ? error.message : String(error)}`,
          );
          wake();
          return;
        }
        done.add(job.name);
        onDone(job, performance.now() - t);
        wake();
      }
    }),
  );
  if (failure) throw failure;
}
