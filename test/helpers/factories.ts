import { randomBytes } from 'node:crypto';
import type { DatabaseClient } from '../../src/db/client.js';
import type { Shop, Tracker, WebhookDelivery } from '../../src/generated/sqlite/client.js';
import { deliveryFactsOf } from '../../src/shipments/delivery-facts.js';
import { storedEventsOf } from '../../src/shipments/status.js';
import { type EncryptionKeyring, parseKeyring } from '../../src/shops/crypto.js';
import { type FulfillmentPayload, fulfillmentPayload } from '../../src/trackers/fulfillment-payload.js';

/**
 * Small builders for the core-module tests: shops, store-shaped fulfilment bodies, tracker rows, and a
 * way to empty a shared test database between tests.
 */

let sequence = 0;
const run = randomBytes(3).toString('hex');

/** A number unique within this test process, for ids and domains. */
export function nextSeq(): number {
  sequence += 1;
  return sequence;
}

/** A unique *.myshopify.com domain. */
export function uniqueDomain(prefix = 'shop'): string {
  return `${prefix}-${run}-${nextSeq()}.myshopify.com`;
}

/** A 32-byte key in base64, for ENCRYPTION_KEY entries. */
export function randomKey(): string {
  return randomBytes(32).toString('base64');
}

/** A keyring with one current key (`id`). */
export function testKeyring(id = 't1'): EncryptionKeyring {
  return parseKeyring(`${id}:${randomKey()}`);
}

/** Deletes every row the core modules write (shops cascade to their trackers, lines, fulfilments…). */
export async function resetDatabase(prisma: DatabaseClient): Promise<void> {
  await prisma.shop.deleteMany({});
  // The rollups have no key to the shop (their triggers write during a shop's cascade): emptied apart.
  await prisma.shipmentCount.deleteMany({});
  await prisma.deliveryCount.deleteMany({});
  await prisma.shipmentCountDelta.deleteMany({});
  await prisma.deliveryCountDelta.deleteMany({});
  await prisma.carrierCount.deleteMany({});
  await prisma.carrierCountDelta.deleteMany({});
  await prisma.webhookDelivery.deleteMany({});
  await prisma.carrier.deleteMany({});
  await prisma.appState.deleteMany({});
  await prisma.complianceRequest.deleteMany({});
  // The per-shop queues' list of due shops has no key to the shop either (src/db/due-shops.ts).
  await prisma.$executeRawUnsafe('DELETE FROM "DueShop"');
}

export interface ShopOverrides {
  domain?: string;
  createOnFulfillment?: boolean;
  deleteOnCancel?: boolean;
  orderIdSource?: 'id' | 'name';
  pausedReason?: string | null;
  pausedAt?: Date | null;
  probeAt?: Date | null;
}

/** A shop row with no credentials and no pause (unless overridden). */
export function createShop(prisma: DatabaseClient, overrides: ShopOverrides = {}): Promise<Shop> {
  return prisma.shop.create({ data: { domain: uniqueDomain(), ...overrides } });
}

/** Store-shaped fulfilment body (the fields the app reads, like the platform's webhook). */
export interface FulfillmentBodyOptions {
  id?: number | string;
  orderId?: number | string;
  status?: string;
  updatedAt?: string | Date | null;
  createdAt?: string | null;
  carrier?: string | null;
  trackingNumbers?: Array<string | null> | null;
  trackingNumber?: string | null;
  destination?: { zip?: string | null; country_code?: string | null } | null;
  name?: string | null;
  /** The carrier's tracking pages, in the order of trackingNumbers (the store's `tracking_urls`). */
  trackingUrls?: Array<string | null> | null;
}

/** A fulfilment body shaped like the platform's `fulfillments/create|update` payload. */
export function fulfillmentBody(options: FulfillmentBodyOptions = {}): Record<string, unknown> {
  const numbers = options.trackingNumbers === undefined ? ['1Z0000000000000001'] : options.trackingNumbers;
  const updatedAt =
    options.updatedAt instanceof Date
      ? options.updatedAt.toISOString()
      : options.updatedAt === undefined
        ? '2026-11-18T10:21:43-05:00'
        : options.updatedAt;
  return {
    id: options.id ?? 5521012345678,
    order_id: options.orderId ?? 6120000000001,
    status: options.status ?? 'success',
    created_at: options.createdAt === undefined ? '2026-11-18T10:21:43-05:00' : options.createdAt,
    updated_at: updatedAt,
    tracking_company: options.carrier === undefined ? 'UPS' : options.carrier,
    tracking_number: options.trackingNumber === undefined ? (numbers?.[0] ?? null) : options.trackingNumber,
    tracking_numbers: numbers,
    destination:
      options.destination === undefined
        ? { zip: '40003', country_code: 'US', city: 'Louisville', name: 'Jane Doe' }
        : options.destination,
    name: options.name === undefined ? '#1001.1' : options.name,
    ...(options.trackingUrls !== undefined ? { tracking_urls: options.trackingUrls } : {}),
    line_items: [],
  };
}

/** The same, parsed as the worker parses it. */
export function fulfillment(options: FulfillmentBodyOptions = {}): FulfillmentPayload {
  return fulfillmentPayload.parse(fulfillmentBody(options));
}

export interface TrackerOverrides {
  trackingNumber?: string;
  provider?: string;
  orderKey?: string;
  postalCode?: string | null;
  destinationCountry?: string | null;
  desired?: 'active' | 'removed';
  remote?: 'absent' | 'present' | 'unknown';
  syncState?: 'pending' | 'synced' | 'failed' | 'dead';
  attempts?: number;
  nextAttemptAt?: Date;
  leaseOwner?: string | null;
  leaseExpiresAt?: Date | null;
  syncedAt?: Date | null;
  createdAt?: Date;
  /** The status read back from the service (src/shipments), as the poller stores it. */
  status?: string | null;
  statusDetail?: string | null;
  estimatedDelivery?: string | null;
  lastEventAt?: Date | null;
  lastEventMessage?: string | null;
  lastEventLocation?: string | null;
  /** JSON text: an array of {at, status, statusDetail, message, location}. */
  events?: string | null;
  statusCheckedAt?: Date | null;
  nextPollAt?: Date | null;
  lastErrorReason?: string | null;
  lastError?: string | null;
}

/** A tracker row written directly (what desired-state would make), pending by default. */
export function createTracker(
  prisma: DatabaseClient,
  shopId: string,
  overrides: TrackerOverrides = {},
): Promise<Tracker> {
  // What the poller stores with every read (storeShipmentRead): the delivery facts of the status given.
  const facts =
    overrides.status === undefined && overrides.events === undefined
      ? {}
      : deliveryFactsOf({
          status: overrides.status ?? null,
          statusDetail: overrides.statusDetail ?? null,
          events: storedEventsOf(overrides.events ?? null),
          lastEventAt: overrides.lastEventAt ?? null,
          estimatedDelivery: overrides.estimatedDelivery ?? null,
          createdAt: overrides.createdAt ?? new Date(),
        });
  return prisma.tracker.create({
    data: {
      ...facts,
      shopId,
      trackingNumber:
        overrides.trackingNumber ?? `1Z${run.toUpperCase()}${String(nextSeq()).padStart(8, '0')}`,
      provider: 'ups',
      orderKey: '6120000000001',
      postalCode: '40003',
      destinationCountry: 'US',
      desired: 'active',
      remote: 'absent',
      syncState: 'pending',
      nextAttemptAt: new Date(Date.now() - 1_000),
      ...overrides,
    },
  });
}

export interface DeliveryOverrides {
  shopDomain?: string;
  topic?: string;
  eventId?: string;
  state?: 'pending' | 'processed' | 'failed';
  attempts?: number;
  nextAttemptAt?: Date;
  receivedAt?: Date;
  leaseOwner?: string | null;
  leaseExpiresAt?: Date | null;
}

/** A recorded webhook delivery (what intake writes), pending and due by default. */
export function createDelivery(
  prisma: DatabaseClient,
  body: unknown,
  overrides: DeliveryOverrides = {},
): Promise<WebhookDelivery> {
  const n = nextSeq();
  return prisma.webhookDelivery.create({
    data: {
      shopDomain: 'deliveries-shop.myshopify.com',
      topic: 'fulfillments/create',
      eventId: `event-${run}-${n}`,
      webhookId: `webhook-${run}-${n}`,
      payload: typeof body === 'string' ? body : JSON.stringify(body),
      nextAttemptAt: new Date(Date.now() - 1_000),
      ...overrides,
    },
  });
}
