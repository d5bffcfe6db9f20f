import type { StoredEvent } from './status.js';
import { parcelGroupOf } from './status-table.js';

/**
 * What the analytics count of one parcel, worked out once when its status is stored (every read, pushed
 * or polled, goes through storeShipmentRead) and kept on the tracker, so the figures are sums in SQL
 * (src/shipments/rollups.ts) rather than a read of every history.
 */
export interface DeliveryFacts {
  deliveredAt: Date | null;
  transitSeconds: number | null;
  deliveredOnTime: boolean | null;
  hadException: boolean;
  hadFailedAttempt: boolean;
}

const dayMs = 86_400_000;

/** A date text (YYYY-MM-DD first) → the end of that day in UTC; null when not a date. */
export function endOfDay(text: string | null): number | null {
  const match = /^(\d{4}-\d{2}-\d{2})/.exec(text ?? '');
  if (!match) return null;
  const start = Date.parse(`${match[1]}T00:00:00Z`);
  return Number.isNaN(start) ? null : start + dayMs;
}

/** When the parcel set off: its first carrier scan (the oldest event with a time), else the tracker's creation. */
export function transitStartOf(events: readonly StoredEvent[], createdAt: Date): number {
  const times = events.map((e) => (e.at ? Date.parse(e.at) : Number.NaN));
  return times.find((time) => !Number.isNaN(time)) ?? createdAt.getTime();
}

/**
 * - delivered at: the time of the newest delivered event, else the newest event's;
 * - transit: from the first carrier scan (the oldest event with a time), else the tracker's creation, to
 *   delivery;
 * - on time: delivered before the end of the estimated day (its time zone is not stated: UTC): the
 *   service's estimate, else the one predicted from the shop's own deliveries (src/shipments/estimates.ts);
 * - an exception / a failed attempt: the status or any event of the history in that group.
 */
export function deliveryFactsOf(parcel: {
  status: string | null;
  statusDetail: string | null;
  events: readonly StoredEvent[];
  lastEventAt: Date | null;
  estimatedDelivery: string | null;
  /** The predicted estimate the parcel had while on its way, where the service gave none. */
  predictedDelivery?: string | null;
  createdAt: Date;
}): DeliveryFacts {
  const group = parcelGroupOf(parcel.status, parcel.statusDetail);
  const groups = parcel.events.map((e) => parcelGroupOf(e.status, e.statusDetail));
  const trouble = {
    hadException: group === 'exception' || groups.includes('exception'),
    hadFailedAttempt: group === 'failed_attempt' || groups.includes('failed_attempt'),
  };
  const none = { deliveredAt: null, transitSeconds: null, deliveredOnTime: null, ...trouble };
  if (group !== 'delivered') return none;
  const times = parcel.events.map((e) => (e.at ? Date.parse(e.at) : Number.NaN));
  const deliveredIndex = groups.lastIndexOf('delivered');
  const deliveredAt =
    deliveredIndex >= 0 && !Number.isNaN(times[deliveredIndex]!)
      ? times[deliveredIndex]!
      : (parcel.lastEventAt?.getTime() ?? null);
  if (deliveredAt === null) return none;
  const firstScan = transitStartOf(parcel.events, parcel.createdAt);
  const due = endOfDay(parcel.estimatedDelivery ?? parcel.predictedDelivery ?? null);
  return {
    deliveredAt: new Date(deliveredAt),
    transitSeconds: Math.round(Math.max(0, deliveredAt - Math.min(firstScan, deliveredAt)) / 1000),
    deliveredOnTime: due === null ? null : deliveredAt < due,
    ...trouble,
  };
}
