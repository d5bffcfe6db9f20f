import { z } from 'zod';
import type { DatabaseClient } from '../../db/client.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import type { ShopRepository } from '../../shops/shop-repository.js';
import { currentShop } from './current-shop.js';
import { type TrackerState, trackerStateOf } from './tracker-state.js';

export const ordersPerPage = 25;

export const shipmentsQuery = z.object({
  search: z.string().trim().max(100).optional(),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
});
export type ShipmentsQuery = z.output<typeof shipmentsQuery>;

export interface ShipmentRow {
  /** Null for a line still waiting for its carrier to be mapped. */
  id: string | null;
  trackingNumber: string;
  provider: string | null;
  carrierName: string | null;
  state: TrackerState;
  lastError: string | null;
  lastErrorReason: string | null;
}

export interface OrderShipments {
  orderId: string;
  orderName: string | null;
  trackers: ShipmentRow[];
}

export interface ShipmentsPage {
  orders: OrderShipments[];
  page: number;
  pageCount: number;
  total: number;
}

/** The lines worth showing: those still wanted, and those whose tracker exists (even if being removed). */
function visibleLines(shopId: string): Prisma.TrackingLineWhereInput {
  return { shopId, OR: [{ active: true }, { trackerId: { not: null } }] };
}

function searchWhere(search: string): Prisma.TrackingLineWhereInput {
  // SQLite compares ASCII case-insensitively, PostgreSQL does not: try the usual spellings of a number.
  const spellings = [...new Set([search, search.toUpperCase(), search.toLowerCase()])];
  return {
    OR: [
      { orderId: search },
      ...spellings.map((s) => ({ orderName: { contains: s } })),
      ...spellings.map((s) => ({ trackingNumber: { contains: s } })),
    ],
  };
}

/**
 * The shop's shipments by order, newest order first (by its newest line), 25 orders a page: every line's
 * tracker with its state, and lines still waiting for a carrier mapping (no tracker, `waiting_carrier`).
 * A search matches an order id exactly, or part of an order name or tracking number; a matching order is
 * shown whole.
 */
export async function listShipments(
  deps: { prisma: DatabaseClient; shops: ShopRepository },
  domain: string,
  query: ShipmentsQuery,
): Promise<ShipmentsPage> {
  const shop = await currentShop(deps.shops, domain);
  const search = query.search ?? '';
  const where: Prisma.TrackingLineWhereInput =
    search === '' ? visibleLines(shop.id) : { AND: [visibleLines(shop.id), searchWhere(search)] };

  const allOrders = await deps.prisma.trackingLine.groupBy({ by: ['orderId'], where });
  const total = allOrders.length;
  const pageCount = Math.max(1, Math.ceil(total / ordersPerPage));
  const pageOrders = await deps.prisma.trackingLine.groupBy({
    by: ['orderId'],
    where,
    _max: { createdAt: true },
    orderBy: [{ _max: { createdAt: 'desc' } }, { orderId: 'desc' }],
    skip: (query.page - 1) * ordersPerPage,
    take: ordersPerPage,
  });
  const orderIds = pageOrders.map((o) => o.orderId);
  if (orderIds.length === 0) return { orders: [], page: query.page, pageCount, total };

  const lines = await deps.prisma.trackingLine.findMany({
    where: { AND: [visibleLines(shop.id), { orderId: { in: orderIds } }] },
    include: { tracker: true },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });

  const orders = new Map<string, OrderShipments & { seen: Set<string> }>(
    orderIds.map((orderId) => [orderId, { orderId, orderName: null, trackers: [], seen: new Set<string>() }]),
  );
  for (const line of lines) {
    const order = orders.get(line.orderId);
    if (!order) continue;
    if (line.orderName) order.orderName = line.orderName; // lines come oldest first: the newest name wins
    const key = line.tracker ? `t:${line.tracker.id}` : `w:${line.trackingNumber}:${line.carrierKey ?? ''}`;
    if (order.seen.has(key)) continue;
    order.seen.add(key);
    order.trackers.push(
      line.tracker
        ? {
            id: line.tracker.id,
            trackingNumber: line.tracker.trackingNumber,
            provider: line.tracker.provider,
            carrierName: line.carrierName,
            state: trackerStateOf(line.tracker),
            lastError: line.tracker.lastError,
            lastErrorReason: line.tracker.lastErrorReason,
          }
        : {
            id: null,
            trackingNumber: line.trackingNumber,
            provider: null,
            carrierName: line.carrierName,
            state: 'waiting_carrier',
            lastError: null,
            lastErrorReason: null,
          },
    );
  }
  return {
    orders: [...orders.values()].map(({ seen: _seen, ...order }) => order),
    page: query.page,
    pageCount,
    total,
  };
}
