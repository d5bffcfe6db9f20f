import type { DatabaseClient } from '../../db/client.js';
import type { Shop } from '../../generated/sqlite/client.js';

/**
 * The shoppers' tracking page's queries (src/proxy), in one place. Each one reads by an index, whatever
 * the shop's size:
 *  - a parcel by its number: TrackingLine (shopId, trackingNumber);
 *  - an order by number and email hash: Fulfillment (shopId, orderName), then its lines by
 *    TrackingLine (shopId, orderId);
 *  - a logged-in customer's orders: TrackingLine (shopId, orderId);
 *  - an order's trackers for a refresh: Tracker (shopId, orderKey);
 *  - one fulfilment's parcels (the order status extension): TrackingLine (shopId, fulfillmentId, …);
 *  - the lines' trackers by primary key, the shop by its domain (unique).
 * Only the columns the page shows are read.
 */

/** The tracker's columns the shoppers' page shows or decides with. */
const trackerColumns = {
  desired: true,
  provider: true,
  orderKey: true,
  status: true,
  statusDetail: true,
  estimatedDelivery: true,
  predictedDelivery: true,
  events: true,
  statusCheckedAt: true,
  deliveredAt: true,
  deliveryNumber: true,
  deliveryProvider: true,
} as const;

const lineColumns = {
  id: true,
  fulfillmentId: true,
  orderId: true,
  orderName: true,
  trackingNumber: true,
  trackingUrl: true,
  carrierName: true,
  createdAt: true,
  redactedAt: true,
  tracker: { select: trackerColumns },
} as const;

export interface ShopperLineRow {
  id: string;
  fulfillmentId: string;
  orderId: string;
  orderName: string | null;
  trackingNumber: string;
  trackingUrl: string | null;
  carrierName: string | null;
  createdAt: Date;
  /** When a customers/redact named the line's order (share links made before open nothing). */
  redactedAt: Date | null;
  tracker: {
    desired: string;
    provider: string;
    orderKey: string;
    status: string | null;
    statusDetail: string | null;
    estimatedDelivery: string | null;
    predictedDelivery: string | null;
    events: string | null;
    statusCheckedAt: Date | null;
    deliveredAt: Date | null;
    deliveryNumber: string | null;
    deliveryProvider: string | null;
  } | null;
}

/** The shop a proxy request names, by its domain; null when the app has no row for it. */
export function shopByDomain(prisma: DatabaseClient, domain: string): Promise<Shop | null> {
  return prisma.shop.findUnique({ where: { domain } });
}

/** Counts one lookup the page answered, for the merchant's Overview. */
export async function countTrackingPageLookup(prisma: DatabaseClient, shopId: string): Promise<void> {
  await prisma.shop.update({
    where: { id: shopId },
    data: { trackingPageLookups: { increment: 1 } },
    select: { id: true },
  });
}

/** The newest wanted line of the shop with one of these spellings of a tracking number. */
export function lineByTrackingNumber(
  prisma: DatabaseClient,
  shopId: string,
  spellings: readonly string[],
): Promise<ShopperLineRow | null> {
  return prisma.trackingLine.findFirst({
    where: { shopId, trackingNumber: { in: [...spellings] }, active: true },
    select: lineColumns,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
}

/**
 * The order ids of the shop's fulfilments with one of these order names and this customer email hash
 * (an order's fulfilments, as the store named the order).
 */
export async function ordersByNameAndEmail(
  prisma: DatabaseClient,
  shopId: string,
  orderNames: readonly string[],
  customerEmailHash: string,
): Promise<Array<{ orderId: string; orderName: string | null }>> {
  return prisma.fulfillment.findMany({
    where: { shopId, orderName: { in: [...orderNames] }, customerEmailHash },
    select: { orderId: true, orderName: true },
    orderBy: [{ sourceUpdatedAt: 'asc' }, { id: 'asc' }],
    // An order has a few fulfilments; the bound keeps a strange one from being read whole.
    take: 100,
  });
}

/** The wanted lines of these orders, oldest first, at most `take`. */
export function linesOfOrders(
  prisma: DatabaseClient,
  shopId: string,
  orderIds: readonly string[],
  take: number,
): Promise<ShopperLineRow[]> {
  if (orderIds.length === 0) return Promise.resolve([]);
  return prisma.trackingLine.findMany({
    where: { shopId, orderId: { in: [...new Set(orderIds)] }, active: true },
    select: lineColumns,
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take,
  });
}

/**
 * The wanted lines of one fulfilment, oldest first, at most `take`: the order status extension's parcels
 * (the unique key (shopId, fulfillmentId, trackingNumber) serves it).
 */
export function linesOfFulfillment(
  prisma: DatabaseClient,
  shopId: string,
  fulfillmentId: string,
  take: number,
): Promise<ShopperLineRow[]> {
  return prisma.trackingLine.findMany({
    where: { shopId, fulfillmentId, active: true },
    select: lineColumns,
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take,
  });
}

/** Bound on an order's trackers read for a refresh (an order has a few parcels). */
export const orderTrackersRead = 200;

/**
 * The shop's trackers of one order (by the order key sent to the service) that the service holds and the
 * store still wants, with their wanted lines' fulfilments: whole rows, as the poller's store of a read
 * takes them (storeShipmentRead), so a refresh stores as a poll does.
 */
export function trackersOfOrder(prisma: DatabaseClient, shopId: string, orderKey: string) {
  return prisma.tracker.findMany({
    where: { shopId, orderKey, desired: 'active', remote: 'present' },
    include: { lines: { where: { active: true }, select: { fulfillmentId: true } } },
    orderBy: { id: 'asc' },
    take: orderTrackersRead,
  });
}
