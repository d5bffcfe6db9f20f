import type { DatabaseClient } from '../db/client.js';

/**
 * The work that gave up: trackers the reconciler marked failed (a permanent refusal) or dead (out of
 * attempts), and webhook deliveries that could not be applied. Operators look at them, fix the cause,
 * and send them round again.
 */

export const failedTrackerStates = ['failed', 'dead'] as const;

export interface FailedTracker {
  id: string;
  shopDomain: string;
  trackingNumber: string;
  provider: string;
  orderKey: string;
  syncState: string;
  attempts: number;
  lastErrorReason: string | null;
  lastError: string | null;
  lastErrorAt: Date | null;
}

export interface FailedDelivery {
  id: string;
  shopDomain: string;
  topic: string;
  error: string | null;
  attempts: number;
  receivedAt: Date;
  /** False when the stored body was already emptied: such a delivery cannot be processed again. */
  retryable: boolean;
}

export interface FailedWork {
  trackers: FailedTracker[];
  deliveries: FailedDelivery[];
}

export async function listFailed(
  prisma: DatabaseClient,
  filter: { shopDomain?: string } = {},
): Promise<FailedWork> {
  const trackers = await prisma.tracker.findMany({
    where: {
      syncState: { in: [...failedTrackerStates] },
      ...(filter.shopDomain ? { shop: { domain: filter.shopDomain } } : {}),
    },
    include: { shop: { select: { domain: true } } },
    orderBy: [{ lastErrorAt: 'desc' }, { id: 'asc' }],
  });
  const deliveries = await prisma.webhookDelivery.findMany({
    where: { state: 'failed', ...(filter.shopDomain ? { shopDomain: filter.shopDomain } : {}) },
    select: {
      id: true,
      shopDomain: true,
      topic: true,
      error: true,
      attempts: true,
      receivedAt: true,
      payload: true,
    },
    orderBy: [{ receivedAt: 'desc' }, { id: 'asc' }],
  });
  return {
    trackers: trackers.map((t) => ({
      id: t.id,
      shopDomain: t.shop.domain,
      trackingNumber: t.trackingNumber,
      provider: t.provider,
      orderKey: t.orderKey,
      syncState: t.syncState,
      attempts: t.attempts,
      lastErrorReason: t.lastErrorReason,
      lastError: t.lastError,
      lastErrorAt: t.lastErrorAt,
    })),
    deliveries: deliveries.map(({ payload, ...d }) => ({ ...d, retryable: payload !== '' })),
  };
}

export interface RetrySelection {
  shopDomain?: string;
  /** Only these trackers (and, unless deliveryIds is given too, no deliveries). */
  trackerIds?: readonly string[];
  /** Only these deliveries (and, unless trackerIds is given too, no trackers). */
  deliveryIds?: readonly string[];
}

export interface RetryResult {
  trackersReset: number;
  deliveriesReset: number;
  /** Failed deliveries whose body was already emptied: nothing left to process. */
  deliveriesSkipped: number;
  /** Ids asked for that are not (or no longer) failed, or do not exist. */
  notFailed: string[];
}

/**
 * Sends failed work round again: failed/dead trackers become pending, due now, with a fresh attempt
 * budget (only rows still failed or dead, so a tracker a worker just changed is left alone); failed
 * deliveries become pending, due now. Without ids, everything failed (of the shop, when one is named).
 */
export async function retryFailed(
  prisma: DatabaseClient,
  selection: RetrySelection = {},
): Promise<RetryResult> {
  const byId = selection.trackerIds !== undefined || selection.deliveryIds !== undefined;
  const now = new Date();
  const notFailed: string[] = [];

  let trackersReset = 0;
  if (!byId || selection.trackerIds !== undefined) {
    const where = {
      syncState: { in: [...failedTrackerStates] },
      ...(selection.shopDomain ? { shop: { domain: selection.shopDomain } } : {}),
      ...(selection.trackerIds ? { id: { in: [...selection.trackerIds] } } : {}),
    };
    const ids = (await prisma.tracker.findMany({ where, select: { id: true } })).map((t) => t.id);
    if (ids.length > 0) {
      const { count } = await prisma.tracker.updateMany({
        where: { ...where, id: { in: ids } },
        data: {
          syncState: 'pending',
          attempts: 0,
          nextAttemptAt: now,
          leaseOwner: null,
          leaseExpiresAt: null,
          version: { increment: 1 },
        },
      });
      trackersReset = count;
    }
    const found = new Set(ids);
    for (const id of selection.trackerIds ?? []) if (!found.has(id)) notFailed.push(id);
  }

  let deliveriesReset = 0;
  let deliveriesSkipped = 0;
  if (!byId || selection.deliveryIds !== undefined) {
    const where = {
      state: 'failed',
      ...(selection.shopDomain ? { shopDomain: selection.shopDomain } : {}),
      ...(selection.deliveryIds ? { id: { in: [...selection.deliveryIds] } } : {}),
    };
    const rows = await prisma.webhookDelivery.findMany({ where, select: { id: true, payload: true } });
    const retryable = rows.filter((r) => r.payload !== '').map((r) => r.id);
    deliveriesSkipped = rows.length - retryable.length;
    if (retryable.length > 0) {
      const { count } = await prisma.webhookDelivery.updateMany({
        where: { id: { in: retryable }, state: 'failed', payload: { not: '' } },
        data: {
          state: 'pending',
          attempts: 0,
          nextAttemptAt: now,
          leaseOwner: null,
          leaseExpiresAt: null,
        },
      });
      deliveriesReset = count;
    }
    const found = new Set(rows.map((r) => r.id));
    for (const id of selection.deliveryIds ?? []) if (!found.has(id)) notFailed.push(id);
  }

  return { trackersReset, deliveriesReset, deliveriesSkipped, notFailed };
}
