import { nowOf } from '../lib/clock.js';
import type { DatabaseClient, Tx } from '../db/client.js';
import { type ApiQueueWork } from '../db/lease-queue.js';
import { runQueuePass } from '../db/queue-pass.js';
import { storeLinkQueue } from '../db/queues.js';
import type { Shop, StoreTrackingLink } from '../generated/sqlite/client.js';
import { storeProxyPath } from '../lib/proxy-paths.js';
import type { StoreCallResult } from './post-store-events.js';
import { afterStoreFailure } from './store-retry.js';
import {
  activeLinesOfFulfillment,
  finishStoreLink,
  fulfillmentsWithLinesSince,
  insertStoreLinks,
  leasedStoreLinks,
  wantCarrierLinks,
  wantStoreLinks,
  wantStoreLinksFor,
} from './queries/tracking-links.js';

/**
 * "Send customers to the store's tracking page": while the setting is on, every tracked fulfilment's
 * tracking links point at the store's own page (`https://<shop>/apps/track?tracking=<number>`), so the
 * platform's shipping emails and order status page send shoppers to the store rather than the carrier;
 * turned off, the carrier's links (as the store first sent them) are put back.
 *
 * One row per fulfilment (StoreTrackingLink) says which links it should carry (`wanted`) and what this app
 * last set (`applied`); a worker sets them with the Admin API's `fulfillmentTrackingInfoUpdate` (number and
 * company kept, no customer notification). Setting the same links again changes nothing, so a retry after
 * a lost answer is harmless: no write-ahead mark is needed, unlike fulfilment events.
 */

/** Turning the setting on changes the fulfilments of the last this many days (older ones were delivered). */
export const linkRecentDays = 90;

export function storeTrackingUrl(shopDomain: string, trackingNumber: string): string {
  return `https://${shopDomain}${storeProxyPath}?tracking=${encodeURIComponent(trackingNumber)}`;
}

/** Whether a link is one this app set (the store's page): never kept as "the carrier's link". */
export function isStoreTrackingUrl(shopDomain: string, url: string | null | undefined): boolean {
  if (!url) return false;
  try {
    const parsed = new URL(url);
    return parsed.host.toLowerCase() === shopDomain.toLowerCase() && parsed.pathname === storeProxyPath;
  } catch {
    return false;
  }
}

/** What is sent to the store for one fulfilment. */
export interface TrackingInfoInput {
  fulfillmentId: string;
  company: string | null;
  numbers: string[];
  /** One per number; null: none given (the platform makes the links of carriers it knows). */
  urls: string[] | null;
}

/** The store's side, as a port: src/shopify/tracking-info.ts implements it over Admin GraphQL. */
export interface StoreLinksApi {
  update(shopDomain: string, input: TrackingInfoInput): Promise<StoreCallResult<void>>;
}

/**
 * The setting was turned on or off: queues the fulfilments whose links change. On: every fulfilment with
 * a tracked parcel of the last `linkRecentDays` days (and any failed before) wants the store's links. Off:
 * every fulfilment that wanted them wants the carrier's back (one that never got the store's links is
 * closed without a call). Returns how many fulfilments were queued.
 */
export async function queueLinksForSetting(
  prisma: DatabaseClient | Tx,
  shopId: string,
  on: boolean,
  now: Date = new Date(),
): Promise<number> {
  if (!on) {
    return wantCarrierLinks(prisma, shopId, now);
  }
  const since = new Date(now.getTime() - linkRecentDays * 24 * 3_600_000);
  const fulfillments = await fulfillmentsWithLinesSince(prisma, shopId, since);
  const inserted = await insertStoreLinks(prisma, shopId, fulfillments, now);
  const count = await wantStoreLinks(prisma, shopId, now);
  return inserted.length + count;
}

type LinkShop = Pick<Shop, 'id' | 'domain' | 'linkToTrackingPage'>;
type LinkFulfillment = {
  fulfillmentId: string;
  trackingNumbers: string[];
  trackingUrls: Record<string, string>;
};

function needsStoreLinks(shop: LinkShop, fulfillment: LinkFulfillment): boolean {
  return (
    shop.linkToTrackingPage &&
    fulfillment.trackingNumbers.some((n) => fulfillment.trackingUrls[n] !== storeTrackingUrl(shop.domain, n))
  );
}

/** The same for a batch of new fulfilments (the bulk intake path): one statement. */
export async function queueLinksForNewFulfillments(
  tx: Tx,
  shop: LinkShop,
  fulfillments: readonly LinkFulfillment[],
): Promise<void> {
  await insertStoreLinks(
    tx,
    shop.id,
    fulfillments.filter((f) => needsStoreLinks(shop, f)).map((f) => f.fulfillmentId),
    new Date(),
  );
}

/**
 * Intake of a fulfilment while the setting is on: queued when any of its links is not the store's page
 * (a new fulfilment, or a number corrected). The update the store sends after this app set the links
 * carries the store's links already, so it queues nothing: no loop.
 */
export async function queueLinkForFulfillment(
  tx: Tx,
  shop: LinkShop,
  fulfillment: LinkFulfillment,
): Promise<void> {
  if (!needsStoreLinks(shop, fulfillment)) return;
  const now = new Date();
  await wantStoreLinksFor(tx, shop.id, fulfillment.fulfillmentId, now);
}

export interface LinkStats {
  claimed: number;
  sent: number;
  /** Nothing to send: the fulfilment has no tracked parcel, or never got the store's links. */
  skipped: number;
  retried: number;
  failed: number;
}

export async function sendTrackingLinks(
  deps: ApiQueueWork<StoreLinksApi>,
  limit: number,
): Promise<LinkStats> {
  const stats: LinkStats = { claimed: 0, sent: 0, skipped: 0, retried: 0, failed: 0 };
  // Every path below writes its row with the lease cleared.
  return runQueuePass(deps, {
    queue: storeLinkQueue,
    limit,
    now: nowOf(deps),
    none: stats,
    load: (ids, token) => leasedStoreLinks(deps.prisma, ids, token),
    act: async (rows, leases) => {
      stats.claimed = rows.length;
      // Stores are written one after another (their rate limits are per store).
      for (const row of rows) await sendOne(deps, leases.token, row, stats);
      return stats;
    },
  });
}

async function sendOne(
  deps: ApiQueueWork<StoreLinksApi>,
  token: string,
  row: StoreTrackingLink & { shop: { domain: string; uninstalledAt: Date | null } },
  stats: LinkStats,
): Promise<void> {
  const wanted = row.wanted === 'carrier' ? 'carrier' : 'store';
  const lines = await activeLinesOfFulfillment(deps.prisma, row.shopId, row.fulfillmentId);
  const skip = row.shop.uninstalledAt
    ? 'the app is not installed in this store'
    : lines.length === 0
      ? 'the fulfilment has no tracked parcel any more'
      : wanted === 'carrier' && row.applied === null
        ? null // never changed: nothing to put back
        : undefined;
  if (skip !== undefined) {
    await finish(deps, token, row, { state: skip === null ? 'sent' : 'skipped', error: skip });
    stats.skipped++;
    return;
  }
  const numbers = lines.map((l) => l.trackingNumber);
  const carrierUrls = lines.map((l) => l.trackingUrl);
  const input: TrackingInfoInput = {
    fulfillmentId: row.fulfillmentId,
    company: lines[0]!.carrierName,
    numbers,
    urls:
      wanted === 'store'
        ? numbers.map((n) => storeTrackingUrl(row.shop.domain, n))
        : carrierUrls.every((u): u is string => u !== null)
          ? carrierUrls
          : null,
  };
  const result = await deps.api.update(row.shop.domain, input);
  if (result.ok) {
    await finish(
      deps,
      token,
      row,
      { state: 'sent', error: null, applied: wanted, sentAt: new Date() },
      wanted,
    );
    stats.sent++;
    return;
  }
  const attempts = row.attempts + 1;
  const next = afterStoreFailure(result, attempts, nowOf(deps), deps.maxAttempts);
  if (next.giveUp) {
    await finish(deps, token, row, { state: 'failed', error: result.message.slice(0, 500), attempts });
    stats.failed++;
    deps.logger.warn({ linkId: row.id, reason: result.kind }, 'tracking links not set in the store');
    return;
  }
  await finish(deps, token, row, {
    state: 'pending',
    error: result.message.slice(0, 500),
    attempts,
    nextAttemptAt: next.nextAttemptAt,
  });
  stats.retried++;
}

/**
 * Writes the row's outcome and gives its lease back. When the merchant flipped the setting while the call
 * was out (`wanted` changed), the row stays pending for the new wish; what the store now holds is still
 * recorded (`applied`).
 */
async function finish(
  deps: ApiQueueWork<StoreLinksApi>,
  token: string,
  row: StoreTrackingLink,
  data: Partial<
    Pick<StoreTrackingLink, 'state' | 'error' | 'attempts' | 'nextAttemptAt' | 'applied' | 'sentAt'>
  >,
  sent?: 'store' | 'carrier',
): Promise<void> {
  await finishStoreLink(deps.prisma, token, row, data, sent);
}
