import type { AppContext } from '../context/app-context.js';
import type { Notifiers } from '../notifications/notify-work.js';
import type { StoreEventsApi } from '../shipments/post-store-events.js';
import type { StoreLinksApi } from '../shipments/tracking-links.js';
import type { TracksyncShopify } from '../shopify/api.js';
import { shopifyStoreAdmin } from '../shopify/admin-graphql.js';
import { type FulfillmentConfirmer, storeFulfillmentConfirmer } from '../shopify/confirm-fulfillments.js';
import { type FlowTriggerApi, shopifyFlowTriggers } from '../shopify/flow-trigger-receive.js';
import { shopifyStoreEvents } from '../shopify/fulfillment-events.js';
import { type ShopProfileApi, shopifyShopProfile } from '../shopify/shop-profile.js';
import { shopifyStoreLinks } from '../shopify/tracking-info.js';
import { type FetchOrdersPage, shopifyOrdersFetcher } from './backfill.js';

/**
 * The store's side, as the worker's ports. Only the confirmer is required; without one of the others, the
 * work it does (backfills, fulfilment events, tracking links, shop profiles, Flow triggers) waits in its
 * queue for a worker that has it.
 */
export interface StoreApis {
  /** Asks a store which fulfilments it holds, before a first-seen fulfilment is applied. */
  confirmFulfillments: FulfillmentConfirmer;
  /** Reads a store's orders for backfills. */
  fetchOrdersPage?: FetchOrdersPage;
  /** Writes fulfilment events to the stores. */
  storeEvents?: StoreEventsApi;
  /** Sets fulfilments' tracking links in the stores (the tracking-page setting). */
  storeLinks?: StoreLinksApi;
  /** Reads the stores' time zone and contact e-mail (after install, then weekly). */
  shopProfiles?: ShopProfileApi;
  /** Fires the shops' Flow triggers (flowTriggerReceive). */
  flowTriggers?: FlowTriggerApi;
}

/** Every store port over the platform's Admin API, on one admin client. */
export function shopifyStoreApis(shopify: TracksyncShopify): Required<StoreApis> {
  const admin = shopifyStoreAdmin(shopify);
  return {
    confirmFulfillments: storeFulfillmentConfirmer(admin),
    fetchOrdersPage: shopifyOrdersFetcher(shopify),
    storeEvents: shopifyStoreEvents(admin),
    storeLinks: shopifyStoreLinks(admin),
    shopProfiles: shopifyShopProfile(admin),
    flowTriggers: shopifyFlowTriggers(admin),
  };
}

/**
 * What the worker works with, built once at the composition root (src/app/runtime.ts): the app's context,
 * who this process is (in lease tokens), the store's ports and the merchant's channels. The worker makes
 * each queue consumer's work from it once, when it is created, not per pass.
 */
export interface WorkContext extends AppContext {
  /** Identifies this process in leases. */
  owner: string;
  store: StoreApis;
  /** The daily digests and instant Slack posts (src/notifications); without them, none are sent. */
  notifiers?: Notifiers;
}
