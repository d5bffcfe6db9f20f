import type { Shipment, TrackingEvent, TrackingLocation } from '../tracking/types.js';
import {
  isFinalStatus,
  normaliseStatusCode,
  type PlatformEventStatus,
  parcelOf,
  platformStatusOf,
} from './parcel-model.js';

/**
 * What a shipment's status means for tracksync over time: the stored status and history, when to read it
 * again, and the store platform's fulfilment event statuses of its history. What each status code means
 * (its cadence, final, trouble, platform status…) is one row of the parcel model
 * (src/shipments/parcel-model.ts); anything unrecognised is treated as "still moving": polled, never
 * written to the store.
 */

export type { PlatformEventStatus } from './parcel-model.js';

/** Final (polling stops) and trouble (the merchant should look): decided by the parcel model. */
export { isFinalStatus, isTroubleStatus } from './parcel-model.js';

/** The platform status of one event (the model's row of its detail, then of its status). */
export function platformStatusFor(
  event: Pick<TrackingEvent, 'status' | 'statusDetail'>,
): PlatformEventStatus | null {
  return platformStatusOf(event.status, event.statusDetail);
}

export interface StoredEvent {
  at: string | null;
  status: string;
  statusDetail: string | null;
  message: string;
  location: string | null;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/**
 * The stored event history (JSON text, oldest first). Anything unreadable is left out rather than
 * failing the page: the history is a convenience, the columns beside it are the record.
 */
export function storedEventsOf(json: string | null): StoredEvent[] {
  if (!json) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const events: StoredEvent[] = [];
  for (const item of parsed as unknown[]) {
    if (!item || typeof item !== 'object') continue;
    const e = item as Record<string, unknown>;
    const at = text(e.at);
    events.push({
      at: at !== null && !Number.isNaN(Date.parse(at)) ? at : null,
      status: text(e.status) ?? 'unknown',
      statusDetail: text(e.statusDetail),
      message: text(e.message) ?? '',
      location: text(e.location),
    });
  }
  return events;
}

export interface ShipmentStatus {
  status: string;
  statusDetail: string | null;
  estimatedDelivery: string | null;
  lastEventAt: Date | null;
  lastEventMessage: string | null;
  lastEventLocation: string | null;
  events: StoredEvent[];
}

/** At most this many events are kept per tracker (the newest). */
export const maxStoredEvents = 100;

/**
 * `YYYY-MM-DD HH:MM:SS` (also with a T, a zone or fractions) → Date. The service does not state the zone
 * of its times: a time without one is read as UTC, and said so in docs/architecture.md.
 */
export function parseServiceTime(value: string | null | undefined): Date | null {
  if (!value) return null;
  const text = value.trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i.exec(
    text,
  );
  if (!m) {
    const dateOnly = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
    if (!dateOnly || !isCalendarDate(dateOnly[1]!, dateOnly[2]!, dateOnly[3]!)) return null;
    const d = new Date(`${text}T00:00:00Z`);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  const [, y, mo, d, h, mi, s = '00', frac = '', zone] = m;
  // `new Date` rolls an impossible day over (2026-02-30 → 2026-03-02): such a time is garbage, not a date.
  if (!isCalendarDate(y!, mo!, d!)) return null;
  const offset =
    !zone || zone.toUpperCase() === 'Z'
      ? 'Z'
      : zone.includes(':')
        ? zone
        : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${frac.slice(0, 4)}${offset}`);
  return Number.isNaN(date.getTime()) ? null : date;
}

function isCalendarDate(year: string, month: string, day: string): boolean {
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  const date = new Date(Date.UTC(2000, m - 1, d));
  date.setUTCFullYear(y);
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

export function describeLocation(location: TrackingLocation | null): string | null {
  if (!location) return null;
  const parts = [location.city, location.state, location.country].filter(
    (p): p is string => !!p && p.trim() !== '',
  );
  return parts.length > 0 ? parts.join(', ') : null;
}

/** The status to store from a shipment as the service returned it. */
export function statusFromShipment(shipment: Shipment): ShipmentStatus {
  const events = shipment.events.slice(-maxStoredEvents).map((e) => ({
    at: parseServiceTime(e.datetime)?.toISOString() ?? null,
    status: normaliseStatusCode(e.status) || 'unknown',
    statusDetail: e.statusDetail ? normaliseStatusCode(e.statusDetail) : null,
    message: e.message,
    location: describeLocation(e.location),
  }));
  const latest = latestEvent(shipment.events);
  return {
    status: normaliseStatusCode(shipment.status) || 'unknown',
    statusDetail: latest?.statusDetail ? normaliseStatusCode(latest.statusDetail) : null,
    estimatedDelivery: shipment.estimatedDeliveryDate?.trim() || null,
    lastEventAt:
      parseServiceTime(shipment.lastEventTime) ?? (latest ? parseServiceTime(latest.datetime) : null),
    lastEventMessage: latest?.message ?? null,
    lastEventLocation: latest ? describeLocation(latest.location) : null,
    events,
  };
}

/** The newest event by time (the service lists oldest first, but a list out of order is not trusted). */
function latestEvent(events: readonly TrackingEvent[]): TrackingEvent | null {
  let best: TrackingEvent | null = null;
  let bestAt = -Infinity;
  for (const e of events) {
    const at = parseServiceTime(e.datetime)?.getTime() ?? -Infinity;
    if (best === null || at >= bestAt) {
      best = e;
      bestAt = at;
    }
  }
  return best;
}

export interface StatusChange {
  status: PlatformEventStatus;
  happenedAt: Date;
  message: string;
  city: string | null;
  province: string | null;
  country: string | null;
  zip: string | null;
}

/**
 * The platform status changes in an event history, oldest first: an event is a change when its platform
 * status differs from the one before it (two in-transit scans in a row are one change). Events with no
 * counterpart or no readable time are skipped. Re-deriving from the whole history gives the same list every
 * time, which is what makes writing them back idempotent.
 */
export function statusChanges(events: readonly TrackingEvent[]): StatusChange[] {
  const timed = events
    .map((event, index) => ({ event, index, at: parseServiceTime(event.datetime) }))
    .filter((e): e is { event: TrackingEvent; index: number; at: Date } => e.at !== null)
    .sort((a, b) => a.at.getTime() - b.at.getTime() || a.index - b.index);
  const changes: StatusChange[] = [];
  let previous: PlatformEventStatus | null = null;
  for (const { event, at } of timed) {
    const status = platformStatusFor(event);
    if (!status || status === previous) continue;
    previous = status;
    changes.push({
      status,
      happenedAt: at,
      message: event.message,
      city: event.location?.city || null,
      province: event.location?.state || null,
      country: event.location?.country || null,
      zip: event.location?.zip || null,
    });
  }
  return changes;
}

export interface PollPolicy {
  /** First read after the tracker is created at the service. */
  firstPollMs: number;
  /** No scan yet / label created (the model's pre_transit cadence): the carrier has not moved it yet. */
  preTransitMs: number;
  /** Moving: in transit, out for delivery, exceptions. */
  movingMs: number;
  /** Out for delivery: the next change is near. */
  outForDeliveryMs: number;
  /** No new event for `stalledAfterMs`: read less often. */
  stalledMs: number;
  stalledAfterMs: number;
  /** Stop polling a shipment this long after its tracker was created, whatever its state. */
  giveUpAfterMs: number;
  /** ± this fraction of random spread, so a burst of trackers is not read in a burst. */
  jitter: number;
}

const hour = 3_600_000;

export const defaultPollPolicy: PollPolicy = {
  firstPollMs: 15 * 60_000,
  preTransitMs: 6 * hour,
  movingMs: 3 * hour,
  outForDeliveryMs: 1 * hour,
  stalledMs: 12 * hour,
  stalledAfterMs: 3 * 24 * hour,
  giveUpAfterMs: 90 * 24 * hour,
  jitter: 0.2,
};

/**
 * When to read a shipment again, or null to stop: at a final status, or once it is older than
 * `giveUpAfterMs`. Frequent while pending or moving, hourly when out for delivery, rarer when stalled.
 */
export function nextPollAt(
  status: Pick<ShipmentStatus, 'status' | 'statusDetail' | 'lastEventAt'>,
  trackerCreatedAt: Date,
  now: Date,
  policy: PollPolicy = defaultPollPolicy,
  random: () => number = Math.random,
): Date | null {
  if (isFinalStatus(status.status)) return null;
  if (now.getTime() - trackerCreatedAt.getTime() >= policy.giveUpAfterMs) return null;
  // The cadence is the parcel model's: not moving yet (no scan, label created), moving, out for delivery.
  const cadence = parcelOf(status.status, status.statusDetail).cadence;
  if (cadence === 'stopped') return null;
  let base =
    cadence === 'out_for_delivery'
      ? policy.outForDeliveryMs
      : cadence === 'pre_transit'
        ? policy.preTransitMs
        : policy.movingMs;
  const quietFor = status.lastEventAt ? now.getTime() - status.lastEventAt.getTime() : 0;
  if (quietFor >= policy.stalledAfterMs) base = Math.max(base, policy.stalledMs);
  const spread = base * policy.jitter * (random() * 2 - 1);
  return new Date(now.getTime() + Math.max(1_000, Math.round(base + spread)));
}

/** What the status-push mode needs of a shop. */
export interface PushState {
  lastStatusPushAt: Date | null;
  pushSafetyPollHours: number;
}

/** A shop's pushes count as arriving while its last one is younger than its safety interval. */
export function pushesArriving(shop: PushState, now: Date): boolean {
  return (
    shop.lastStatusPushAt !== null &&
    now.getTime() - shop.lastStatusPushAt.getTime() < shop.pushSafetyPollHours * 3_600_000
  );
}

/** A push is overdue once this many of the status's usual polling intervals passed without one. */
export const pushOverdueIntervals = 4;

/**
 * When to read a shipment again, knowing whether its shop's status pushes arrive. Without pushes: as
 * nextPollAt. With them, reading is only the safety net: once per safety interval (the shop's setting,
 * a day by default), or sooner when a push is overdue for the status (4 usual intervals: 4 h out for
 * delivery, 12 h in transit). Never when nextPollAt says never.
 */
export function nextReadAt(
  status: Pick<ShipmentStatus, 'status' | 'statusDetail' | 'lastEventAt'>,
  trackerCreatedAt: Date,
  now: Date,
  shop: PushState,
  policy: PollPolicy = defaultPollPolicy,
  random: () => number = Math.random,
): Date | null {
  const usual = nextPollAt(status, trackerCreatedAt, now, policy, random);
  if (usual === null || !pushesArriving(shop, now)) return usual;
  const interval = usual.getTime() - now.getTime();
  return new Date(
    now.getTime() + Math.min(shop.pushSafetyPollHours * 3_600_000, interval * pushOverdueIntervals),
  );
}

/** The policy with every interval multiplied by `factor` (the dev server runs the emulator's clock fast). */
export function scalePollPolicy(policy: PollPolicy, factor: number): PollPolicy {
  const scale = (ms: number) => Math.max(1_000, Math.round(ms * factor));
  return {
    firstPollMs: scale(policy.firstPollMs),
    preTransitMs: scale(policy.preTransitMs),
    movingMs: scale(policy.movingMs),
    outForDeliveryMs: scale(policy.outForDeliveryMs),
    stalledMs: scale(policy.stalledMs),
    stalledAfterMs: scale(policy.stalledAfterMs),
    giveUpAfterMs: scale(policy.giveUpAfterMs),
    jitter: policy.jitter,
  };
}
