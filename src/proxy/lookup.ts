import type { CarrierRepository } from '../carriers/carrier-repository.js';
import type { DatabaseClient } from '../db/client.js';
import { storedEventsOf } from '../ui/api/shipment-status.js';
import { type ParcelGroup, parcelGroupOf } from '../ui/vocabulary.js';

/** What a shopper may see of one parcel: no sync state, no error, nothing but the parcel's story. */
export interface ShopperParcel {
  trackingNumber: string;
  group: ParcelGroup;
  carrier: string | null;
  /** The carrier's own tracking page, from the store's fulfilment. */
  trackingUrl: string | null;
  estimatedDelivery: string | null;
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
): Promise<ShopperParcel | null> {
  const number = trackingNumber.trim();
  if (number === '' || number.length > lookupNumberMaxLength) return null;
  const spellings = [...new Set([number, number.toUpperCase(), number.toLowerCase()])];
  const line = await deps.prisma.trackingLine.findFirst({
    where: { shopId, active: true, trackingNumber: { in: spellings } },
    include: { tracker: true },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
  if (!line) return null;
  const tracker = line.tracker?.desired === 'active' ? line.tracker : null;
  const label = tracker
    ? ((await deps.carriers.providers()).find((p) => p.slug === tracker.provider)?.label ?? null)
    : null;
  return {
    trackingNumber: line.trackingNumber,
    group: parcelGroupOf(tracker?.status, tracker?.statusDetail),
    carrier: label ?? line.carrierName,
    trackingUrl: line.trackingUrl,
    estimatedDelivery: tracker?.estimatedDelivery ?? null,
    events: storedEventsOf(tracker?.events ?? null)
      .map((e) => ({ at: e.at, message: e.message, location: e.location }))
      .reverse(),
    checkedAt: tracker?.statusCheckedAt?.toISOString() ?? null,
  };
}
