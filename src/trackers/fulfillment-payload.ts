import { z } from 'zod';
import { plausibleEmail } from '../lib/email-hash.js';
import { isStorableDate, storableText } from '../db/storable-text.js';

/**
 * The platform's fulfilment and order-cancel bodies (webhooks, and the Admin API's backfill), validated once
 * where the worker reads them. Only the fields this app uses
 * are kept; the platform sends many more. Ids arrive as JSON numbers larger than 2^31 (and may one day
 * arrive as strings): both become decimal text.
 */

/** A platform id: a JSON number (larger than 2^31) or numeric text, as decimal text. */
export const numericId = z.union([
  z.string().trim().regex(/^\d+$/, 'not a numeric id'),
  z
    .number()
    .int()
    .nonnegative()
    .transform((n) => String(n)),
]);

/** At most this many characters of any free text taken from a body (names, carriers, postal codes). */
const maxTextLength = 500;

/** Free text of a body, cleaned, trimmed and bounded; empty is null. */
function cleanText(v: string | null | undefined): string | null {
  const cleaned = v == null ? '' : storableText(v).trim().slice(0, maxTextLength);
  return cleaned === '' ? null : cleaned;
}

/** Free text of a body: cleaned, trimmed, bounded; empty is null. */
export const payloadText = z.string().nullish().transform(cleanText);

const timestamp = z
  .string()
  .refine((v) => isStorableDate(new Date(v)), 'not a timestamp (or out of range)')
  .transform((v) => new Date(v));

const destination = z
  .object({ zip: payloadText.optional(), country_code: payloadText.optional() })
  .nullish()
  .transform((d) => ({ zip: d?.zip ?? null, countryCode: d?.country_code?.toUpperCase() ?? null }));

/**
 * What one fulfilment may carry. A parcel's tracking number is at most a few dozen characters; a
 * fulfilment with more than a few hundred parcels is not one a store makes by hand. Beyond these bounds a
 * body is an accident or an attack: the numbers within them are applied, the rest refused with a reason.
 */
export const trackingNumberLimits = { perFulfillment: 250, length: 100 } as const;

export interface RefusedNumbers {
  /** Numbers past the first `perFulfillment`. */
  overLimit: number;
  /** Numbers longer than `length` characters, or with characters no tracking number has. */
  malformed: number;
}

/** A tracking number is printable text: no control characters, no lone surrogates. */
const unprintable =
  /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Trimmed, non-empty, de-duplicated (order kept), within the bounds; falls back to the single
 * `tracking_number`.
 */
function trackingNumbers(
  list: Array<string | null> | null | undefined,
  single: string | null,
): { numbers: string[]; refused: RefusedNumbers } {
  const all = list && list.length > 0 ? list : [single];
  const seen = new Set<string>();
  const refused: RefusedNumbers = { overLimit: 0, malformed: 0 };
  for (const n of all) {
    const trimmed = n?.trim();
    if (!trimmed || seen.has(trimmed)) continue;
    if (trimmed.length > trackingNumberLimits.length || unprintable.test(trimmed)) refused.malformed++;
    else if (seen.size >= trackingNumberLimits.perFulfillment) refused.overLimit++;
    else seen.add(trimmed);
  }
  return { numbers: [...seen], refused };
}

/** What a merchant and an operator read when some of a fulfilment's numbers were refused. */
export function describeRefusedNumbers(refused: RefusedNumbers): string | null {
  const parts: string[] = [];
  if (refused.overLimit > 0) {
    parts.push(
      `${refused.overLimit} tracking number(s) beyond the first ${trackingNumberLimits.perFulfillment} of one fulfilment were not applied`,
    );
  }
  if (refused.malformed > 0) {
    parts.push(
      `${refused.malformed} tracking number(s) longer than ${trackingNumberLimits.length} characters or with control characters were not applied`,
    );
  }
  return parts.length > 0 ? parts.join('; ') : null;
}

/** The longest carrier tracking-page URL kept. */
export const trackingUrlMaxLength = 2000;

/** An http(s) URL of at most trackingUrlMaxLength characters, else null (never a javascript: link). */
export function safeTrackingUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.length > trackingUrlMaxLength || unprintable.test(trimmed)) return null;
  try {
    const url = new URL(trimmed);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * Each applied number's carrier tracking page: the store sends `tracking_urls` in the order of
 * `tracking_numbers`, or one `tracking_url` for a single number.
 */
function trackingUrlsOf(
  numbers: Array<string | null> | null | undefined,
  urls: Array<string | null> | null | undefined,
  single: string | null | undefined,
  applied: string[],
): Record<string, string> {
  const byNumber: Record<string, string> = {};
  const list = numbers && numbers.length > 0 ? numbers : [];
  list.forEach((n, i) => {
    const url = safeTrackingUrl(urls?.[i]);
    const number = n?.trim();
    if (url && number && !(number in byNumber)) byNumber[number] = url;
  });
  if (applied.length === 1 && !(applied[0]! in byNumber)) {
    const url = safeTrackingUrl(single) ?? safeTrackingUrl(urls?.[0]);
    if (url) byNumber[applied[0]!] = url;
  }
  return Object.fromEntries(applied.filter((n) => n in byNumber).map((n) => [n, byNumber[n]!]));
}

/**
 * A fulfilment's name as the platform spells it: its order's name and its place among the order's
 * fulfilments (`#1001` and 1 → `#1001.1`). The one naming of fulfilments: a webhook body carries it, and an
 * import whose answer leaves it out makes it here the same way. Null without an order name.
 */
export function fulfillmentNameOf(orderName: string | null, position: number): string | null {
  return orderName === null ? null : `${orderName}.${position}`;
}

/** `#1001.1` (a fulfilment's name) → `#1001` (its order's name). */
export function orderNameFromFulfillmentName(name: string | null): string | null {
  if (name === null) return null;
  return name.replace(/\.\d+$/, '');
}

const fulfillmentFields = z.object({
  id: numericId,
  order_id: numericId,
  // Stored on the fulfilment: cleaned as free text is (a platform body is never lost over a NUL).
  status: z.string().overwrite(storableText).trim().min(1),
  created_at: timestamp.nullish(),
  updated_at: timestamp.nullish(),
  tracking_company: payloadText.optional(),
  tracking_number: payloadText.optional(),
  tracking_numbers: z.array(z.string().nullable()).nullish(),
  destination,
  name: payloadText.optional(),
  email: payloadText.optional(),
  // Lenient: a malformed URL loses only its link, never the fulfilment.
  tracking_url: z.unknown().optional(),
  tracking_urls: z.array(z.unknown()).nullish().catch(null),
});

/** The fields of a fulfilment body, read: what {@link fulfillmentOf} makes the payload from. */
type FulfillmentFields = z.output<typeof fulfillmentFields>;

/** A fulfilment body's fields, read, as the payload the app works with. */
function fulfillmentOf(f: FulfillmentFields) {
  const { numbers, refused } = trackingNumbers(f.tracking_numbers, f.tracking_number ?? null);
  return {
    fulfillmentId: f.id,
    orderId: f.order_id,
    orderName: orderNameFromFulfillmentName(f.name ?? null),
    fulfillmentName: f.name ?? null,
    /** The order's customer email as sent (hashed before it is stored: src/lib/email-hash.ts). */
    customerEmail: plausibleEmail(f.email),
    /** The carrier's tracking page per applied number, when the store gave one. */
    trackingUrls: trackingUrlsOf(
      f.tracking_numbers,
      f.tracking_urls?.map((u) => (typeof u === 'string' ? u : null)),
      typeof f.tracking_url === 'string' ? f.tracking_url : null,
      numbers,
    ),
    status: f.status.toLowerCase(),
    /** When the store last changed this fulfilment: the newest wins. */
    updatedAt: f.updated_at ?? f.created_at ?? null,
    carrierName: f.tracking_company ?? null,
    trackingNumbers: numbers,
    /** Numbers beyond the bounds: not applied, and said so on the delivery. */
    refusedNumbers: refused,
    postalCode: f.destination.zip,
    destinationCountry: f.destination.countryCode,
  };
}

/** A fulfilment body (zod): the reference for what is accepted and what a refusal says. */
export const fulfillmentPayload = fulfillmentFields.transform(fulfillmentOf);
export type FulfillmentPayload = z.output<typeof fulfillmentPayload>;

/**
 * A fulfilment body read by hand, for the hot paths (every delivery is checked at intake and again by the
 * worker): the same fields with the same rules as {@link fulfillmentPayload}, without the schema's machinery.
 * It takes only what is plainly well-formed and answers null for anything else, which then goes through
 * the zod schema: that decides, and words the refusal. A property test holds the two together: whatever
 * this reads, the schema reads alike.
 */
export function readFulfillmentFast(input: unknown): FulfillmentPayload | null {
  const fields = plainFields(input);
  return fields && fulfillmentOf(fields);
}

/**
 * Whether the schema takes this body, answered by hand where it plainly does (intake's check: the verdict
 * alone, none of the payload's derived parts, which never refuse a body). False: ask the schema.
 */
export function isPlainFulfillment(input: unknown): boolean {
  return plainFields(input) !== null;
}

/** A fulfilment body (the hand-read fast path, else the zod schema, which decides and words a refusal). */
export function parseFulfillmentPayload(input: unknown): z.ZodSafeParseResult<FulfillmentPayload> {
  const fast = readFulfillmentFast(input);
  return fast ? { success: true, data: fast } : fulfillmentPayload.safeParse(input);
}

/** The schema's fields of a plainly well-formed body, or null where the schema must look. */
function plainFields(input: unknown): FulfillmentFields | null {
  if (!isRecord(input)) return null;
  const id = plainId(input.id);
  const orderId = plainId(input.order_id);
  if (id === null || orderId === null || typeof input.status !== 'string') return null;
  const status = storableText(input.status).trim();
  if (status === '') return null;
  const createdAt = plainTimestamp(input.created_at);
  const updatedAt = plainTimestamp(input.updated_at);
  if (createdAt === false || updatedAt === false) return null;
  const { tracking_company: company, tracking_number: single, name, email } = input;
  if (
    !isTextOrNothing(company) ||
    !isTextOrNothing(single) ||
    !isTextOrNothing(name) ||
    !isTextOrNothing(email)
  )
    return null;
  const numbers = input.tracking_numbers;
  if (
    numbers != null &&
    !(Array.isArray(numbers) && numbers.every((n) => n === null || typeof n === 'string'))
  )
    return null;
  const destination = input.destination;
  if (destination != null && !isRecord(destination)) return null;
  if (destination && !(isTextOrNothing(destination.zip) && isTextOrNothing(destination.country_code)))
    return null;
  const urls = input.tracking_urls;
  return {
    id,
    order_id: orderId,
    status,
    created_at: createdAt,
    updated_at: updatedAt,
    tracking_company: cleanText(company),
    tracking_number: cleanText(single),
    tracking_numbers: numbers as Array<string | null> | null | undefined,
    destination: {
      zip: cleanText(destination?.zip as string | null | undefined),
      countryCode: cleanText(destination?.country_code as string | null | undefined)?.toUpperCase() ?? null,
    },
    name: cleanText(name),
    email: cleanText(email),
    tracking_url: input.tracking_url,
    // As the schema's catch: anything but a list (or nothing) is no list.
    tracking_urls: Array.isArray(urls) ? (urls as unknown[]) : urls === undefined ? undefined : null,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTextOrNothing(value: unknown): value is string | null | undefined {
  return value == null || typeof value === 'string';
}

/** A platform id as {@link numericId} reads it, or null where the schema must look. */
function plainId(value: unknown): string | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? String(value) : null;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return /^\d+$/.test(trimmed) ? trimmed : null;
}

/** A timestamp as the schema reads it (absent, null or a storable date), or false where the schema must look. */
function plainTimestamp(value: unknown): Date | null | undefined | false {
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string') return false;
  const date = new Date(value);
  return isStorableDate(date) ? date : false;
}

/**
 * orders/cancelled: a cancelled order always carries `cancelled_at`, and an order (unlike a fulfilment)
 * has no `order_id`; requiring the one is what keeps a fulfilment body replayed under this topic out.
 */
export const orderCancelledPayload = z
  .object({
    id: numericId,
    name: payloadText.optional(),
    cancelled_at: timestamp,
    updated_at: timestamp.nullish(),
  })
  .transform((o) => ({
    orderId: o.id,
    orderName: o.name ?? null,
    cancelledAt: o.cancelled_at,
  }));
export type OrderCancelledPayload = z.output<typeof orderCancelledPayload>;
