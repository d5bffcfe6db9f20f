import { z } from 'zod';
import type { StoreCallResult, StoreEventInput, StoreEventsApi } from '../shipments/post-store-events.js';
import type { StoreAdmin } from './admin-graphql.js';

/**
 * The store's fulfilment events over the Admin GraphQL API, with the store's offline session:
 * `fulfillmentEventCreate` (scope write_fulfillments) to write one, and the fulfilment's `events` (scope
 * read_fulfillments) to see whether one is already there.
 */

export const FULFILLMENT_EVENT_CREATE = `mutation fulfillmentEventCreate($fulfillmentEvent: FulfillmentEventInput!) {
  fulfillmentEventCreate(fulfillmentEvent: $fulfillmentEvent) {
    fulfillmentEvent { id status happenedAt }
    userErrors { field message }
  }
}`;

export const FULFILLMENT_EVENTS_QUERY = `query fulfillmentEvents($id: ID!) {
  fulfillment(id: $id) {
    events(first: 250, sortKey: HAPPENED_AT, reverse: true) { nodes { status happenedAt } }
  }
}`;

const createAnswer = z.object({
  fulfillmentEventCreate: z
    .object({
      fulfillmentEvent: z.object({ id: z.string() }).nullish(),
      userErrors: z.array(z.object({ message: z.string() })).default([]),
    })
    .nullish(),
});

const eventsAnswer = z.object({
  fulfillment: z
    .object({
      events: z.object({
        nodes: z.array(z.object({ status: z.string(), happenedAt: z.string() })),
      }),
    })
    .nullish(),
});

export function fulfillmentGid(fulfillmentId: string): string {
  return fulfillmentId.startsWith('gid://') ? fulfillmentId : `gid://shopify/Fulfillment/${fulfillmentId}`;
}

export function shopifyStoreEvents(admin: StoreAdmin): StoreEventsApi {
  const call = (shopDomain: string, query: string, variables: Record<string, unknown>) =>
    admin.request(shopDomain, query, variables);

  return {
    async create(shopDomain, input): Promise<StoreCallResult<{ id: string }>> {
      const answer = await call(shopDomain, FULFILLMENT_EVENT_CREATE, {
        fulfillmentEvent: toVariables(input),
      });
      if (!answer.ok) return answer;
      const parsed = createAnswer.safeParse(answer.value);
      if (!parsed.success) return { ok: false, kind: 'retry', message: 'unexpected answer from the store' };
      const payload = parsed.data.fulfillmentEventCreate;
      if (payload?.userErrors.length) {
        return { ok: false, kind: 'rejected', message: payload.userErrors.map((e) => e.message).join('; ') };
      }
      if (!payload?.fulfillmentEvent)
        return { ok: false, kind: 'rejected', message: 'the store created no event' };
      return { ok: true, value: { id: payload.fulfillmentEvent.id } };
    },

    async exists(shopDomain, input): Promise<StoreCallResult<boolean>> {
      const answer = await call(shopDomain, FULFILLMENT_EVENTS_QUERY, {
        id: fulfillmentGid(input.fulfillmentId),
      });
      if (!answer.ok) return answer;
      const parsed = eventsAnswer.safeParse(answer.value);
      if (!parsed.success) return { ok: false, kind: 'retry', message: 'unexpected answer from the store' };
      if (!parsed.data.fulfillment)
        return { ok: false, kind: 'rejected', message: 'the fulfilment is not in the store' };
      const at = Math.floor(input.happenedAt.getTime() / 1000);
      return {
        ok: true,
        value: parsed.data.fulfillment.events.nodes.some(
          (e) => e.status === input.status && Math.floor(new Date(e.happenedAt).getTime() / 1000) === at,
        ),
      };
    },
  };
}

function toVariables(input: StoreEventInput): Record<string, unknown> {
  const optional = (value: string | null) => (value && value.trim() !== '' ? value : undefined);
  return {
    fulfillmentId: fulfillmentGid(input.fulfillmentId),
    status: input.status,
    happenedAt: input.happenedAt.toISOString(),
    message: optional(input.message),
    city: optional(input.city),
    province: optional(input.province),
    country: optional(input.country),
    zip: optional(input.zip),
    estimatedDeliveryAt: input.estimatedDeliveryAt?.toISOString(),
  };
}
