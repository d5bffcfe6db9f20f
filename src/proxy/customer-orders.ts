import { z } from 'zod';
import { createBriefCache } from '../lib/brief-cache.js';
import type { Logger } from '../logger.js';
import type { StoreAdmin } from '../shopify/admin-graphql.js';

/**
 * A logged-in shopper's recent orders, for the tracking page to show without anything typed. The platform
 * names the customer (`logged_in_customer_id`, inside the signed proxy request); which orders are theirs is
 * asked of the store (Admin GraphQL `orders` filtered by `customer_id`, scope read_orders), not kept here:
 * the app stores no customer ids. Answers are kept a minute per customer and shared by requests at the
 * same moment (src/lib/brief-cache.ts); the page waits at most `waitMs` and otherwise shows the lookup form;
 * a failed answer is not kept.
 */

export const recentOrdersShown = 5;

export const CUSTOMER_ORDERS_QUERY = `query CustomerRecentOrders($query: String!) {
  orders(first: ${recentOrdersShown}, query: $query, sortKey: CREATED_AT, reverse: true) {
    nodes { legacyResourceId name }
  }
}`;

const answer = z.object({
  orders: z.object({
    nodes: z.array(z.object({ legacyResourceId: z.string(), name: z.string().nullish() })),
  }),
});

export interface RecentOrder {
  /** The store's numeric order id, as in webhooks. */
  orderId: string;
  name: string | null;
}

export interface CustomerOrders {
  /**
   * The customer's recent orders, newest first; null when the store could not say in time. An answer kept
   * from before `notBefore` (the shop's last customers/redact) is not used: the store is asked again.
   */
  recent(shopDomain: string, customerId: string, notBefore?: Date | null): Promise<RecentOrder[] | null>;
}

export interface CustomerOrdersDeps {
  admin: StoreAdmin;
  logger: Logger;
  cacheMs?: number;
  waitMs?: number;
  now?: () => number;
}

/** A platform customer id: digits only (it is written into a search query). */
const customerIdPattern = /^\d{1,20}$/;
const maxCached = 5_000;

export function createCustomerOrders(deps: CustomerOrdersDeps): CustomerOrders {
  const cache = createBriefCache<RecentOrder[]>({
    keepMs: deps.cacheMs ?? 60_000,
    waitMs: deps.waitMs ?? 2_000,
    maxEntries: maxCached,
    ...(deps.now ? { now: deps.now } : {}),
  });

  async function ask(shopDomain: string, customerId: string): Promise<RecentOrder[] | null> {
    const result = await deps.admin.request(shopDomain, CUSTOMER_ORDERS_QUERY, {
      query: `customer_id:${customerId}`,
    });
    if (!result.ok) {
      deps.logger.info(
        { shop: shopDomain, kind: result.kind },
        "tracking page: the customer's orders not read",
      );
      return null;
    }
    const parsed = answer.safeParse(result.value);
    if (!parsed.success) return null;
    return parsed.data.orders.nodes.map((o) => ({ orderId: o.legacyResourceId, name: o.name ?? null }));
  }

  return {
    async recent(shopDomain, customerId, notBefore) {
      if (!customerIdPattern.test(customerId)) return null;
      return cache.get(`${shopDomain}:${customerId}`, () => ask(shopDomain, customerId), notBefore);
    },
  };
}
