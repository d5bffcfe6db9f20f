import type { Tracker } from '../../generated/sqlite/client.js';
import {
  isExceptionStatus,
  isFinalStatus,
  normaliseStatus,
  type StoredEvent,
} from '../../shipments/status.js';
import { statusActions as actions, statusLabels as labels } from '../vocabulary.js';

/**
 * The parcel's status as the merchant reads it: the service's word (lower case), a label in plain words,
 * and a tone for the badge: pending (not moving yet), transit, delivered, exception (needs a look), ended
 * (over without delivery or problem: cancelled, expired…).
 */
export type StatusTone = 'pending' | 'transit' | 'delivered' | 'exception' | 'ended';

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
const notMoving = new Set([
  'pending',
  'pending_trackship',
  'info_received',
  'label_created',
  'label_printed',
  'pre_transit',
]);

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
  const moving = !isFinalStatus(code) && !isExceptionStatus(code) && !notMoving.has(code);
  const byDetail = moving && detail !== null && telling.has(detail) ? detail : null;
  const label = labels[byDetail ?? code] ?? words(code);
  let tone: StatusTone;
  if (code === 'delivered') tone = 'delivered';
  else if (isExceptionStatus(code)) tone = 'exception';
  else if (isFinalStatus(code)) tone = 'ended';
  else if (notMoving.has(code) || code === 'unknown') tone = 'pending';
  else tone = 'transit';
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
