/**
 * The drain's burst: N fulfilments/create deliveries spread over the bench's shops, each with 1–3 tracking
 * numbers of carriers the app maps on its own (platform carrier names), drawn from a seeded PRNG so every run
 * sends the same burst. Also what the emulator must end up holding: one tracker per (shop, number, provider).
 */
import { randomBytes } from 'node:crypto';
import { readSample } from '../tools/dev/samples.js';
import { webhookApiVersion } from '../tools/dev/webhook-sign.js';

export interface BenchShop {
  domain: string;
  /** The shop's account at the emulator. */
  appName: string;
  apiKey: string;
}

/** The bench's shops and their emulator accounts (fresh API keys per run of the bench). */
export function benchShops(count: number): BenchShop[] {
  return Array.from({ length: count }, (_, i) => {
    const tag = String(i).padStart(2, '0');
    return {
      domain: `bench-shop-${tag}.myshopify.com`,
      appName: `bench-store-${tag}`,
      apiKey: `bench-key-${tag}-${randomBytes(12).toString('hex')}`,
    };
  });
}

/** The shops' accounts at the emulator: a Pro plan with a balance no bench run can spend. */
export function emulatorAccounts(shops: readonly BenchShop[]) {
  return shops.map((s) => ({ apiKey: s.apiKey, appName: s.appName, plan: 'Pro', balance: 1_000_000_000 }));
}

/** Store carrier names (as merchants pick them) and the provider each maps to with no merchant mapping. */
export const burstCarriers: ReadonlyArray<{ name: string; slug: string }> = [
  { name: 'UPS', slug: 'ups' },
  { name: 'USPS', slug: 'usps' },
  { name: 'FedEx', slug: 'fedex' },
  { name: 'DHL Express', slug: 'dhl-express' },
  { name: 'Canada Post', slug: 'canada-post' },
  { name: 'Royal Mail', slug: 'royal-mail' },
  { name: 'Australia Post', slug: 'australia-post' },
  // Needs postal_code and destination_country: the sample's destination has both.
  { name: 'PostNL International 3S', slug: 'postnl-3s' },
];

/** mulberry32: small, fast, deterministic. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A row of the WebhookDelivery table, as intake would have written it. */
export interface BurstDelivery {
  shopDomain: string;
  topic: string;
  eventId: string;
  webhookId: string;
  apiVersion: string;
  triggeredAt: Date;
  payload: string;
}

export interface Burst {
  deliveries: BurstDelivery[];
  /** appName → the `number provider` keys the emulator must hold. */
  expected: Map<string, Set<string>>;
  trackers: number;
}

export function trackerKey(trackingNumber: string, provider: string): string {
  return `${trackingNumber} ${provider}`;
}

export function makeBurst(options: { fulfillments: number; shops: BenchShop[]; seed: number }): Burst {
  const random = prng(options.seed);
  const base = readSample('fulfillments-create.ups');
  const expected = new Map<string, Set<string>>(options.shops.map((s) => [s.appName, new Set<string>()]));
  const deliveries: BurstDelivery[] = [];
  const triggeredAt = new Date();
  let trackers = 0;
  for (let i = 0; i < options.fulfillments; i++) {
    const shop = options.shops[i % options.shops.length]!;
    const carrier = burstCarriers[Math.floor(random() * burstCarriers.length)]!;
    const count = 1 + Math.floor(random() * 3);
    const numbers = Array.from(
      { length: count },
      (_, k) =>
        `BN${String(i).padStart(6, '0')}${k}${Math.floor(random() * 1e6)
          .toString(36)
          .toUpperCase()}`,
    );
    const body = {
      ...base,
      id: 5_600_000_000_000 + i,
      order_id: 6_600_000_000_000 + i,
      name: `#${10_000 + i}.1`,
      tracking_company: carrier.name,
      tracking_number: numbers[0],
      tracking_numbers: numbers,
      tracking_url: null,
      tracking_urls: [],
      admin_graphql_api_id: `gid://shopify/Fulfillment/${5_600_000_000_000 + i}`,
    };
    for (const n of numbers) expected.get(shop.appName)!.add(trackerKey(n, carrier.slug));
    trackers += count;
    deliveries.push({
      shopDomain: shop.domain,
      topic: 'fulfillments/create',
      eventId: `burst-event-${i}`,
      webhookId: `burst-webhook-${i}`,
      apiVersion: webhookApiVersion,
      triggeredAt,
      payload: JSON.stringify(body),
    });
  }
  return { deliveries, expected, trackers };
}
