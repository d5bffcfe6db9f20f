import type { AppContext } from '../../context/app-context.js';
import { orderNamesOfTrackers } from '../../shipments/queries/order-names.js';
import { countRefusedWrites, refusedWritesPage } from '../../shipments/queries/refused-writes.js';
import { currentShop } from './current-shop.js';
import type { FailedPageQuery } from './failed-work.js';

export interface RefusedWrite {
  id: string;
  trackerId: string;
  trackingNumber: string | null;
  orderName: string | null;
  fulfillmentId: string;
  /** The platform's fulfilment event status (IN_TRANSIT, DELIVERED, …). */
  status: string;
  happenedAt: string;
  error: string | null;
  attempts: number;
  updatedAt: string;
}

export interface RefusedWrites {
  /** Every refused update of the shop (all pages). */
  failed: number;
  /** Whether writing updates to the store's orders is switched on. */
  postFulfillmentEvents: boolean;
  /** This page, the newest first: 50. */
  writes: RefusedWrite[];
  /** The cursor of the next page; null on the last. */
  next: string | null;
}

/**
 * The tracking updates the shop's store refused to write to its orders' timelines (tried again with a
 * growing wait), counted and paged: GET /store-writes/refused, `after` the previous page's `next`.
 */
export async function listRefusedWrites(
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
  query: FailedPageQuery,
): Promise<RefusedWrites> {
  const shop = await currentShop(ctx.shops, domain);
  const [failed, page] = await Promise.all([
    countRefusedWrites(ctx.prisma, shop.id),
    refusedWritesPage(ctx.prisma, shop.id, query.after ? { after: query.after } : {}),
  ]);
  const orderNames = await orderNamesOfTrackers(
    ctx.prisma,
    shop.id,
    page.rows.map((w) => w.trackerId),
  );
  return {
    failed,
    postFulfillmentEvents: shop.postFulfillmentEvents,
    writes: page.rows.map((w) => ({
      id: w.id,
      trackerId: w.trackerId,
      trackingNumber: w.trackingNumber,
      orderName: orderNames.get(w.trackerId) ?? null,
      fulfillmentId: w.fulfillmentId,
      status: w.status,
      happenedAt: w.happenedAt.toISOString(),
      error: w.error,
      attempts: w.attempts,
      updatedAt: w.updatedAt.toISOString(),
    })),
    next: page.next,
  };
}
