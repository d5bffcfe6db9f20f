import type { StoreCallResult } from '../shipments/post-store-events.js';
import type { TracksyncShopify } from './api.js';

/**
 * The one way this app asks a store's Admin GraphQL API: the store's offline session (stored by the
 * install), the library's GraphQL client, and every failure as retry / rejected / access
 * (classifyStoreError), never a throw. Fulfilment events, the shoppers' recent orders and the tracking
 * links all go through it.
 */

export interface StoreAdmin {
  request(
    shopDomain: string,
    query: string,
    variables: Record<string, unknown>,
  ): Promise<StoreCallResult<unknown>>;
}

export function shopifyStoreAdmin(shopify: TracksyncShopify): StoreAdmin {
  return {
    async request(shopDomain, query, variables) {
      const storage = shopify.config.sessionStorage;
      const session = storage
        ? await storage.loadSession(shopify.api.session.getOfflineId(shopDomain))
        : undefined;
      if (!session?.accessToken) {
        return {
          ok: false,
          kind: 'access',
          message: 'no offline session for this store (reinstall the app)',
        };
      }
      try {
        const client = new shopify.api.clients.Graphql({ session });
        const response = await client.request<unknown>(query, { variables });
        return { ok: true, value: response.data };
      } catch (error) {
        return { ok: false, ...classifyStoreError(error) };
      }
    },
  };
}

/** The shopify-api library's errors, as retry / rejected / access. */
export function classifyStoreError(error: unknown): {
  kind: 'retry' | 'rejected' | 'access';
  message: string;
} {
  const e = error as {
    name?: string;
    message?: string;
    response?: { code?: number; status?: number };
    body?: { errors?: { graphQLErrors?: Array<{ message?: string; extensions?: { code?: string } }> } };
  };
  const message = (e?.message ?? String(error)).split('\n')[0]!.slice(0, 300);
  const graphqlErrors = e?.body?.errors?.graphQLErrors ?? [];
  const codes = graphqlErrors.map((g) => g.extensions?.code ?? '');
  if (codes.includes('THROTTLED') || codes.includes('INTERNAL_SERVER_ERROR'))
    return { kind: 'retry', message };
  if (codes.includes('ACCESS_DENIED')) return { kind: 'access', message: `access denied: ${message}` };
  if (graphqlErrors.length > 0) return { kind: 'rejected', message };
  const status = e?.response?.code ?? e?.response?.status;
  if (status === 401 || status === 403)
    return { kind: 'access', message: `the store refused the token (HTTP ${status})` };
  if (status !== undefined && status >= 400 && status < 500 && status !== 429 && status !== 408) {
    return { kind: 'rejected', message };
  }
  return { kind: 'retry', message };
}
