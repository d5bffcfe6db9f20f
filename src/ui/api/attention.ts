import { z } from 'zod';
import type { DatabaseClient } from '../../db/client.js';
import { encodeCursor, keysetCursorParam } from '../../db/keyset-cursor.js';
import {
  type AttentionCursor,
  attentionCursorOf,
  attentionPageIds,
  attentionTrackers,
  countAttention,
} from '../../shipments/queries/attention.js';
import { lineOfEachTracker } from '../../shipments/queries/order-names.js';
import { isTroubleStatus } from '../../shipments/status.js';
import type { Shop, ShopRepository } from '../../shops/shop-repository.js';
import { currentShop } from './current-shop.js';
import { type LastEventView, lastEventOf, type StatusView, statusView } from './shipment-status.js';

export const attentionPerPage = 100;

const dayMs = 86_400_000;

/** A position in the list (a row's quietSince and id): the app's keyset cursor (src/db/keyset-cursor.ts). */
const attentionCursor = keysetCursorParam.transform((c, ctx): AttentionCursor => {
  if (c.at === null) {
    ctx.addIssue({ code: 'custom', message: 'Not a page cursor' });
    return z.NEVER;
  }
  return { quietSince: c.at, id: c.id };
});

export const attentionQuery = z.object({ after: attentionCursor.optional() });
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

export interface AttentionPage {
  staleAfterDays: number;
  postFulfillmentEvents: boolean;
  shipments: AttentionRow[];
  /** The next page: pass as `after`; null on the last page. */
  nextCursor: string | null;
  /** Every shipment needing attention (all pages). */
  total: number;
}

/** The shipments late or in trouble, all pages (the Overview's health line), for a shop at hand. */
export function countShopAttention(
  prisma: DatabaseClient,
  shop: Pick<Shop, 'id' | 'staleAfterDays'>,
  now: Date = new Date(),
): Promise<number> {
  return countAttention(prisma, shop.id, lateBeforeOf(shop, now));
}

/** Quiet since before this: late (the shop's staleAfterDays ago). */
function lateBeforeOf(shop: Pick<Shop, 'staleAfterDays'>, now: Date): Date {
  return new Date(now.getTime() - shop.staleAfterDays * dayMs);
}

/**
 * The shop's shipments that need a look, the most recent sign of life first, 100 a page by keyset:
 *  - late: wanted and held by the service, not in a final status, and no new event for the shop's
 *    staleAfterDays (counted from the newest event, or when there was none from when the service took
 *    the tracker, else from its creation);
 *  - trouble: wanted, and the service reports a problem (a failed attempt, an exception, a tracker it
 *    cannot follow: src/shipments/status-table.ts).
 */
export async function listAttention(
  deps: { prisma: DatabaseClient; shops: ShopRepository },
  domain: string,
  query: AttentionQuery,
  now: Date = new Date(),
): Promise<AttentionPage> {
  const shop = await currentShop(deps.shops, domain);
  const staleAfterDays = shop.staleAfterDays;
  const lateBefore = lateBeforeOf(shop, now);

  const [page, total] = await Promise.all([
    attentionPageIds(deps.prisma, shop.id, lateBefore, { after: query.after, limit: attentionPerPage }),
    countAttention(deps.prisma, shop.id, lateBefore),
  ]);
  const shown = await attentionTrackers(deps.prisma, page.ids);
  const lineOf = await lineOfEachTracker(
    deps.prisma,
    shop.id,
    shown.map((t) => t.id),
  );

  const shipments = shown.map((t): AttentionRow => {
    const line = lineOf.get(t.id);
    const quietSince = t.quietSince ?? t.lastEventAt ?? t.syncedAt ?? t.createdAt;
    const daysQuiet = Math.max(0, Math.floor((now.getTime() - quietSince.getTime()) / dayMs));
    const status = statusView(t.status, t.statusDetail);
    const trouble = isTroubleStatus(t.status, t.statusDetail);
    return {
      id: t.id,
      trackingNumber: t.trackingNumber,
      provider: t.provider,
      carrierName: line?.carrierName ?? null,
      orderId: line?.orderId ?? t.orderKey,
      orderName: line?.orderName ?? null,
      reason: trouble ? 'exception' : 'late',
      label: trouble && status ? status.label : `No scan for ${daysQuiet} day${daysQuiet === 1 ? '' : 's'}`,
      status,
      lastEvent: lastEventOf(t),
      quietSince: quietSince.toISOString(),
      daysQuiet,
    };
  });
  const last = shown.at(-1);

  return {
    staleAfterDays,
    postFulfillmentEvents: shop.postFulfillmentEvents,
    shipments,
    nextCursor:
      last && page.more ? encodeCursor({ at: attentionCursorOf(last).quietSince, id: last.id }) : null,
    total,
  };
}
