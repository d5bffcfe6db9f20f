import type { AppContext } from '../../context/app-context.js';
import { z } from 'zod';
import type { DatabaseClient } from '../../db/client.js';
import { keysetCursorParam } from '../../db/keyset-cursor.js';
import { storableString } from '../../db/storable-text.js';
import {
  countFailed,
  type FailedDelivery,
  failedDeliveriesPage,
  type FailedTracker,
  failedTrackersPage,
  retryFailed,
} from '../../jobs/retry-failed.js';
import { orderNamesOfTrackers } from '../../shipments/queries/order-names.js';
import { currentShop } from './current-shop.js';

export interface FailedTrackerView {
  id: string;
  trackingNumber: string;
  provider: string;
  orderName: string | null;
  state: 'failed' | 'dead';
  reason: string | null;
  message: string | null;
  at: Date | null;
  attempts: number;
}

export interface FailedDeliveryView {
  id: string;
  topic: string;
  error: string | null;
  receivedAt: Date;
}

/** The first page of each failed list, how many each holds in all, and where each next page starts. */
export interface ShopFailedWork {
  trackers: FailedTrackerView[];
  deliveries: FailedDeliveryView[];
  counts: ShopFailedCounts;
  next: { trackers: string | null; deliveries: string | null };
}

export interface ShopFailedCounts {
  trackers: number;
  deliveries: number;
}

export const failedPageQuery = z.object({ after: keysetCursorParam.optional() });
export type FailedPageQuery = z.output<typeof failedPageQuery>;

/**
 * How many of the shop's trackers and deliveries failed: counts on indexes, for the Overview's health
 * (the same conditions as the lists below).
 */
export async function countShopFailed(
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
): Promise<ShopFailedCounts> {
  const shop = await currentShop(ctx.shops, domain);
  return countFailed(ctx.prisma, { shopId: shop.id, shopDomain: shop.domain });
}

/**
 * The shop's work that gave up: failed and dead-lettered trackers (the newest failure first), and
 * deliveries that failed (the newest first); 50 of each, with their counts. The next pages come from
 * listShopFailedTrackers / listShopFailedDeliveries with the `next` cursors.
 */
export async function listShopFailed(
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
): Promise<ShopFailedWork> {
  const shop = await currentShop(ctx.shops, domain);
  const filter = { shopId: shop.id, shopDomain: shop.domain };
  const [trackers, deliveries, counts] = await Promise.all([
    failedTrackersPage(ctx.prisma, filter),
    failedDeliveriesPage(ctx.prisma, filter),
    countFailed(ctx.prisma, filter),
  ]);
  return {
    trackers: await trackerViews(ctx.prisma, shop.id, trackers.rows),
    deliveries: deliveries.rows.map(deliveryView),
    counts,
    next: { trackers: trackers.next, deliveries: deliveries.next },
  };
}

/** The next page of the shop's failed trackers. */
export async function listShopFailedTrackers(
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
  query: FailedPageQuery,
): Promise<{ trackers: FailedTrackerView[]; next: string | null }> {
  const shop = await currentShop(ctx.shops, domain);
  const page = await failedTrackersPage(
    ctx.prisma,
    { shopId: shop.id, shopDomain: shop.domain },
    query.after ? { after: query.after } : {},
  );
  return { trackers: await trackerViews(ctx.prisma, shop.id, page.rows), next: page.next };
}

/** The next page of the shop's failed deliveries. */
export async function listShopFailedDeliveries(
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
  query: FailedPageQuery,
): Promise<{ deliveries: FailedDeliveryView[]; next: string | null }> {
  const shop = await currentShop(ctx.shops, domain);
  const page = await failedDeliveriesPage(
    ctx.prisma,
    { shopId: shop.id, shopDomain: shop.domain },
    query.after ? { after: query.after } : {},
  );
  return { deliveries: page.rows.map(deliveryView), next: page.next };
}

async function trackerViews(
  prisma: DatabaseClient,
  shopId: string,
  trackers: FailedTracker[],
): Promise<FailedTrackerView[]> {
  const orderNames = await orderNamesOfTrackers(
    prisma,
    shopId,
    trackers.map((t) => t.id),
  );
  return trackers.map((t) => ({
    id: t.id,
    trackingNumber: t.trackingNumber,
    provider: t.provider,
    orderName: orderNames.get(t.id) ?? null,
    state: t.syncState === 'dead' ? 'dead' : 'failed',
    reason: t.lastErrorReason,
    message: t.lastError,
    at: t.lastErrorAt,
    attempts: t.attempts,
  }));
}

function deliveryView(d: FailedDelivery): FailedDeliveryView {
  return { id: d.id, topic: d.topic, error: d.error, receivedAt: d.receivedAt };
}

const ids = z.array(storableString().trim().min(1).max(100)).max(1000);

export const retryBody = z.object({ trackerIds: ids.optional(), deliveryIds: ids.optional() });
export type RetryBody = z.output<typeof retryBody>;

/**
 * Sends the shop's failed work round again: the ids given (only this shop's count), or, with none, all
 * of it (one statement per kind, however many failed).
 */
export async function retryShopFailed(
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
  body: RetryBody,
): Promise<{ retriedTrackers: number; retriedDeliveries: number }> {
  const shop = await currentShop(ctx.shops, domain);
  const result = await retryFailed(ctx.prisma, {
    shopId: shop.id,
    shopDomain: shop.domain,
    ...(body.trackerIds ? { trackerIds: body.trackerIds } : {}),
    ...(body.deliveryIds ? { deliveryIds: body.deliveryIds } : {}),
  });
  return { retriedTrackers: result.trackersReset, retriedDeliveries: result.deliveriesReset };
}
