import { z } from 'zod';
import type { DatabaseClient } from '../../db/client.js';
import { listFailed, retryFailed } from '../../jobs/retry-failed.js';
import type { ShopRepository } from '../../shops/shop-repository.js';
import { currentShop } from './current-shop.js';

export interface ShopFailedWork {
  trackers: Array<{
    id: string;
    trackingNumber: string;
    provider: string;
    orderName: string | null;
    state: 'failed' | 'dead';
    reason: string | null;
    message: string | null;
    at: Date | null;
    attempts: number;
  }>;
  deliveries: Array<{ id: string; topic: string; error: string | null; receivedAt: Date }>;
}

/** The shop's work that gave up: failed and dead-lettered trackers, and deliveries that failed. */
export async function listShopFailed(
  deps: { prisma: DatabaseClient; shops: ShopRepository },
  domain: string,
): Promise<ShopFailedWork> {
  const shop = await currentShop(deps.shops, domain);
  const failed = await listFailed(deps.prisma, { shopDomain: shop.domain });
  const lines = await deps.prisma.trackingLine.findMany({
    where: { shopId: shop.id, trackerId: { in: failed.trackers.map((t) => t.id) }, orderName: { not: null } },
    select: { trackerId: true, orderName: true },
    orderBy: { updatedAt: 'asc' },
  });
  const orderNames = new Map(lines.map((l) => [l.trackerId, l.orderName])); // newest wins
  return {
    trackers: failed.trackers.map((t) => ({
      id: t.id,
      trackingNumber: t.trackingNumber,
      provider: t.provider,
      orderName: orderNames.get(t.id) ?? null,
      state: t.syncState === 'dead' ? 'dead' : 'failed',
      reason: t.lastErrorReason,
      message: t.lastError,
      at: t.lastErrorAt,
      attempts: t.attempts,
    })),
    deliveries: failed.deliveries.map((d) => ({
      id: d.id,
      topic: d.topic,
      error: d.error,
      receivedAt: d.receivedAt,
    })),
  };
}

const ids = z.array(z.string().trim().min(1).max(100)).max(1000);

export const retryBody = z.object({ trackerIds: ids.optional(), deliveryIds: ids.optional() });
export type RetryBody = z.output<typeof retryBody>;

/**
 * Sends the shop's failed work round again: the ids given (only this shop's count), or, with none, all
 * of it.
 */
export async function retryShopFailed(
  deps: { prisma: DatabaseClient; shops: ShopRepository },
  domain: string,
  body: RetryBody,
): Promise<{ retriedTrackers: number; retriedDeliveries: number }> {
  const shop = await currentShop(deps.shops, domain);
  const result = await retryFailed(deps.prisma, {
    shopDomain: shop.domain,
    ...(body.trackerIds ? { trackerIds: body.trackerIds } : {}),
    ...(body.deliveryIds ? { deliveryIds: body.deliveryIds } : {}),
  });
  return { retriedTrackers: result.trackersReset, retriedDeliveries: result.deliveriesReset };
}
