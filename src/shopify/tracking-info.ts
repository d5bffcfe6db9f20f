import { z } from 'zod';
import type { StoreCallResult } from '../shipments/post-store-events.js';
import type { StoreLinksApi, TrackingInfoInput } from '../shipments/tracking-links.js';
import type { StoreAdmin } from './admin-graphql.js';
import { fulfillmentGid } from './fulfillment-events.js';

/**
 * A fulfilment's tracking links over the Admin GraphQL API: `fulfillmentTrackingInfoUpdate` (scope
 * write_merchant_managed_fulfillment_orders), number(s) and company as they are, the links given, and no
 * notification to the customer (the links change, the parcel does not).
 */

export const FULFILLMENT_TRACKING_INFO_UPDATE = `mutation fulfillmentTrackingInfoUpdate($fulfillmentId: ID!, $trackingInfoInput: FulfillmentTrackingInput!, $notifyCustomer: Boolean) {
  fulfillmentTrackingInfoUpdate(fulfillmentId: $fulfillmentId, trackingInfoInput: $trackingInfoInput, notifyCustomer: $notifyCustomer) {
    fulfillment { id }
    userErrors { field message }
  }
}`;

const updateAnswer = z.object({
  fulfillmentTrackingInfoUpdate: z
    .object({
      fulfillment: z.object({ id: z.string() }).nullish(),
      userErrors: z.array(z.object({ message: z.string() })).default([]),
    })
    .nullish(),
});

/** FulfillmentTrackingInput: `number`/`url` for one parcel, `numbers`/`urls` for several. */
export function trackingInfoVariables(input: TrackingInfoInput): Record<string, unknown> {
  const company = input.company?.trim() ? { company: input.company.trim() } : {};
  const trackingInfoInput =
    input.numbers.length === 1
      ? { number: input.numbers[0], ...(input.urls ? { url: input.urls[0] } : {}), ...company }
      : { numbers: input.numbers, ...(input.urls ? { urls: input.urls } : {}), ...company };
  return { fulfillmentId: fulfillmentGid(input.fulfillmentId), trackingInfoInput, notifyCustomer: false };
}

export function shopifyStoreLinks(admin: StoreAdmin): StoreLinksApi {
  return {
    async update(shopDomain, input): Promise<StoreCallResult<void>> {
      const answer = await admin.request(
        shopDomain,
        FULFILLMENT_TRACKING_INFO_UPDATE,
        trackingInfoVariables(input),
      );
      if (!answer.ok) return answer;
      const parsed = updateAnswer.safeParse(answer.value);
      if (!parsed.success) return { ok: false, kind: 'retry', message: 'unexpected answer from the store' };
      const payload = parsed.data.fulfillmentTrackingInfoUpdate;
      if (payload?.userErrors.length) {
        return { ok: false, kind: 'rejected', message: payload.userErrors.map((e) => e.message).join('; ') };
      }
      if (!payload?.fulfillment)
        return { ok: false, kind: 'rejected', message: 'the store updated no fulfilment' };
      return { ok: true, value: undefined };
    },
  };
}
