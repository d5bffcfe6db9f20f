import { z } from 'zod';
import type { StoreCallResult } from '../shipments/post-store-events.js';
import type { StoreAdmin } from './admin-graphql.js';

/**
 * Starts a store's Shopify Flow workflows over the Admin GraphQL API: `flowTriggerReceive(handle, payload)`,
 * the trigger extension's handle and a payload of its fields (the extension's `[[settings.fields]]`: a
 * reference field goes as `<object>_id` with the numeric id, a custom field by its key). The platform takes
 * payloads under 50 000 bytes. An answer with userErrors is a refusal; everything else is as any store call.
 */

export const FLOW_TRIGGER_RECEIVE = `mutation flowTriggerReceive($handle: String, $payload: JSON) {
  flowTriggerReceive(handle: $handle, payload: $payload) {
    userErrors { field message }
  }
}`;

/** A trigger's payload: its fields' values by key. */
export type FlowTriggerPayload = Readonly<Record<string, string | number | boolean>>;

/** The store's side, as a port: what the Flow sender (src/flow/send-flow-events.ts) calls. */
export interface FlowTriggerApi {
  receive(shopDomain: string, handle: string, payload: FlowTriggerPayload): Promise<StoreCallResult<void>>;
}

const receiveAnswer = z.object({
  flowTriggerReceive: z
    .object({
      userErrors: z
        .array(z.object({ field: z.array(z.string()).nullish(), message: z.string() }))
        .default([]),
    })
    .nullish(),
});

export function shopifyFlowTriggers(admin: StoreAdmin): FlowTriggerApi {
  return {
    async receive(shopDomain, handle, payload): Promise<StoreCallResult<void>> {
      const answer = await admin.request(shopDomain, FLOW_TRIGGER_RECEIVE, { handle, payload });
      if (!answer.ok) return answer;
      const parsed = receiveAnswer.safeParse(answer.value);
      if (!parsed.success || !parsed.data.flowTriggerReceive)
        return { ok: false, kind: 'retry', message: 'unexpected answer from the store' };
      const errors = parsed.data.flowTriggerReceive.userErrors;
      if (errors.length > 0) {
        return {
          ok: false,
          kind: 'rejected',
          message: errors
            .map((e) => (e.field?.length ? `${e.field.join('.')}: ${e.message}` : e.message))
            .join('; '),
        };
      }
      return { ok: true, value: undefined };
    },
  };
}
