import { findCarrier } from '../../tools/emulator/carriers.js';
import { lifecycleSchedule, shipmentSnapshot, type TrackingEvent } from '../../tools/emulator/lifecycle.js';

/**
 * The emulator's lifecycle, read directly (it is a pure function of the tracking number and the times), so
 * tests can pick tracking numbers whose event history they know in advance: the emulator drops an event's
 * status_detail now and then, deterministically per tracking number.
 */

const hour = 3_600_000;

/** The events a UPS tracker with this number shows once its lifecycle is over. */
export function emulatorEvents(trackingNumber: string): TrackingEvent[] {
  return shipmentSnapshot(
    {
      trackingNumber,
      carrier: findCarrier('ups')!,
      createdAtMs: 0,
      postalCode: '40003',
      destinationCountry: 'US',
    },
    100 * hour,
  ).events;
}

/** Whether every event of the number's lifecycle keeps its status_detail. */
export function keepsEveryDetail(trackingNumber: string): boolean {
  const events = emulatorEvents(trackingNumber);
  return events.length === lifecycleSchedule.length && events.every((e) => e.status_detail !== undefined);
}

/** Whether the number's "picked up" event comes without its status_detail (a plain in_transit scan). */
export function dropsPickedUpDetail(trackingNumber: string): boolean {
  const events = emulatorEvents(trackingNumber);
  const pickedUp = lifecycleSchedule.findIndex((s) => s.statusDetail === 'picked_up');
  return events[pickedUp]?.status_detail === undefined;
}

/** The first `count` numbers `make(i)` (i = 0, 1, ...) that satisfy `accept`. */
export function pickNumbers(
  count: number,
  make: (i: number) => string,
  accept: (n: string) => boolean = keepsEveryDetail,
): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    if (i > 100_000) throw new Error('no tracking number found');
    const n = make(i);
    if (accept(n)) out.push(n);
  }
  return out;
}

/**
 * Seconds to advance the emulator's clock from a tracker's creation to just past each step of its
 * lifecycle (every step's latest possible time, see lifecycleSchedule).
 */
export const stepOffsetsSeconds = {
  labelCreated: 21 * 60,
  pickedUp: 6 * 3600 + 46 * 60,
  arrivedAtFacility: 20 * 3600 + 46 * 60,
  outForDelivery: 40 * 3600 + 31 * 60,
  delivered: 48 * 3600 + 31 * 60,
} as const;

/** The platform statuses of a full lifecycle whose every status_detail is kept. */
export const fullLifecycleStatuses = [
  'LABEL_PRINTED',
  'CARRIER_PICKED_UP',
  'IN_TRANSIT',
  'OUT_FOR_DELIVERY',
  'DELIVERED',
] as const;
