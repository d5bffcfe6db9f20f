import type { Tracker } from '../../generated/sqlite/client.js';
import { normaliseStatus } from '../../shipments/status.js';
import {
  isFinalStatus,
  parcelGroupOf,
  parcelGroupStatusTones,
  type StatusTone,
} from '../../shipments/status-table.js';
import { statusActions as actions, statusLabels as labels } from '../vocabulary.js';

/**
 * The parcel's status as the merchant reads it: the service's word (lower case), a label in plain words,
 * and a tone for the badge, from its group in the status table: pending (not moving yet), transit,
 * delivered, exception (needs a look), ended (over without delivery or problem: cancelled…).
 */
export type { StatusTone };

export interface StatusView {
  code: string;
  detail: string | null;
  label: string;
  tone: StatusTone;
  /** For the service's own tracker states: what the merchant can do about it. */
  action: string | null;
}

/** Details that say more than a still-moving status (the service's status stays in_transit for them). */
const telling = new Set(['out_for_delivery', 'available_for_pickup', 'ready_for_pickup', 'picked_up']);

function words(code: string): string {
  const text = code.replace(/_/g, ' ').trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Null when no status was read yet. */
export function statusView(
  status: string | null | undefined,
  statusDetail: string | null | undefined = null,
): StatusView | null {
  const code = normaliseStatus(status);
  if (code === '') return null;
  const detail = normaliseStatus(statusDetail) || null;
  // The tone follows the status's own group; a moving status's label may say more by its detail.
  const tone = parcelGroupStatusTones[parcelGroupOf(code)];
  const moving = tone === 'transit' && !isFinalStatus(code);
  const byDetail = moving && detail !== null && telling.has(detail) ? detail : null;
  const label = labels[byDetail ?? code] ?? words(code);
  return { code, detail, label, tone, action: actions[code] ?? null };
}

export function isDelivered(status: string | null | undefined): boolean {
  return normaliseStatus(status) === 'delivered';
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
