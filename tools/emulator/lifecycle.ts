/**
 * The events of a tracker as a pure function of its creation time, the current (virtual) time and a seed
 * derived from its tracking number. Nothing is stored and no timer runs: every read recomputes.
 */
import type { Carrier } from './carriers.js';
import { hashString, type Random, seededRandom } from './random.js';

/**
 * The seed's statuses, and the further ones of the service's published reference that a share of trackers
 * take (see lifecycleVariants): failed attempts, holds, carrier exceptions, pickups, returns, cancelled labels, and the
 * service's own tracker states.
 */
export type TrackingStatus = 'pending' | 'pre_transit' | 'in_transit' | 'delivered' | (string & {});

export interface TrackingLocation {
  object?: 'TrackingLocation';
  city: string;
  state: string;
  country: string;
  zip: string;
}

export interface TrackingEvent {
  object?: 'TrackingDetail';
  message: string;
  description?: string;
  status: Exclude<TrackingStatus, 'pending'>;
  status_detail?: string;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  datetime: string;
  source: string;
  tracking_location: TrackingLocation;
}

export interface LifecycleInput {
  trackingNumber: string;
  carrier: Carrier;
  /** Virtual creation time, epoch ms. */
  createdAtMs: number;
  postalCode: string | null;
  /** As given at creation; '' when not given. */
  destinationCountry: string;
}

export interface ShipmentSnapshot {
  status: TrackingStatus;
  /** `YYYY-MM-DD`; null while pending. */
  estDeliveryDate: string | null;
  /** Null while pending, and for carriers that report none. */
  originCountry: string | null;
  /** Oldest first. */
  events: TrackingEvent[];
  /** Null unless the carrier reports destination events; then an array (possibly empty). */
  destinationEvents: TrackingEvent[] | null;
  /** Datetime of the newest event of `events`; null when there are none. */
  lastEventTime: string | null;
}

const minute = 60_000;
const hour = 60 * minute;

interface Step {
  /** Nominal offset from creation, ms. */
  offsetMs: number;
  /** Maximum deviation either side of the nominal offset, ms. */
  jitterMs: number;
  status: TrackingEvent['status'];
  statusDetail: string;
  /** True when status_detail must never be dropped (clients may rely on it). */
  keepStatusDetail?: boolean;
  message: string;
  description: string;
  place: 'origin' | 'hub' | 'destination';
}

/**
 * The schedule every tracker follows. Offsets are from creation; each event is shifted by a per-tracker
 * jitter of at most `jitterMs`, so the order of events never changes:
 * pending (no events) → pre_transit at 10–20 min → in_transit at 5h15–6h45 (picked up),
 * 19h15–20h45 (arrived at facility), 39h30–40h30 (out_for_delivery) → delivered at 47h30–48h30.
 */
export const lifecycleSchedule: readonly Step[] = [
  {
    offsetMs: 15 * minute,
    jitterMs: 5 * minute,
    status: 'pre_transit',
    statusDetail: 'label_created',
    message: 'Shipping label created',
    description: 'The shipper created a label; the carrier has not received the item yet.',
    place: 'origin',
  },
  {
    offsetMs: 6 * hour,
    jitterMs: 45 * minute,
    status: 'in_transit',
    statusDetail: 'picked_up',
    message: 'Picked up by the carrier',
    description: 'The item was picked up and is on its way to a sorting facility.',
    place: 'origin',
  },
  {
    offsetMs: 20 * hour,
    jitterMs: 45 * minute,
    status: 'in_transit',
    statusDetail: 'arrived_at_facility',
    message: 'Arrived at facility',
    description: 'The item arrived at a sorting facility.',
    place: 'hub',
  },
  {
    offsetMs: 40 * hour,
    jitterMs: 30 * minute,
    status: 'in_transit',
    statusDetail: 'out_for_delivery',
    keepStatusDetail: true,
    message: 'Out for delivery',
    description: 'The item is on a delivery vehicle.',
    place: 'destination',
  },
  {
    offsetMs: 48 * hour,
    jitterMs: 30 * minute,
    status: 'delivered',
    statusDetail: 'delivered',
    message: 'Delivered',
    description: 'Delivered, front door/porch.',
    place: 'destination',
  },
];

/**
 * Other ways a tracker's story goes, in the service's vocabulary. A tracker takes one when the emulator's
 * `statusVariety` share (default 0: every tracker follows the schedule above) selects it by its number's
 * seed. `extra` events are added to the schedule; `cutAfterMs` drops the scheduled steps after it (and
 * the delivery); `trackerState` is a status the service reports with no event (about the tracker, not
 * the parcel): from `afterMs` on, or before the first event (`beforeFirstEvent`).
 */
interface Variant {
  name: string;
  extra?: Step[];
  cutAfterMs?: number;
  trackerState?: { status: string; afterMs: number } | { status: string; beforeFirstEvent: true };
}

const extraStep = (offsetMs: number, status: string, message: string, place: Step['place']): Step => ({
  offsetMs,
  jitterMs: 30 * minute,
  status,
  statusDetail: status,
  keepStatusDetail: true,
  message,
  description: message,
  place,
});

export const lifecycleVariants: readonly Variant[] = [
  {
    name: 'failed attempt',
    extra: [extraStep(44 * hour, 'failure', 'Delivery attempt failed: nobody home', 'destination')],
  },
  { name: 'on hold', extra: [extraStep(28 * hour, 'on_hold', 'Held at the facility', 'hub')] },
  {
    name: 'pickup',
    extra: [
      extraStep(44 * hour, 'available_for_pickup', 'Available for pickup at a service point', 'destination'),
    ],
  },
  {
    name: 'returned',
    extra: [extraStep(44 * hour, 'return_to_sender', 'Returned to sender', 'destination')],
    cutAfterMs: 41 * hour,
  },
  {
    name: 'label cancelled',
    extra: [extraStep(3 * hour, 'label_cancelled', 'Label cancelled', 'origin')],
    cutAfterMs: hour,
  },
  { name: 'not fetched yet', trackerState: { status: 'pending_trackship', beforeFirstEvent: true } },
  {
    name: 'invalid number',
    cutAfterMs: 0,
    trackerState: { status: 'invalid_tracking', afterMs: 15 * minute },
  },
  { name: 'wrong carrier', cutAfterMs: 0, trackerState: { status: 'invalid_carrier', afterMs: 15 * minute } },
  // A carrier exception on the way (damaged, then moving again: out for delivery and delivered as usual).
  { name: 'exception', extra: [extraStep(30 * hour, 'exception', 'Damaged in transit', 'hub')] },
];

/** The variant this tracker follows, or null (the plain schedule). */
export function variantFor(seed: number, variety: number): Variant | null {
  if (variety <= 0) return null;
  const rnd = seededRandom((seed ^ 0x2545f491) >>> 0);
  if (rnd() >= variety) return null;
  return lifecycleVariants[Math.floor(rnd() * lifecycleVariants.length)] ?? null;
}

/** Destination-country arrival of international carriers; their delivery mirrors the main delivery event. */
const destinationArrival: Step = {
  offsetMs: 30 * hour,
  jitterMs: 30 * minute,
  status: 'in_transit',
  statusDetail: 'arrived_at_facility',
  message: 'Arrived in the destination country',
  description: 'Received by the destination postal service.',
  place: 'destination',
};

const cities: Readonly<Record<string, ReadonlyArray<readonly [city: string, state: string]>>> = {
  US: [
    ['Memphis', 'TN'],
    ['Louisville', 'KY'],
    ['Chicago', 'IL'],
  ],
  CA: [
    ['Mississauga', 'ON'],
    ['Montreal', 'QC'],
  ],
  GB: [
    ['Coventry', ''],
    ['Manchester', ''],
  ],
  DE: [
    ['Leipzig', 'SN'],
    ['Köln', 'NW'],
  ],
  NL: [
    ['Amsterdam', 'NH'],
    ['Utrecht', 'UT'],
  ],
  FR: [
    ['Roissy', ''],
    ['Lyon', ''],
  ],
  CN: [
    ['Shenzhen', 'Guangdong'],
    ['Guangzhou', 'Guangdong'],
  ],
  AU: [
    ['Sydney', 'NSW'],
    ['Melbourne', 'VIC'],
  ],
  IN: [
    ['Mumbai', 'MH'],
    ['Delhi', 'DL'],
  ],
  JP: [
    ['Tokyo', ''],
    ['Osaka', ''],
  ],
};

/** Deterministic per-tracker seed, from the tracking number. */
export function trackerSeed(trackingNumber: string): number {
  return hashString(trackingNumber);
}

/** `YYYY-MM-DD HH:MM:SS` in UTC. */
export function formatDateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** `YYYY-MM-DD` in UTC. */
export function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The city of a place of a tracker: the same for every event at that place. */
function pickCity(country: string, seed: number, place: Step['place']): readonly [string, string] {
  const list = cities[country];
  if (!list || list.length === 0) return ['', ''];
  const rnd = seededRandom((seed ^ hashString(place)) >>> 0);
  return list[Math.floor(rnd() * list.length)] ?? ['', ''];
}

function jittered(step: Step, createdAtMs: number, rnd: Random): number {
  return createdAtMs + step.offsetMs + Math.round((rnd() * 2 - 1) * step.jitterMs);
}

function buildEvent(
  step: Step,
  atMs: number,
  input: LifecycleInput,
  source: string,
  seed: number,
  variation: Random,
): TrackingEvent {
  const origin = input.carrier.originCountry ?? '';
  const destCountry = /^[A-Za-z]{2}$/.test(input.destinationCountry)
    ? input.destinationCountry.toUpperCase()
    : origin;
  const country = step.place === 'destination' ? destCountry : origin;
  const [city, state] = pickCity(country, seed, step.place);
  const location: TrackingLocation = {
    object: 'TrackingLocation',
    city,
    state,
    country,
    zip: step.place === 'destination' ? (input.postalCode ?? '') : '',
  };
  // Deliberate variations so clients must be lenient (see the spec: fields "may be missing / empty").
  const v = variation;
  if (v() < 0.2) {
    location.city = '';
    location.state = '';
  }
  if (v() < 0.15) delete location.object;
  const event: TrackingEvent = {
    object: 'TrackingDetail',
    message: step.message,
    description: step.description,
    status: step.status,
    status_detail: step.statusDetail,
    datetime: formatDateTime(atMs),
    source,
    tracking_location: location,
  };
  if (v() < 0.2) delete event.object;
  if (!step.keepStatusDetail && v() < 0.2) delete event.status_detail;
  const d = v();
  if (d < 0.15) event.description = '';
  else if (d < 0.3) delete event.description;
  return event;
}

function variationFor(seed: number, index: number): Random {
  return seededRandom((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
}

/** Times (epoch ms) of every step of the schedule for this tracker, visible or not. */
export function scheduleTimes(createdAtMs: number, seed: number): number[] {
  const timing = seededRandom(seed);
  return lifecycleSchedule.map((step) => jittered(step, createdAtMs, timing));
}

/**
 * The shipment as the service reports it at `nowMs` (virtual epoch ms). Pure. `variety`: the share of
 * trackers that follow one of lifecycleVariants.
 */
export function shipmentSnapshot(input: LifecycleInput, nowMs: number, variety = 0): ShipmentSnapshot {
  const seed = trackerSeed(input.trackingNumber);
  const times = scheduleTimes(input.createdAtMs, seed);
  const source = input.carrier.label;
  const variant = variantFor(seed, variety);
  const cut = variant?.cutAfterMs;
  const timed: Array<{ at: number; event: TrackingEvent }> = [];
  lifecycleSchedule.forEach((step, index) => {
    const at = times[index]!;
    if (cut !== undefined && step.offsetMs > cut) return;
    if (at <= nowMs)
      timed.push({ at, event: buildEvent(step, at, input, source, seed, variationFor(seed, index)) });
  });
  const timing = seededRandom((seed ^ 0x68e31da4) >>> 0);
  (variant?.extra ?? []).forEach((step, index) => {
    const at = jittered(step, input.createdAtMs, timing);
    if (at <= nowMs)
      timed.push({ at, event: buildEvent(step, at, input, source, seed, variationFor(seed, 100 + index)) });
  });
  timed.sort((a, b) => a.at - b.at);
  const events = timed.map((t) => t.event);
  const last = events[events.length - 1];
  let status: TrackingStatus = last ? last.status : 'pending';
  const state = variant?.trackerState;
  if (state && 'beforeFirstEvent' in state && !last) status = state.status;
  if (state && 'afterMs' in state && input.createdAtMs + state.afterMs <= nowMs) status = state.status;
  const deliveredAt = times[times.length - 1]!;

  let destinationEvents: TrackingEvent[] | null = null;
  if (input.carrier.hasDestinationEvents) {
    const destSeed = (seed ^ 0x5bd1e995) >>> 0;
    const destSource = 'Destination postal service';
    destinationEvents = [];
    const arrivalAt = jittered(destinationArrival, input.createdAtMs, seededRandom(destSeed));
    if (arrivalAt <= nowMs) {
      destinationEvents.push(
        buildEvent(destinationArrival, arrivalAt, input, destSource, seed, variationFor(destSeed, 0)),
      );
    }
    const delivery = lifecycleSchedule[lifecycleSchedule.length - 1]!;
    if (deliveredAt <= nowMs) {
      destinationEvents.push(
        buildEvent(delivery, deliveredAt, input, destSource, seed, variationFor(destSeed, 1)),
      );
    }
  }

  return {
    status,
    estDeliveryDate: status === 'pending' ? null : formatDate(deliveredAt),
    originCountry: status === 'pending' ? null : input.carrier.originCountry,
    events,
    destinationEvents,
    lastEventTime: last ? last.datetime : null,
  };
}
