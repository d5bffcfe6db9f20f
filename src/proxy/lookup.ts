import type { CarrierRepository } from '../carriers/carrier-repository.js';
import type { DatabaseClient } from '../db/client.js';
import {
  lineByTrackingNumber,
  linesOfOrders,
  ordersByNameAndEmail,
  type ShopperLineRow,
} from '../shipments/queries/shopper-lookups.js';
import { isFinalStatus } from '../shipments/status.js';
import { storedEventsOf } from '../shipments/status.js';
import { arrivalEstimateOf, type Estimate } from '../shipments/estimates.js';
import { customerEmailHash, plausibleEmail } from '../lib/email-hash.js';
import { type ParcelGroup, parcelOf as modelParcelOf, shopperProgressOf } from '../shipments/parcel-model.js';
import type { Progress } from '../shipments/shopper-progress.js';

/** One item of a parcel, as the store's order names it (read at lookup time, never stored). */
export interface ShopperItem {
  name: string;
  variant: string | null;
  quantity: number;
  imageUrl: string | null;
  imageAlt: string | null;
}

/** What a shopper may see of one parcel: no sync state, no error, nothing but the parcel's story. */
export interface ShopperParcel {
  trackingNumber: string;
  group: ParcelGroup;
  /** The journey's step and any trouble on it (src/shipments/shopper-progress.ts). */
  progress: Progress;
  carrier: string | null;
  /** The last-mile carrier's own number and name, when the service gave them. */
  lastMile: { number: string; carrier: string | null } | null;
  /** When it was delivered (the delivered event's time); null until then. */
  deliveredAt: string | null;
  /** The store's order and fulfilment of the parcel (what its items are read by). */
  orderId: string;
  fulfillmentId: string;
  /** Its items from the store's order; null: not known (not asked, the store did not say, or switched off). */
  items: ShopperItem[] | null;
  /** The carrier's own tracking page, from the store's fulfilment. */
  trackingUrl: string | null;
  /** When it should arrive: the service's estimate, else a predicted one; none once delivered or not followed. */
  estimate: Estimate | null;
  /** Newest first. */
  events: Array<{ at: string | null; message: string; location: string | null }>;
  /** When the status was last read from the tracking service. */
  checkedAt: string | null;
}

/** The longest tracking number looked up (the intake's own bound). */
export const lookupNumberMaxLength = 100;

/**
 * One of the shop's parcels by its tracking number, as stored (a wanted line of a fulfilment; its
 * tracker when it has one). Null when the shop has no such wanted parcel: the same answer whatever the
 * reason, so a lookup tells nothing about other stores or cancelled parcels.
 */
export async function findParcelByNumber(
  deps: { prisma: DatabaseClient; carriers: CarrierRepository },
  shopId: string,
  trackingNumber: string,
): Promise<{ parcel: ShopperParcel; orderKeys: string[]; redactedAt: Date | null } | null> {
  const number = trackingNumber.trim();
  if (number === '' || number.length > lookupNumberMaxLength) return null;
  const spellings = [...new Set([number, number.toUpperCase(), number.toLowerCase()])];
  const line = await lineByTrackingNumber(deps.prisma, shopId, spellings);
  if (!line) return null;
  return {
    parcel: parcelOf(line, await providerLabels(deps.carriers, [line])),
    orderKeys: orderKeysToRefresh([line]),
    redactedAt: line.redactedAt,
  };
}

/** The wanted tracker of a line, if any. */
function trackerOf(line: ShopperLineRow): NonNullable<ShopperLineRow['tracker']> | null {
  return line.tracker?.desired === 'active' ? line.tracker : null;
}

/** The carriers' labels of these lines' trackers (only those: never the whole list). */
function providerLabels(
  carriers: CarrierRepository,
  lines: readonly ShopperLineRow[],
): Promise<Map<string, string>> {
  return carriers.labelsOf(lines.flatMap((l) => trackerOf(l)?.provider ?? []));
}

/**
 * The orders worth reading again at the service: those with a parcel still under way. An order whose
 * parcels are all in a final status (delivered, returned, expired, …) has nothing left to learn, so the
 * page answers from what is stored and makes no call.
 */
function orderKeysToRefresh(lines: readonly ShopperLineRow[]): string[] {
  const keys = lines.flatMap((l) => {
    const tracker = trackerOf(l);
    return tracker && !isFinalStatus(tracker.status) ? [tracker.orderKey] : [];
  });
  return [...new Set(keys)];
}

export function parcelOf(line: ShopperLineRow, labels: Map<string, string>): ShopperParcel {
  const tracker = trackerOf(line);
  const label = tracker ? (labels.get(tracker.provider) ?? null) : null;
  const events = storedEventsOf(tracker?.events ?? null)
    .map((e) => ({ at: e.at, message: e.message, location: e.location }))
    .reverse();
  // The parcel as every view tells it (the parcel model): its group, the shopper's step and trouble.
  const parcel = modelParcelOf(tracker?.status, tracker?.statusDetail);
  return {
    trackingNumber: line.trackingNumber,
    group: parcel.group,
    progress: shopperProgressOf(parcel, events.length > 0),
    carrier: label ?? line.carrierName,
    lastMile: tracker?.deliveryNumber
      ? { number: tracker.deliveryNumber, carrier: tracker.deliveryProvider }
      : null,
    deliveredAt: parcel.group === 'delivered' ? (tracker?.deliveredAt?.toISOString() ?? null) : null,
    orderId: line.orderId,
    fulfillmentId: line.fulfillmentId,
    items: null,
    trackingUrl: line.trackingUrl,
    estimate: tracker ? arrivalEstimateOf(tracker) : null,
    events,
    checkedAt: tracker?.statusCheckedAt?.toISOString() ?? null,
  };
}

/** At most this many parcels of one order are shown. */
export const orderParcelsShown = 50;

/**
 * An order's parcels, when the email is the order's customer's: the order number with or without `#`,
 * the email compared case-insensitively through its salted hash. A wrong email and an unknown order run
 * the same single query and answer the same null, so orders cannot be enumerated.
 */
export async function findOrderParcels(
  deps: { prisma: DatabaseClient; carriers: CarrierRepository },
  shopId: string,
  orderNumber: string,
  email: string,
): Promise<{ orderId: string; orderName: string; parcels: ShopperParcel[]; orderKeys: string[] } | null> {
  const number = orderNumber.trim().replace(/^#/, '').slice(0, 50);
  const hash = customerEmailHash(shopId, plausibleEmail(email) ?? '');
  const fulfillments = await ordersByNameAndEmail(deps.prisma, shopId, [`#${number}`, number], hash);
  if (number === '' || fulfillments.length === 0) return null;
  const lines = await linesOfOrders(
    deps.prisma,
    shopId,
    fulfillments.map((f) => f.orderId),
    orderParcelsShown,
  );
  const labels = await providerLabels(deps.carriers, lines);
  return {
    orderId: fulfillments[0]!.orderId,
    orderName: fulfillments[0]!.orderName ?? `#${number}`,
    parcels: lines.map((l) => parcelOf(l, labels)),
    orderKeys: orderKeysToRefresh(lines),
  };
}

/** When a customers/redact last named one of these lines' orders, if one did. */
function redactedAtOf(lines: readonly ShopperLineRow[]): Date | null {
  const times = lines.flatMap((l) => (l.redactedAt ? [l.redactedAt.getTime()] : []));
  return times.length > 0 ? new Date(Math.max(...times)) : null;
}

/**
 * One order's parcels by its id, for a signed share link (src/proxy/view-link.ts): the link stands for the
 * e-mail. Null when the shop holds no wanted parcel of the order (any more). `redactedAt`: when a
 * customers/redact named the order (a link made before opens nothing).
 */
export async function findOrderParcelsById(
  deps: { prisma: DatabaseClient; carriers: CarrierRepository },
  shopId: string,
  orderId: string,
): Promise<{
  orderId: string;
  orderName: string;
  parcels: ShopperParcel[];
  orderKeys: string[];
  redactedAt: Date | null;
} | null> {
  const lines = await linesOfOrders(deps.prisma, shopId, [orderId], orderParcelsShown);
  if (lines.length === 0) return null;
  const labels = await providerLabels(deps.carriers, lines);
  return {
    orderId,
    orderName: lines[0]!.orderName ?? `#${orderId}`,
    parcels: lines.map((l) => parcelOf(l, labels)),
    orderKeys: orderKeysToRefresh(lines),
    redactedAt: redactedAtOf(lines),
  };
}

/**
 * A logged-in customer's recent orders (as the store named them, newest first) with each one's parcels as
 * stored; an order with none shows as not shipped yet.
 */
export async function findCustomerOrderParcels(
  deps: { prisma: DatabaseClient; carriers: CarrierRepository },
  shopId: string,
  orders: ReadonlyArray<{ orderId: string; name: string | null }>,
): Promise<{ orders: Array<{ orderName: string; parcels: ShopperParcel[] }>; orderKeys: string[] }> {
  if (orders.length === 0) return { orders: [], orderKeys: [] };
  const lines = await linesOfOrders(
    deps.prisma,
    shopId,
    orders.map((o) => o.orderId),
    orderParcelsShown * orders.length,
  );
  const labels = await providerLabels(deps.carriers, lines);
  return {
    orders: orders.map((order) => {
      const own = lines.filter((l) => l.orderId === order.orderId).slice(0, orderParcelsShown);
      return {
        orderName: order.name ?? own[0]?.orderName ?? `#${order.orderId}`,
        parcels: own.map((l) => parcelOf(l, labels)),
      };
    }),
    orderKeys: orderKeysToRefresh(lines),
  };
}
