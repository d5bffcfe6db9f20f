import { createHash } from 'node:crypto';
import { isStorableText, unstorableTextMessage } from '../db/storable-text.js';
import { shipmentSchema } from '../tracking/schemas.js';
import type { Shipment } from '../tracking/types.js';

/**
 * A push's body: the shipment as the `get` operation's `data`, read with the same lenient schema (fields
 * may be missing, null or empty; unknown ones such as `user_key`, `first_event_time`, `updated_at`,
 * `destination_state`, `destination_city` are ignored). The real service may name the destination events
 * `tracking_destination_events`. Only `tracking_number` is required.
 */

export type ParsedPush =
  | { ok: true; shipment: Shipment; dedupeKey: string }
  | { ok: false; reason: 'not_json' | 'not_a_shipment'; message: string };

export function parsePush(text: string): ParsedPush {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not_json', message: 'the body is not JSON' };
  }
  // Some senders wrap it as the get operation does: { status, data: { … } }.
  if (
    body &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    'data' in body &&
    !('tracking_number' in body)
  )
    body = (body as { data: unknown }).data;
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return { ok: false, reason: 'not_a_shipment', message: 'the body is not a shipment object' };
  const record = body as Record<string, unknown>;
  const withAlias =
    record.destination_events === undefined && record.tracking_destination_events !== undefined
      ? { ...record, destination_events: record.tracking_destination_events }
      : record;
  // The number names the tracker: one the database cannot store (a NUL, a lone surrogate) is refused, not
  // cleaned into another number. Free text (messages, places) is cleaned as any read is (storableText).
  if (typeof record.tracking_number === 'string' && !isStorableText(record.tracking_number))
    return {
      ok: false,
      reason: 'not_a_shipment',
      message: `the body's tracking_number ${unstorableTextMessage}`,
    };
  const parsed = shipmentSchema.safeParse(withAlias);
  if (!parsed.success || parsed.data.trackingNumber.trim() === '' || parsed.data.trackingNumber.length > 100)
    return { ok: false, reason: 'not_a_shipment', message: 'the body has no usable tracking_number' };
  return { ok: true, shipment: parsed.data, dedupeKey: dedupeKeyOf(parsed.data) };
}

/** Same number, provider, status, last event time and event count: the same push. */
export function dedupeKeyOf(s: Shipment): string {
  return createHash('sha256')
    .update(
      [
        s.trackingNumber.trim().toUpperCase(),
        s.trackingProvider ?? '',
        s.status,
        s.lastEventTime ?? '',
        s.events.length,
      ].join('\u0000'),
    )
    .digest('hex');
}
