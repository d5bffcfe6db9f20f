import type { Tracker } from '../../generated/sqlite/client.js';
import {
  type ParcelAction,
  type ParcelGroup,
  parcelOf,
  type StatusTone,
} from '../../shipments/parcel-model.js';

/**
 * The parcel's status as the merchant reads it, from the parcel model (src/shipments/parcel-model.ts): the
 * service's word (lower case), a label in plain words, a tone for the badge (pending, transit, delivered,
 * exception, ended), and the one piece of advice and the one action. Every view of the admin (the list,
 * the timeline, Needs attention, the CSV) and the CLI read it here.
 */
export type { StatusTone };

export interface StatusView {
  code: string;
  detail: string | null;
  group: ParcelGroup;
  label: string;
  tone: StatusTone;
  /** What the merchant should do, in one sentence; null: nothing but wait. */
  advice: string | null;
  /** Where the merchant acts, and whether the app does it for them. */
  action: ParcelAction | null;
}

/**
 * Null when no status was read yet and the line did not end in the store. `ended`: the line's ending
 * (order or fulfilment cancelled, number removed): it outweighs what the tracker last said.
 */
export function statusView(
  status: string | null | undefined,
  statusDetail: string | null | undefined = null,
  ended: string | null = null,
): StatusView | null {
  const parcel = parcelOf(status, statusDetail, ended);
  if (parcel.code === '' && !ended) return null;
  return {
    code: parcel.code,
    detail: parcel.detail,
    group: parcel.group,
    label: parcel.label,
    tone: parcel.tone,
    advice: parcel.advice,
    action: parcel.action,
  };
}

export interface LastEventView {
  at: string | null;
  message: string | null;
  location: string | null;
}

/** The newest event as stored on the tracker; null when none was seen. */
export function lastEventOf(
  tracker: Pick<Tracker, 'lastEventAt' | 'lastEventMessage' | 'lastEventLocation'>,
): LastEventView | null {
  if (!tracker.lastEventAt && !tracker.lastEventMessage && !tracker.lastEventLocation) return null;
  return {
    at: tracker.lastEventAt?.toISOString() ?? null,
    message: tracker.lastEventMessage,
    location: tracker.lastEventLocation,
  };
}

export { storedEventsOf } from '../../shipments/status.js';
