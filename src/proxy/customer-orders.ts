import { z } from 'zod';
import type { Logger } from '../logger.js';
import type { StoreAdmin } from '../shopify/admin-graphql.js';

/**
 * A logged-in shopper's recent orders, for the tracking page to show without anything typed. The platform
 * names the customer (`logged_in_customer_id`, inside the signed proxy request); which orders are theirs is
 * asked of the store (Admin GraphQL `orders` filtered by `customer_id`, scope read_orders), not kept here:
 * the app stores no customer ids. Answers are kept a minute per customer and shared by requests at the
 * same moment; the page waits at most `waitMs` and otherwise shows the lookup form.
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
  const now = deps.now ?? Date.now;
  const cache = new Map<string, { at: number; until: number; orders: Promise<RecentOrder[] | null> }>();

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
      const key = `${shopDomain}:${customerId}`;
      let entry = cache.get(key);
      if (!entry || entry.until <= now() || (notBefore && entry.at <= notBefore.getTime())) {
        const orders = ask(shopDomain, customerId).catch(() => null);
        entry = { at: now(), until: now() + (deps.cacheMs ?? 60_000), orders };
        cache.delete(key);
        cache.set(key, entry);
        // A failed answer is not kept: the next request asks again.
        void orders.then((list) => {
          if (list === null && cache.get(key) === entry) cache.delete(key);
        });
        if (cache.size > maxCached) cache.delete(cache.keys().next().value!);
      }
      let timer: NodeJS.Timeout | undefined;
      const waited = await Promise.race([
        entry.orders,
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), deps.waitMs ?? 2_000);
        }),
      ]);
      clearTimeout(timer);
      return waited;
    },
  };
}
