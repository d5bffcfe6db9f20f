import { z } from 'zod';
import { createBriefCache } from '../lib/brief-cache.js';
import type { Logger } from '../logger.js';
import type { StoreAdmin } from './admin-graphql.js';

/**
 * What is in each parcel, and whose order it is: read from the store's orders through the Admin GraphQL
 * API when a shopper looks, kept briefly in memory (src/lib/brief-cache.ts: a minute per shop and order,
 * shared by requests at the same moment, failures not kept), never stored. The tracking page shows each
 * parcel's items (name, variant, quantity, image); the order status endpoint checks the order's customer.
 *
 * One query for several orders: `nodes(ids:)` with `... on Order` (scope read_orders; fields as documented
 * for Admin API 2026-10: Order.customer, Order.fulfillments(first:) — a list —,
 * Fulfillment.fulfillmentLineItems(first:) — a connection —, FulfillmentLineItem.quantity and .lineItem,
 * LineItem.title / .variantTitle / .image, Image.url(transform:) / .altText).
 *
 * Bounds. The API refuses a query whose requested cost is over 1000 before running it (objects cost 1,
 * a connection 2 + first × its node, a list first × its item), so the shape is sized to it:
 * - every order's first `fulfillmentsListed` fulfilment ids (its parcels; a parcel beyond them is not in
 *   the answer), and items for its first `fulfillmentsWithItems` fulfilments (the others: no items);
 * - as many line items per fulfilment as fit the cost for the number of orders in the call, at most
 *   `maxItemsPerFulfillment` (one order: 50; five, the page's most: 8), never fewer than
 *   `minItemsPerFulfillment` (so at most `ordersPerCall` orders a call; more are read in several calls at
 *   once);
 * - images at most `imageSize` px a side (the platform's CDN resizes them); only https URLs are kept.
 *
 * A store that cannot answer (no offline session, scope missing: ACCESS_DENIED, throttled, down), answers
 * in a shape not expected, or takes longer than `waitMs` gives null: no items, never an error, never a slow
 * page. Each failed call logs one info line (shop, kind, how many orders), never a token or the store's text.
 */

export interface ParcelItem {
  name: string;
  variant: string | null;
  quantity: number;
  imageUrl: string | null;
  imageAlt: string | null;
}

export interface OrderDetail {
  /** The store's numeric order id, as webhooks give it and TrackingLine.orderId stores it. */
  orderId: string;
  /** The numeric (legacy) id of the order's customer; null for a guest checkout. */
  customerId: string | null;
  /**
   * Per fulfilment (its numeric id, as TrackingLine.fulfillmentId stores it), the items in it; empty when
   * it holds none the page can show, or its items were not read (beyond the first `fulfillmentsWithItems`).
   */
  fulfillments: Map<string, ParcelItem[]>;
}

export interface OrderDetails {
  /**
   * The details of the orders (numeric ids) the store holds, keyed by order id; an order the store does not
   * hold (or the app may not read: older than 60 days without read_all_orders) is left out, and so is an id
   * that is not numeric. Null when the store could not say for every one of them within `waitMs`.
   */
  read(
    shopDomain: string,
    orderIds: readonly string[],
    options?: ReadOptions,
  ): Promise<Map<string, OrderDetail> | null>;
}

export interface ReadOptions {
  /**
   * Ask whose order it is too (`Order.customer`, protected customer data: the app must be approved for it).
   * Only the order status endpoint asks; the tracking page's items never depend on that approval.
   */
  customer?: boolean;
  /** An answer kept from before this (the shop's last customers/redact) is not used: the store is asked again. */
  notBefore?: Date | null;
}

export interface OrderDetailsDeps {
  admin: StoreAdmin;
  logger: Logger;
  /** How long an answer is kept, in ms (default a minute). */
  cacheMs?: number;
  /** How long a read waits for the store, in ms (default 1.5 s). */
  waitMs?: number;
  now?: () => number;
}

/** The API's single-query cost limit. */
export const maxQueryCost = 1000;
/** Of each order, this many fulfilment ids are read (the page shows at most 50 parcels of an order). */
export const fulfillmentsListed = 50;
/** Of each order, this many fulfilments are read with their items. */
export const fulfillmentsWithItems = 5;
export const maxItemsPerFulfillment = 50;
export const minItemsPerFulfillment = 5;
/** At most this many orders in one call, whatever the cost allows. */
export const maxOrdersPerCall = 20;
/** Largest side of an item's image, in px. */
export const imageSize = 160;
/** Orders kept at once (each holds at most 250 items of bounded text). */
const maxCached = 1_000;

/** The requested cost of one order in the query, with `items` line items per fulfilment. */
export function orderQueryCost(items: number): number {
  // Order 1 + customer 1 + listed fulfilments 1 each + per fulfilment with items: itself 1, the
  // connection 2, per item: the fulfilment line item 1, its line item 1, its image 1.
  return 2 + fulfillmentsListed + fulfillmentsWithItems * (3 + 3 * items);
}

/** Line items per fulfilment for a call of `orders` orders: as many as fit the cost, at most 50. */
export function itemsPerFulfillment(orders: number): number {
  const perOrder = Math.floor(maxQueryCost / Math.max(1, orders));
  const items = Math.floor((perOrder - orderQueryCost(0)) / (3 * fulfillmentsWithItems));
  return Math.min(maxItemsPerFulfillment, items);
}

/** The most orders one call holds with at least `minItemsPerFulfillment` items per fulfilment. */
export const ordersPerCall = (() => {
  let n = 1;
  while (n < maxOrdersPerCall && itemsPerFulfillment(n + 1) >= minItemsPerFulfillment) n++;
  return n;
})();

export const ORDER_DETAILS_QUERY = `query TrackingPageOrderDetails($ids: [ID!]!, $lineItems: Int!, $withCustomer: Boolean!) {
  nodes(ids: $ids) {
    ... on Order {
      id
      customer @include(if: $withCustomer) { id }
      parcels: fulfillments(first: ${fulfillmentsListed}) { id }
      fulfillments(first: ${fulfillmentsWithItems}) {
        id
        fulfillmentLineItems(first: $lineItems) {
          nodes {
            quantity
            lineItem {
              title
              variantTitle
              image { url(transform: { maxWidth: ${imageSize}, maxHeight: ${imageSize} }) altText }
            }
          }
        }
      }
    }
  }
}`;

/** A global id of that type, as its numeric id. */
const numericGid = (type: string) =>
  z
    .string()
    .regex(new RegExp(`^gid://shopify/${type}/\\d{1,20}$`))
    .transform((gid) => gid.slice(gid.lastIndexOf('/') + 1));

const lineItemNode = z.object({
  quantity: z.number().int().nullable(),
  lineItem: z.object({
    title: z.string(),
    variantTitle: z.string().nullable(),
    image: z.object({ url: z.string(), altText: z.string().nullable() }).nullable(),
  }),
});

const orderNode = z.object({
  id: numericGid('Order'),
  customer: z.object({ id: numericGid('Customer') }).nullish(),
  parcels: z.array(z.object({ id: numericGid('Fulfillment') })).max(fulfillmentsListed),
  fulfillments: z
    .array(
      z.object({
        id: numericGid('Fulfillment'),
        fulfillmentLineItems: z.object({ nodes: z.array(lineItemNode).max(maxItemsPerFulfillment) }),
      }),
    )
    .max(fulfillmentsWithItems),
});

const detailsAnswer = z.object({ nodes: z.array(orderNode.nullable()) });

/** A numeric platform id. */
const numericId = /^\d{1,20}$/;

/** Text from the store for the page: one line, trimmed, bounded; empty is null. */
function text(value: string | null, max: number): string | null {
  const cleaned = (value ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return cleaned === '' ? null : cleaned.slice(0, max);
}

/** An image URL the page may show: https only, of a sane length. */
function httpsUrl(value: string): string | null {
  if (value.length > 2048) return null;
  try {
    return new URL(value).protocol === 'https:' ? value : null;
  } catch {
    return null;
  }
}

function parcelItem(node: z.output<typeof lineItemNode>): ParcelItem | null {
  const { quantity, lineItem } = node;
  const name = text(lineItem.title, 200);
  if (!name || quantity === null || quantity < 1) return null;
  const variant = text(lineItem.variantTitle, 200);
  const imageUrl = lineItem.image ? httpsUrl(lineItem.image.url) : null;
  return {
    name,
    // The platform's name for a product's only variant says nothing to a shopper.
    variant: variant === 'Default Title' ? null : variant,
    quantity,
    imageUrl,
    imageAlt: imageUrl ? text(lineItem.image?.altText ?? null, 200) : null,
  };
}

function orderDetailOf(node: z.output<typeof orderNode>): OrderDetail {
  const fulfillments = new Map<string, ParcelItem[]>(node.parcels.map((f) => [f.id, []]));
  for (const f of node.fulfillments) {
    const items = f.fulfillmentLineItems.nodes.flatMap((n) => parcelItem(n) ?? []);
    fulfillments.set(f.id, items);
  }
  return { orderId: node.id, customerId: node.customer?.id ?? null, fulfillments };
}

/** What is kept per shop and order: the order, or null when the store does not hold it. */
interface Kept {
  order: OrderDetail | null;
}

export function createOrderDetails(deps: OrderDetailsDeps): OrderDetails {
  const cache = createBriefCache<Kept>({
    keepMs: deps.cacheMs ?? 60_000,
    waitMs: deps.waitMs ?? 1_500,
    maxEntries: maxCached,
    ...(deps.now ? { now: deps.now } : {}),
  });
  // Answers with and without the customer are kept apart.
  const keyOf = (shopDomain: string, orderId: string, withCustomer: boolean) =>
    `${shopDomain}:${withCustomer ? 'c' : 'i'}:${orderId}`;
  const orderIdOf = (key: string) => key.slice(key.lastIndexOf(':') + 1);

  /** One call for at most `ordersPerCall` orders; null when the store could not say. */
  async function ask(
    shopDomain: string,
    orderIds: string[],
    withCustomer: boolean,
  ): Promise<Map<string, OrderDetail | null> | null> {
    const gids = orderIds.map((id) => `gid://shopify/Order/${id}`);
    const result = await deps.admin.request(shopDomain, ORDER_DETAILS_QUERY, {
      ids: gids,
      lineItems: itemsPerFulfillment(orderIds.length),
      withCustomer,
    });
    if (!result.ok) {
      deps.logger.info(
        { shop: shopDomain, kind: result.kind, orders: orderIds.length },
        "tracking page: the orders' items not read",
      );
      return null;
    }
    const parsed = detailsAnswer.safeParse(result.value);
    // Every node must be the order asked at its place, or null.
    const nodes = parsed.success ? parsed.data.nodes : [];
    if (nodes.length !== orderIds.length || nodes.some((n, i) => n !== null && n.id !== orderIds[i])) {
      deps.logger.info(
        { shop: shopDomain, kind: 'unexpected_answer', orders: orderIds.length },
        "tracking page: the orders' items not read",
      );
      return null;
    }
    return new Map(orderIds.map((id, i) => [id, nodes[i] ? orderDetailOf(nodes[i]) : null]));
  }

  return {
    async read(shopDomain, orderIds, options = {}) {
      const ids = [...new Set(orderIds)].filter((id) => numericId.test(id));
      if (ids.length === 0) return new Map();
      const withCustomer = options.customer === true;
      const answers = await cache.getMany(
        ids.map((id) => keyOf(shopDomain, id, withCustomer)),
        async (keys) => {
          const asked = keys.map(orderIdOf);
          const orders = await ask(shopDomain, asked, withCustomer);
          if (!orders) return null;
          return new Map(
            asked.map((id) => [keyOf(shopDomain, id, withCustomer), { order: orders.get(id) ?? null }]),
          );
        },
        { batchSize: ordersPerCall, notBefore: options.notBefore ?? null },
      );
      if (!answers) return null;
      const details = new Map<string, OrderDetail>();
      for (const [key, kept] of answers) if (kept.order) details.set(orderIdOf(key), kept.order);
      return details;
    },
  };
}
