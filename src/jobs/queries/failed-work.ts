import { leaseGivenBack } from '../../db/lease-queue.js';
import type { DatabaseClient } from '../../db/client.js';
import { type KeysetCursor, type KeysetPage, keysetPage } from '../../db/keyset-cursor.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import { countOf, queryRows, SqlParams } from '../../db/sql.js';

/**
 * The work that gave up, as rows: trackers failed or dead, webhook deliveries failed (src/jobs/retry-failed.ts
 * sends them round again). Lists, pages and counts for operators and the Activity page, and the resets.
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

/**
 * Which shop's failed work; none: every shop's. Deliveries are kept by domain, so the domain is needed
 * for them; the id (with the domain) lets trackers be read by the (shopId, …) indexes without a join.
 */
export interface FailedFilter {
  shopDomain?: string;
  shopId?: string;
}

/** Rows per page of the failed lists (the Activity page). */
export const failedPageSize = 50;

export type FailedPage<T> = KeysetPage<T>;

export function trackerScope(filter: FailedFilter): Prisma.TrackerWhereInput {
  return {
    ...(filter.shopId
      ? { shopId: filter.shopId }
      : filter.shopDomain
        ? { shop: { domain: filter.shopDomain } }
        : {}),
    syncState: { in: [...failedTrackerStates] },
  };
}

export function deliveryScope(filter: FailedFilter): Prisma.WebhookDeliveryWhereInput {
  if (filter.shopId && !filter.shopDomain) throw new Error('Failed deliveries are kept by shop domain');
  return { ...(filter.shopDomain ? { shopDomain: filter.shopDomain } : {}), state: 'failed' };
}

/**
 * How many trackers and deliveries failed (of the shop): SQL counts on the (shopId, syncState) and
 * (shopDomain, state, …) indexes, never the rows. The Overview's health lines use these.
 */
export async function countFailed(
  prisma: DatabaseClient,
  filter: FailedFilter,
): Promise<{ trackers: number; deliveries: number }> {
  // One statement for both counts (the same scopes as trackerScope and deliveryScope).
  deliveryScope(filter);
  const p = SqlParams.for(prisma);
  const trackers = [`t."syncState" IN ${p.texts([...failedTrackerStates])}`];
  if (filter.shopId) trackers.push(`t."shopId" = ${p.text(filter.shopId)}`);
  else if (filter.shopDomain)
    trackers.push(
      `t."shopId" IN (SELECT s."id" FROM "Shop" AS s WHERE s."domain" = ${p.text(filter.shopDomain)})`,
    );
  const deliveries = [`d."state" = 'failed'`];
  if (filter.shopDomain) deliveries.push(`d."shopDomain" = ${p.text(filter.shopDomain)}`);
  const [row] = await queryRows<{ trackers: unknown; deliveries: unknown }>(
    prisma,
    `SELECT (SELECT COUNT(*) FROM "Tracker" AS t WHERE ${trackers.join(' AND ')}) AS "trackers",
      (SELECT COUNT(*) FROM "WebhookDelivery" AS d WHERE ${deliveries.join(' AND ')}) AS "deliveries"`,
    p,
  );
  return { trackers: countOf(row?.trackers), deliveries: countOf(row?.deliveries) };
}

/**
 * One page of the failed and dead trackers, the newest failure first: ordered by (lastErrorAt, id)
 * descending, those without a failure time last (by id), read from the (shopId, syncState, lastErrorAt,
 * id) index after the cursor (keyset: no offset, whatever the page).
 */
export async function failedTrackersPage(
  prisma: DatabaseClient,
  filter: FailedFilter,
  page: { after?: KeysetCursor; limit?: number } = {},
): Promise<FailedPage<FailedTracker>> {
  const limit = page.limit ?? failedPageSize;
  const after = page.after;
  const scope = trackerScope(filter);
  const select = {
    id: true,
    shop: { select: { domain: true } },
    trackingNumber: true,
    provider: true,
    orderKey: true,
    syncState: true,
    attempts: true,
    lastErrorReason: true,
    lastError: true,
    lastErrorAt: true,
  } as const;
  const rows =
    after?.at === null
      ? []
      : await prisma.tracker.findMany({
          where: after
            ? {
                ...scope,
                lastErrorAt: { not: null, lte: after.at },
                OR: [{ lastErrorAt: { lt: after.at } }, { id: { lt: after.id } }],
              }
            : { ...scope, lastErrorAt: { not: null } },
          select,
          orderBy: [{ lastErrorAt: 'desc' }, { id: 'desc' }],
          take: limit + 1,
        });
  if (rows.length <= limit) {
    // Then those without a failure time (none, when the reconciler failed them: it always sets it).
    rows.push(
      ...(await prisma.tracker.findMany({
        where: { ...scope, lastErrorAt: null, ...(after?.at === null ? { id: { lt: after.id } } : {}) },
        select,
        orderBy: { id: 'desc' },
        take: limit + 1 - rows.length,
      })),
    );
  }
  const trackers = rows.map(({ shop, ...t }) => ({ ...t, shopDomain: shop.domain }));
  return keysetPage(trackers, limit, (t) => t.lastErrorAt);
}

/**
 * One page of the webhook deliveries that failed, the newest first: (receivedAt, id) descending, read
 * from the (shopDomain, state, receivedAt, id) index after the cursor.
 */
export async function failedDeliveriesPage(
  prisma: DatabaseClient,
  filter: FailedFilter,
  page: { after?: KeysetCursor; limit?: number } = {},
): Promise<FailedPage<FailedDelivery>> {
  const limit = page.limit ?? failedPageSize;
  const after = page.after?.at ? { at: page.after.at, id: page.after.id } : null;
  const rows = await prisma.webhookDelivery.findMany({
    where: {
      ...deliveryScope(filter),
      ...(after
        ? { receivedAt: { lte: after.at }, OR: [{ receivedAt: { lt: after.at } }, { id: { lt: after.id } }] }
        : {}),
    },
    select: { id: true, shopDomain: true, topic: true, error: true, attempts: true, receivedAt: true },
    orderBy: [{ receivedAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  // Whether the body is still there, without reading the bodies.
  const emptied = new Set(
    (
      await prisma.webhookDelivery.findMany({
        where: { id: { in: rows.map((r) => r.id) }, payload: '' },
        select: { id: true },
      })
    ).map((r) => r.id),
  );
  return keysetPage(
    rows.map((d) => ({ ...d, retryable: !emptied.has(d.id) })),
    limit,
    (d) => d.receivedAt,
  );
}

/** Of the failed trackers `where` selects, the ids. */
export async function failedTrackerIds(
  prisma: DatabaseClient,
  where: Prisma.TrackerWhereInput,
): Promise<string[]> {
  return (await prisma.tracker.findMany({ where, select: { id: true } })).map((t) => t.id);
}

/** The failed trackers `where` selects become pending, due now, with a fresh attempt budget: how many. */
export async function resetFailedTrackers(
  prisma: DatabaseClient,
  where: Prisma.TrackerWhereInput,
  now: Date,
): Promise<number> {
  const { count } = await prisma.tracker.updateMany({
    where,
    data: {
      syncState: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      ...leaseGivenBack,
      version: { increment: 1 },
    },
  });
  return count;
}

/** Of the failed deliveries `where` selects, the ids. */
export async function failedDeliveryIds(
  prisma: DatabaseClient,
  where: Prisma.WebhookDeliveryWhereInput,
): Promise<string[]> {
  return (await prisma.webhookDelivery.findMany({ where, select: { id: true } })).map((d) => d.id);
}

/** How many of the failed deliveries `where` selects have their body emptied already. */
export function countEmptiedDeliveries(
  prisma: DatabaseClient,
  where: Prisma.WebhookDeliveryWhereInput,
): Promise<number> {
  return prisma.webhookDelivery.count({ where: { ...where, payload: '' } });
}

/** The failed deliveries `where` selects that still hold their body become pending, due now: how many. */
export async function resetFailedDeliveries(
  prisma: DatabaseClient,
  where: Prisma.WebhookDeliveryWhereInput,
  now: Date,
): Promise<number> {
  const { count } = await prisma.webhookDelivery.updateMany({
    where: { ...where, payload: { not: '' } },
    data: {
      state: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      ...leaseGivenBack,
    },
  });
  return count;
}
