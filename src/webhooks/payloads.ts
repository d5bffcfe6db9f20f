import { z } from 'zod';
import { numericId, payloadText } from '../trackers/fulfillment-payload.js';

/**
 * The store's other webhook bodies (privacy requests, uninstall), validated once where the worker reads
 * them; fulfilment and order-cancel bodies are src/trackers/fulfillment-payload.ts.
 */

/** A shop's own domain, as the platform names it: lower-cased for comparison with the header's. */
const shopDomain = z.string().trim().toLowerCase().min(1).max(255);

/** The privacy topics' bodies always name the shop and its platform id (unused here). */
const complianceShop = { shop_domain: shopDomain, shop_id: numericId.optional() };

const customer = z.object({ id: numericId.optional(), email: payloadText.optional() }).partial();

export const customersDataRequestPayload = z.object({
  ...complianceShop,
  orders_requested: z.array(numericId),
  customer: customer.nullish(),
  data_request: z.object({ id: numericId.optional() }).partial().nullish(),
});
export type CustomersDataRequestPayload = z.output<typeof customersDataRequestPayload>;

export const customersRedactPayload = z.object({
  ...complianceShop,
  orders_to_redact: z.array(numericId),
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
  id: numericId,
  myshopify_domain: shopDomain,
  domain: shopDomain.nullish(),
});
export type AppUninstalledPayload = z.output<typeof appUninstalledPayload>;
