import { z } from 'zod';
import type { DatabaseClient } from '../../db/client.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import { isFinalStatus, isTroubleStatus } from '../../shipments/status.js';
import type { ShopRepository } from '../../shops/shop-repository.js';
import { currentShop } from './current-shop.js';
import { type LastEventView, lastEventOf, type StatusView, statusView } from './shipment-status.js';

export const attentionPerPage = 100;
/** How many of the newest failed store-timeline writes are listed (all are counted). */
export const failedWritesShown = 5;

const dayMs = 86_400_000;

export const attentionQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
});
export type AttentionQuery = z.output<typeof attentionQuery>;

export interface AttentionRow {
  id: string;
  trackingNumber: string;
  provider: string;
  carrierName: string | null;
  orderId: string;
  orderName: string | null;
  /** exception: the service reports a problem; late: no new event for the shop's staleAfterDays. */
  reason: 'exception' | 'late';
  /** "No scan for 7 days", or the status's label ("Exception", "Returned", "Delayed"…). */
  label: string;
  status: StatusView | null;
  lastEvent: LastEventView | null;
  /** The last sign of life: the newest event, else when the service took the tracker, else its creation. */
  quietSince: string;
  /** Whole days since quietSince. */
  daysQuiet: number;
}

export interface FailedStoreWrite {
  id: string;
  trackerId: string;
  trackingNumber: string | null;
  orderName: string | null;
  fulfillmentId: string;
  status: string;
  happenedAt: string;
  error: string | null;
  attempts: number;
  updatedAt: string;
}

export interface AttentionPage {
  staleAfterDays: number;
  postFulfillmentEvents: boolean;
  shipments: AttentionRow[];
  page: number;
  pageCount: number;
  /** Every shipment needing attention (all pages). */
  total: number;
  /** Status changes that could not be written to the store's order timeline. */
  storeWrites: { failed: number; latest: FailedStoreWrite[] };
}

/**
 * The shop's shipments that need a look, the newest problem first (by last sign of life), 100 a page:
 *  - late: wanted and held by the service, not in a final status, and no new event for the shop's
 *    staleAfterDays (counted from the newest event, or when there was none from when the service took
 *    the tracker, else from its creation);
 *  - exception: wanted, and the service reports a problem status (failure, returned, delayed…).
 * Also the count and the newest few of the status changes the store refused.
 */
export async function listAttention(
  deps: { prisma: DatabaseClient; shops: ShopRepository },
  domain: string,
  query: AttentionQuery,
  now: Date = new Date(),
): Promise<AttentionPage> {
  const shop = await currentShop(deps.shops, domain);
  const staleAfterDays = shop.staleAfterDays;
  const cutoff = new Date(now.getTime() - staleAfterDays * dayMs);

  // The statuses are few: classify the shop's own with the shared rules, then ask for them by value.
  const statuses = (
    await deps.prisma.tracker.groupBy({
      by: ['status'],
      where: { shopId: shop.id, desired: 'active', status: { not: null } },
    })
  )
    .map((g) => g.status)
    .filter((s): s is string => s !== null);
  const exceptions = statuses.filter((s) => isTroubleStatus(s));
  const finals = statuses.filter((s) => isFinalStatus(s));

  const late: Prisma.TrackerWhereInput = {
    remote: 'present',
    AND: [
      finals.length > 0 ? { OR: [{ status: null }, { status: { notIn: finals } }] } : {},
      {
        OR: [
          { lastEventAt: { lte: cutoff } },
          { lastEventAt: null, syncedAt: { lte: cutoff } },
          { lastEventAt: null, syncedAt: null, createdAt: { lte: cutoff } },
        ],
      },
    ],
  };
  const where: Prisma.TrackerWhereInput = {
    shopId: shop.id,
    desired: 'active',
    OR: exceptions.length > 0 ? [late, { status: { in: exceptions } }] : [late],
  };

  const [trackers, failedCount, failedWrites] = await Promise.all([
    deps.prisma.tracker.findMany({
      where,
      select: {
        id: true,
        trackingNumber: true,
        provider: true,
        orderKey: true,
        status: true,
        statusDetail: true,
        lastEventAt: true,
        lastEventMessage: true,
        lastEventLocation: true,
        syncedAt: true,
        createdAt: true,
      },
    }),
    deps.prisma.storeFulfillmentEvent.count({ where: { shopId: shop.id, state: 'failed' } }),
    deps.prisma.storeFulfillmentEvent.findMany({
      where: { shopId: shop.id, state: 'failed' },
      orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
      take: failedWritesShown,
      include: { tracker: { select: { trackingNumber: true } } },
    }),
  ]);

  const quietSinceOf = (t: (typeof trackers)[number]) => t.lastEventAt ?? t.syncedAt ?? t.createdAt;
  trackers.sort(
    (a, b) =>
      quietSinceOf(b).getTime() - quietSinceOf(a).getTime() ||
      a.trackingNumber.localeCompare(b.trackingNumber),
  );
  const total = trackers.length;
  const pageCount = Math.max(1, Math.ceil(total / attentionPerPage));
  const shown = trackers.slice((query.page - 1) * attentionPerPage, query.page * attentionPerPage);

  const trackerIds = [...new Set([...shown.map((t) => t.id), ...failedWrites.map((e) => e.trackerId)])];
  const lines =
    trackerIds.length === 0
      ? []
      : await deps.prisma.trackingLine.findMany({
          where: { shopId: shop.id, trackerId: { in: trackerIds } },
          select: { trackerId: true, orderId: true, orderName: true, carrierName: true, active: true },
          orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }],
        });
  // Lines come oldest first: the newest wins, and an active line wins over an inactive one.
  const lineOf = new Map<string, (typeof lines)[number]>();
  for (const line of lines) {
    if (line.trackerId === null) continue;
    const known = lineOf.get(line.trackerId);
    if (!known || line.active || !known.active) lineOf.set(line.trackerId, line);
  }

  const shipments = shown.map((t): AttentionRow => {
    const line = lineOf.get(t.id);
    const quietSince = quietSinceOf(t);
    const daysQuiet = Math.max(0, Math.floor((now.getTime() - quietSince.getTime()) / dayMs));
    const status = statusView(t.status, t.statusDetail);
    const exception = isTroubleStatus(t.status);
    return {
      id: t.id,
      trackingNumber: t.trackingNumber,
      provider: t.provider,
      carrierName: line?.carrierName ?? null,
      orderId: line?.orderId ?? t.orderKey,
      orderName: line?.orderName ?? null,
      reason: exception ? 'exception' : 'late',
      label: exception && status ? status.label : `No scan for ${daysQuiet} day${daysQuiet === 1 ? '' : 's'}`,
      status,
      lastEvent: lastEventOf(t),
      quietSince: quietSince.toISOString(),
      daysQuiet,
    };
  });

  return {
    staleAfterDays,
    postFulfillmentEvents: shop.postFulfillmentEvents,
    shipments,
    page: query.page,
    pageCount,
    total,
    storeWrites: {
      failed: failedCount,
      latest: failedWrites.map((e) => ({
        id: e.id,
        trackerId: e.trackerId,
        trackingNumber: e.tracker?.trackingNumber ?? null,
        orderName: lineOf.get(e.trackerId)?.orderName ?? null,
        fulfillmentId: e.fulfillmentId,
        status: e.status,
        happenedAt: e.happenedAt.toISOString(),
        error: e.error,
        attempts: e.attempts,
        updatedAt: e.updatedAt.toISOString(),
      })),
    },
  };
}
