import { z } from 'zod';
import type { DatabaseClient } from '../../db/client.js';
import type { Prisma, Tracker } from '../../generated/sqlite/client.js';
import type { ShopRepository } from '../../shops/shop-repository.js';
import { currentShop } from './current-shop.js';
import {
  isDelivered,
  type LastEventView,
  lastEventOf,
  type StatusView,
  statusView,
} from './shipment-status.js';
import { type TrackerState, trackerStateOf } from './tracker-state.js';

export const ordersPerPage = 25;
/**
 * At most this many of one order's lines on a page (one order may hold thousands of parcels): a page is at
 * most ordersPerPage × shipmentsPerOrder rows. The rest are counted in `moreTrackers`; a search by number
 * finds any of them.
 */
export const shipmentsPerOrder = 50;

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
  /** The parcel's status as last read from the service; null until it is first read. */
  status: StatusView | null;
  /** The service's estimated delivery date, as given. */
  estimatedDelivery: string | null;
  lastEvent: LastEventView | null;
  /** When the status was last read from the service (ISO). */
  statusCheckedAt: string | null;
}

export interface OrderShipments {
  orderId: string;
  orderName: string | null;
  /**
   * Every parcel of the order still wanted is delivered (a line waiting for its carrier is not); always
   * false when the shop turned showOrderDelivered off.
   */
  delivered: boolean;
  trackers: ShipmentRow[];
  /** The order's lines not listed here (beyond shipmentsPerOrder). */
  moreTrackers: number;
}

export interface ShipmentsPage {
  orders: OrderShipments[];
  page: number;
  pageCount: number;
  total: number;
}

/** A tracker as the list shows it: where its sync stands and what the service last said of the parcel. */
export function shipmentRowOf(tracker: Tracker, carrierName: string | null): ShipmentRow {
  return {
    id: tracker.id,
    trackingNumber: tracker.trackingNumber,
    provider: tracker.provider,
    carrierName,
    state: trackerStateOf(tracker),
    lastError: tracker.lastError,
    lastErrorReason: tracker.lastErrorReason,
    status: statusView(tracker.status, tracker.statusDetail),
    estimatedDelivery: tracker.estimatedDelivery,
    lastEvent: lastEventOf(tracker),
    statusCheckedAt: tracker.statusCheckedAt?.toISOString() ?? null,
  };
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
 * tracker with its state and last read status, and lines still waiting for a carrier mapping (no tracker,
 * `waiting_carrier`).
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

  // Each order's first lines only (bounded reads, bounded answer), and how many it has in all.
  const lineWhere = (orderId: string) => ({ AND: [visibleLines(shop.id), { orderId }] });
  const perOrder = await Promise.all(
    orderIds.map((orderId) =>
      deps.prisma.trackingLine.findMany({
        where: lineWhere(orderId),
        include: { tracker: true },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: shipmentsPerOrder,
      }),
    ),
  );
  const lineCounts = await deps.prisma.trackingLine.groupBy({
    by: ['orderId'],
    where: { AND: [visibleLines(shop.id), { orderId: { in: orderIds } }] },
    _count: { _all: true },
  });
  const countOf = new Map(lineCounts.map((c) => [c.orderId, c._count._all]));
  const lines = perOrder.flat();

  const orders = new Map<string, OrderShipments & { seen: Set<string>; wanted: boolean[] }>(
    orderIds.map((orderId) => [
      orderId,
      {
        orderId,
        orderName: null,
        delivered: false,
        trackers: [],
        moreTrackers: Math.max(0, (countOf.get(orderId) ?? 0) - shipmentsPerOrder),
        seen: new Set<string>(),
        wanted: [],
      },
    ]),
  );
  for (const line of lines) {
    const order = orders.get(line.orderId);
    if (!order) continue;
    if (line.orderName) order.orderName = line.orderName; // lines come oldest first: the newest name wins
    const key = line.tracker ? `t:${line.tracker.id}` : `w:${line.trackingNumber}:${line.carrierKey ?? ''}`;
    if (order.seen.has(key)) continue;
    order.seen.add(key);
    if (line.tracker) {
      // A tracker being removed (its fulfilment cancelled) is no longer one of the order's parcels.
      if (line.tracker.desired === 'active') order.wanted.push(isDelivered(line.tracker.status));
      order.trackers.push(shipmentRowOf(line.tracker, line.carrierName));
    } else {
      order.wanted.push(false);
      order.trackers.push({
        id: null,
        trackingNumber: line.trackingNumber,
        provider: null,
        carrierName: line.carrierName,
        state: 'waiting_carrier',
        lastError: null,
        lastErrorReason: null,
        status: null,
        estimatedDelivery: null,
        lastEvent: null,
        statusCheckedAt: null,
      });
    }
  }
  return {
    orders: [...orders.values()].map(({ seen: _seen, wanted, ...order }) => ({
      ...order,
      // An order with parcels not listed here is not known to be all delivered from what is listed.
      delivered:
        shop.showOrderDelivered && order.moreTrackers === 0 && wanted.length > 0 && wanted.every(Boolean),
    })),
    page: query.page,
    pageCount,
    total,
  };
}
