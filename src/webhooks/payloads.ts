import { z } from 'zod';

/**
 * The store's webhook bodies, validated once where the worker reads them. Only the fields this app uses
 * are kept; the platform sends many more. Ids arrive as JSON numbers larger than 2^31 (and may one day
 * arrive as strings): both become decimal text.
 */

const id = z.union([
  z.string().trim().regex(/^\d+$/, 'not a numeric id'),
  z
    .number()
    .int()
    .nonnegative()
    .transform((n) => String(n)),
]);

const text = z
  .string()
  .nullish()
  .transform((v) => (v == null || v.trim() === '' ? null : v.trim()));

/**
 * A date every supported database can store: years 1 to 9999. JavaScript dates reach far beyond (year 0,
 * negative years, year 275760), SQLite stores them, PostgreSQL refuses them: one rule for both.
 */
export function isStorableDate(date: Date): boolean {
  const year = date.getUTCFullYear();
  return !Number.isNaN(date.getTime()) && year >= 1 && year <= 9999;
}

const timestamp = z
  .string()
  .refine((v) => isStorableDate(new Date(v)), 'not a timestamp (or out of range)')
  .transform((v) => new Date(v));

const destination = z
  .object({ zip: text.optional(), country_code: text.optional() })
  .nullish()
  .transform((d) => ({ zip: d?.zip ?? null, countryCode: d?.country_code?.toUpperCase() ?? null }));

/** Trimmed, non-empty, de-duplicated (order kept); falls back to the single `tracking_number`. */
function trackingNumbers(list: Array<string | null> | null | undefined, single: string | null): string[] {
  const all = list && list.length > 0 ? list : [single];
  const seen = new Set<string>();
  for (const n of all) {
    const trimmed = n?.trim();
    if (trimmed) seen.add(trimmed);
  }
  return [...seen];
}

/** `#1001.1` (a fulfilment's name) → `#1001` (its order's name). */
export function orderNameFromFulfillmentName(name: string | null): string | null {
  if (name === null) return null;
  return name.replace(/\.\d+$/, '');
}

export const fulfillmentPayload = z
  .object({
    id,
    order_id: id,
    status: z.string().trim().min(1),
    created_at: timestamp.nullish(),
    updated_at: timestamp.nullish(),
    tracking_company: text.optional(),
    tracking_number: text.optional(),
    tracking_numbers: z.array(z.string().nullable()).nullish(),
    destination,
    name: text.optional(),
  })
  .transform((f) => ({
    fulfillmentId: f.id,
    orderId: f.order_id,
    orderName: orderNameFromFulfillmentName(f.name ?? null),
    status: f.status.toLowerCase(),
    /** When the store last changed this fulfilment: the newest wins. */
    updatedAt: f.updated_at ?? f.created_at ?? null,
    carrierName: f.tracking_company ?? null,
    trackingNumbers: trackingNumbers(f.tracking_numbers, f.tracking_number ?? null),
    postalCode: f.destination.zip,
    destinationCountry: f.destination.countryCode,
  }));
export type FulfillmentPayload = z.output<typeof fulfillmentPayload>;

/**
 * orders/cancelled: a cancelled order always carries `cancelled_at`, and an order (unlike a fulfilment)
 * has no `order_id`; requiring the one is what keeps a fulfilment body replayed under this topic out.
 */
export const orderCancelledPayload = z
  .object({
    id,
    name: text.optional(),
    cancelled_at: timestamp,
    updated_at: timestamp.nullish(),
  })
  .transform((o) => ({
    orderId: o.id,
    orderName: o.name ?? null,
    cancelledAt: o.cancelled_at,
  }));
export type OrderCancelledPayload = z.output<typeof orderCancelledPayload>;

/** A shop's own domain, as the platform names it: lower-cased for comparison with the header's. */
const shopDomain = z.string().trim().toLowerCase().min(1).max(255);

/** The privacy topics' bodies always name the shop and its platform id (unused here). */
const complianceShop = { shop_domain: shopDomain, shop_id: id.optional() };

const customer = z.object({ id: id.optional(), email: text.optional() }).partial();

export const customersDataRequestPayload = z.object({
  ...complianceShop,
  orders_requested: z.array(id),
  customer: customer.nullish(),
  data_request: z.object({ id: id.optional() }).partial().nullish(),
});
export type CustomersDataRequestPayload = z.output<typeof customersDataRequestPayload>;

export const customersRedactPayload = z.object({
  ...complianceShop,
  orders_to_redact: z.array(id),
  customer: customer.nullish(),
});
export type CustomersRedactPayload = z.output<typeof customersRedactPayload>;

/** Fields only a customer's privacy request carries: a body with any of them is not a shop's redact. */
const customerRequestFields = ['customer', 'orders_to_redact', 'orders_requested', 'data_request'] as const;

export const shopRedactPayload = z
  .looseObject(complianceShop)
  .superRefine((body, ctx) => {
    for (const field of customerRequestFields) {
      if (field in body)
        ctx.addIssue({ code: 'custom', path: [field], message: 'not part of a shop redact' });
    }
  })
  .transform((b) => ({ shop_domain: b.shop_domain, shop_id: b.shop_id }));
export type ShopRedactPayload = z.output<typeof shopRedactPayload>;

/**
 * app/uninstalled: the Shop object. `myshopify_domain` names the shop for certain; `domain` is its primary
 * domain, which is the same `*.myshopify.com` name unless the merchant has a custom domain.
 */
export const appUninstalledPayload = z.object({
  id,
  myshopify_domain: shopDomain,
  domain: shopDomain.nullish(),
});
export type AppUninstalledPayload = z.output<typeof appUninstalledPayload>;
