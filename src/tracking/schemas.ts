import { z } from 'zod';
import { storableText } from '../db/storable-text.js';
import { toPlainText } from './plain-text.js';
import type { AccountInfo, Shipment, ShippingProvider, TrackingEvent, TrackingLocation } from './types.js';

/**
 * Wire schemas of the tracking service's responses, lenient exactly where the interface says fields may be
 * missing, null or empty. Unknown extra fields are dropped (zod objects strip them). Every parser here
 * returns a value or a `safeParse` failure; none throws.
 */

/**
 * Optional text: absent, null, "" and wrong-typed values all become null; numbers become text. Every text
 * from the service is stored as it is read, so none keeps a NUL or a lone surrogate (see storableText).
 */
const optionalText = z
  .unknown()
  .optional()
  .transform((v): string | null => {
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    if (typeof v !== 'string') return null;
    const t = storableText(v).trim();
    return t === '' ? null : t;
  });

/** Required text; a number is accepted as its decimal text (identifiers are sometimes sent as numbers). */
const requiredText = z.union([z.string().transform(storableText), z.number().transform(String)]);

const location = z
  .object({ city: optionalText, state: optionalText, country: optionalText, zip: optionalText })
  .transform((l): TrackingLocation => ({ city: l.city, state: l.state, country: l.country, zip: l.zip }));

const event = z
  .object({
    message: z.string().transform(storableText),
    description: optionalText,
    status: optionalText,
    status_detail: optionalText,
    datetime: z.string().transform(storableText),
    source: optionalText,
    tracking_location: location.nullish().catch(null),
  })
  .transform((e): TrackingEvent => ({
    message: e.message,
    description: e.description,
    status: e.status ?? 'unknown',
    statusDetail: e.status_detail,
    datetime: e.datetime,
    source: e.source,
    location: e.tracking_location ?? null,
  }));

/**
 * Events read of one list, the last ones as listed (the interface lists oldest first). A real parcel has
 * tens; a 1 MiB push of 13 000 events, each parsed, derived and sorted, held the event loop for a tenth of a
 * second: what is kept of a history is bounded anyway (src/shipments/status.ts, maxStoredEvents).
 */
export const maxEventsPerList = 500;

/**
 * A list of events: null or absent is an empty list; an element that is not a well-formed event is left out
 * rather than failing the whole shipment (the rest of the history is still worth showing).
 */
const eventList = z
  .unknown()
  .optional()
  .transform((v): TrackingEvent[] => {
    if (!Array.isArray(v)) return [];
    const out: TrackingEvent[] = [];
    for (const item of v.length > maxEventsPerList ? v.slice(-maxEventsPerList) : v) {
      const parsed = event.safeParse(item);
      if (parsed.success) out.push(parsed.data);
    }
    return out;
  });

export const shipmentSchema = z
  .object({
    order_id: optionalText,
    tracking_number: requiredText,
    tracking_provider: optionalText,
    tracking_event_status: optionalText,
    tracking_est_delivery_date: optionalText,
    origin_country: optionalText,
    destination_country: optionalText,
    delivery_number: optionalText,
    delivery_provider: optionalText,
    shipping_service: optionalText,
    last_event_time: optionalText,
    events: eventList,
    destination_events: eventList,
  })
  .transform((s): Shipment => ({
    orderId: s.order_id,
    trackingNumber: s.tracking_number,
    trackingProvider: s.tracking_provider,
    status: s.tracking_event_status ?? 'unknown',
    estimatedDeliveryDate: s.tracking_est_delivery_date,
    originCountry: s.origin_country,
    destinationCountry: s.destination_country,
    deliveryNumber: s.delivery_number,
    deliveryProvider: s.delivery_provider,
    shippingService: toPlainText(s.shipping_service),
    shippingServiceRaw: s.shipping_service,
    lastEventTime: s.last_event_time,
    events: s.events,
    destinationEvents: s.destination_events,
  }));

/** `trackers_balance` is numeric text; a number is accepted too. Anything else is "unknown" (null). */
export function parseBalance(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const cleaned = value.trim().replace(/[,_\s]/g, '');
  if (!/^-?\d+(\.\d+)?$/.test(cleaned)) return null;
  return Number(cleaned);
}

const accountFields = {
  trackers_balance: z.unknown().optional(),
  user_plan: optionalText,
};

export function accountInfo(body: { trackers_balance?: unknown; user_plan: string | null }): AccountInfo {
  return { trackersBalance: parseBalance(body.trackers_balance), userPlan: body.user_plan };
}

export const createResponseSchema = z.object({
  status: z.string(),
  status_msg: optionalText,
  message: optionalText,
  ...accountFields,
});

export const getResponseSchema = z.object({
  status: z.string(),
  data: z.unknown().optional(),
  message: optionalText,
});

export const byOrderResponseSchema = getResponseSchema;

export const deleteResponseSchema = z.object({
  status: z.string(),
  message: optionalText,
});

const provider = z.object({ label: requiredText, slug: z.string().trim().min(1) });

export const providersResponseSchema = z.object({
  success: z.boolean().optional(),
  status: optionalText,
  message: optionalText,
  data: z.unknown().optional(),
});

/** Providers list: well-formed entries kept, the rest left out; labels get the same plain-text treatment. */
export function parseProviderList(data: unknown): ShippingProvider[] | null {
  if (!Array.isArray(data)) return null;
  const out: ShippingProvider[] = [];
  for (const item of data) {
    const parsed = provider.safeParse(item);
    if (parsed.success) {
      out.push({ label: toPlainText(parsed.data.label) ?? parsed.data.slug, slug: parsed.data.slug });
    }
  }
  return out;
}

/** The documented error body: `status: "error"` and `message`. Loose, since proxies send other bodies. */
export const errorBodySchema = z.object({
  status: optionalText,
  message: optionalText,
  status_msg: optionalText,
});
