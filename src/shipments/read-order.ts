import type { Tracker } from '../generated/sqlite/client.js';
import type { TrackingClient, TrackingCredentials } from '../tracking/client.js';
import type { Shipment, TrackingError } from '../tracking/types.js';
import { statusFromShipment } from './status.js';

/**
 * Several parcels of one order read with ONE `shipment/by-order-id` call instead of one `get` each (the
 * status poller, when an order has several trackers due at once, and the shoppers' page).
 *
 * A listing element may leave fields out (the interface says so; the estimated delivery is one of them).
 * With `fullReadOnNews` (the poller), a parcel whose listing shows news (another status, a newer event) and
 * lacks its estimate is read in full with `get`, once: the estimate moves when something happens, and most
 * reads show nothing new. Without it (the shoppers' page: one call, bounded in time) the stored estimate
 * stays until the poller reads it. A
 * parcel the listing does not hold is returned as `missing`, for the caller to read alone (a `get` tells
 * "not at the service" apart from "not in this order's listing").
 */

export type OrderTracker = Pick<
  Tracker,
  'id' | 'trackingNumber' | 'provider' | 'status' | 'lastEventAt' | 'estimatedDelivery'
>;

export interface OrderRead {
  shipment: Shipment;
  /** From the listing (fields it left out keep their stored values), not from a full `get`. */
  listing: boolean;
}

export type OrderReadResult =
  { ok: true; read: Map<string, OrderRead>; missing: string[] } | { ok: false; error: TrackingError };

export async function readOrderShipments(
  client: TrackingClient,
  credentials: TrackingCredentials,
  orderKey: string,
  trackers: readonly OrderTracker[],
  options: { fullReadOnNews: boolean },
): Promise<OrderReadResult> {
  const listed = await client.getShipmentsByOrderId(credentials, orderKey);
  if (!listed.ok) return { ok: false, error: listed.error };
  const read = new Map<string, OrderRead>();
  const missing: string[] = [];
  for (const tracker of trackers) {
    const shipment = listed.value.find(
      (s) =>
        s.trackingNumber.trim().toUpperCase() === tracker.trackingNumber.trim().toUpperCase() &&
        (s.trackingProvider === null || s.trackingProvider === tracker.provider),
    );
    if (!shipment) {
      missing.push(tracker.id);
      continue;
    }
    if (options.fullReadOnNews && shipment.estimatedDeliveryDate === null && hasNews(tracker, shipment)) {
      const full = await client.getShipment(credentials, {
        trackingNumber: tracker.trackingNumber,
        trackingProvider: tracker.provider,
      });
      // (The client refuses an answer about another number than the one asked about.)
      if (full.ok) {
        read.set(tracker.id, { shipment: full.value, listing: false });
        continue;
      }
    }
    read.set(tracker.id, { shipment, listing: true });
  }
  return { ok: true, read, missing };
}

/** Whether the listing says something the stored row does not: another status, or a newer event. */
function hasNews(tracker: OrderTracker, shipment: Shipment): boolean {
  const status = statusFromShipment(shipment);
  if (status.status !== tracker.status) return true;
  const at = status.lastEventAt?.getTime() ?? null;
  return at !== null && at > (tracker.lastEventAt?.getTime() ?? -Infinity);
}
