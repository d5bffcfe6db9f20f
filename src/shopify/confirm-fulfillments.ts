import { z } from 'zod';
import type { StoreAdmin } from './admin-graphql.js';
import { fulfillmentGid } from './fulfillment-events.js';

/**
 * Asks a store which of these fulfilments it holds: one `nodes(ids:)` query of the Admin GraphQL API for up
 * to 250 fulfilments (scope read_fulfillments). A webhook body names no shop and the platform's signature
 * does not cover the shop header, so a body is only proof of a fulfilment once its own store says it has
 * it (src/webhooks/admit-deliveries.ts). A global id the store does not hold comes back `null`.
 */

export const FULFILLMENT_NODES_QUERY = `query confirmFulfillments($ids: [ID!]!) {
  nodes(ids: $ids) { __typename ... on Fulfillment { id } }
}`;

/** The most ids one `nodes` query takes. */
export const nodesPerQuery = 250;

export type ConfirmResult =
  { ok: true; known: Set<string> } | { ok: false; kind: 'retry' | 'rejected' | 'access'; message: string };

export interface FulfillmentConfirmer {
  /** Which of the fulfilment ids (numeric, as in webhook bodies) the store holds; calls: one per 250. */
  confirm(shopDomain: string, fulfillmentIds: readonly string[]): Promise<ConfirmResult>;
}

const nodesAnswer = z.object({
  nodes: z.array(z.object({ __typename: z.string().optional(), id: z.string().optional() }).nullable()),
});

export function storeFulfillmentConfirmer(admin: StoreAdmin): FulfillmentConfirmer {
  return {
    async confirm(shopDomain, fulfillmentIds) {
      const known = new Set<string>();
      for (let i = 0; i < fulfillmentIds.length; i += nodesPerQuery) {
        const ids = fulfillmentIds.slice(i, i + nodesPerQuery);
        const byGid = new Map(ids.map((id) => [fulfillmentGid(id), id]));
        const result = await admin.request(shopDomain, FULFILLMENT_NODES_QUERY, { ids: [...byGid.keys()] });
        if (!result.ok) return result;
        const answer = nodesAnswer.safeParse(result.value);
        if (!answer.success)
          return {
            ok: false,
            kind: 'retry',
            message: 'the store answered the fulfilment query in an unknown shape',
          };
        for (const node of answer.data.nodes) {
          const id = node?.__typename === 'Fulfillment' && node.id ? byGid.get(node.id) : undefined;
          if (id) known.add(id);
        }
      }
      return { ok: true, known };
    },
  };
}
