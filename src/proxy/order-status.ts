import type { RequestHandler, Router } from 'express';
import express from 'express';
import { z } from 'zod';
import type { CarrierRepository } from '../carriers/carrier-repository.js';
import type { DatabaseClient } from '../db/client.js';
import { storableString } from '../db/storable-text.js';
import { storeProxyPath } from '../lib/proxy-paths.js';
import { shopperLocaleOf } from '../lib/shopper-locales.js';
import type { Logger } from '../logger.js';
import type { OrderDetails } from '../shopify/order-details.js';
import { linesOfFulfillment, shopByDomain } from '../shipments/queries/shopper-lookups.js';
import type { ProgressStep, Trouble } from '../shipments/shopper-progress.js';
import {
  bearerTokenOf,
  type CustomerTokenFailure,
  verifyCustomerAccountToken,
} from './customer-account-token.js';
import { parcelOf } from './lookup.js';
import { viewLinkUrl, viewToken } from './view-link.js';

/**
 * `GET /customer-account/parcels?fulfillment=gid://shopify/Fulfillment/<id>&locale=<lang>`: the parcels of
 * one fulfilment for the order status extension (extensions/order-status-tracking), which renders after
 * each fulfilment's details on the customer's order status page.
 *
 * The caller is a customer account UI extension running in the platform's web worker: it sends its session
 * token (`Authorization: Bearer`, src/proxy/customer-account-token.ts) and nothing else; the answer is
 * readable cross-origin (the worker's origin is the platform's, and not promised to stay the same: `*`,
 * no credentials, only GET and the Authorization header, as the platform's own app library answers these
 * requests). The token names the shop and the customer; the shop must be one that installed the app; the
 * fulfilment's order (from the app's own lines) must be that customer's, as the store says (Admin GraphQL,
 * src/shopify/order-details.ts, asked for that one order). Another customer's fulfilment, one the app does
 * not know, and a store that cannot say are the same 404, so nothing tells them apart.
 *
 * What it answers comes from stored data only (no call to the tracking service: the page is opened far
 * more often than a parcel moves), by the shoppers' page's own rules (src/proxy/lookup.ts `parcelOf`:
 * step, trouble, estimate, delivery, events), with a signed link to the parcel's view on that page.
 */

export const orderStatusParcelsPath = '/customer-account/parcels';

/** At most this many parcels of one fulfilment are answered (a fulfilment has one or a few). */
export const fulfillmentParcelsShown = 20;

/** One parcel as the extension shows it (extensions/order-status-tracking/src/view.ts reads this). */
export interface OrderStatusParcel {
  trackingNumber: string;
  carrier: string | null;
  step: ProgressStep;
  /** The step's place, 0 (ordered) to 4 (delivered). */
  stepIndex: number;
  trouble: Trouble | null;
  /** The service's estimate, else a predicted one; none once delivered or not followed. */
  estimate: { date: string; predicted: boolean } | null;
  /** ISO time of delivery, once delivered. */
  deliveredAt: string | null;
  latestEvent: { at: string | null; message: string; location: string | null } | null;
  /** The parcel's view on the store's tracking page, signed (no e-mail asked), in the shopper's language. */
  pageUrl: string;
}

export interface OrderStatusAnswer {
  parcels: OrderStatusParcel[];
}

export interface OrderStatusDeps {
  prisma: DatabaseClient;
  carriers: CarrierRepository;
  logger: Logger;
  /** The app's client id (the tokens' audience) and secret (their signature, and the page's links). */
  apiKey: string;
  apiSecret: string;
  /** The store's side: whose order it is, and its fulfilments (src/shopify/order-details.ts). */
  orderDetails: Pick<OrderDetails, 'read'>;
  now?: () => number;
}

/** Every reason a request gets no parcels. */
export type OrderStatusRefusal =
  | CustomerTokenFailure
  | 'unknown_shop'
  | 'uninstalled_shop'
  | 'bad_request'
  | 'unknown_fulfillment'
  | 'other_customer'
  | 'store_unavailable';

export type OrderStatusResult =
  { ok: true; answer: OrderStatusAnswer } | { ok: false; reason: OrderStatusRefusal };

/** The one place a refusal becomes an HTTP status. */
export const refusalStatus: Readonly<Record<OrderStatusRefusal, 400 | 401 | 403 | 404>> = {
  // Not a token the platform made for this app, or no longer valid: ask for a fresh one.
  missing_token: 401,
  malformed: 401,
  unsupported_algorithm: 401,
  bad_signature: 401,
  expired: 401,
  not_yet_valid: 401,
  too_long_lived: 401,
  wrong_audience: 401,
  bad_shop: 401,
  // A genuine token that may not read anything here: no customer logged in, or a store without the app.
  no_customer: 403,
  unknown_shop: 403,
  uninstalled_shop: 403,
  bad_request: 400,
  // One answer for all three, so a customer learns nothing of others' orders.
  unknown_fulfillment: 404,
  other_customer: 404,
  store_unavailable: 404,
};

const query = z.object({
  fulfillment: storableString().regex(/^gid:\/\/shopify\/Fulfillment\/\d{1,20}$/),
  locale: storableString().max(35).optional(),
});

/** The use case: a verified request's parcels, or why there are none. */
export async function readOrderStatusParcels(
  deps: OrderStatusDeps,
  request: { authorization: string | undefined; query: unknown },
): Promise<OrderStatusResult> {
  const now = (deps.now ?? Date.now)();
  const refuse = (reason: OrderStatusRefusal) => ({ ok: false, reason }) as const;
  const token = verifyCustomerAccountToken(
    { apiKey: deps.apiKey, apiSecret: deps.apiSecret },
    bearerTokenOf(request.authorization),
    now,
  );
  if (!token.ok) return refuse(token.reason);
  const shop = await shopByDomain(deps.prisma, token.shopDomain);
  if (!shop) return refuse('unknown_shop');
  if (shop.uninstalledAt) return refuse('uninstalled_shop');
  const asked = query.safeParse(request.query);
  if (!asked.success) return refuse('bad_request');
  const fulfillmentId = asked.data.fulfillment.slice(asked.data.fulfillment.lastIndexOf('/') + 1);
  const lines = await linesOfFulfillment(deps.prisma, shop.id, fulfillmentId, fulfillmentParcelsShown);
  const orderId = lines[0]?.orderId;
  if (!orderId) return refuse('unknown_fulfillment');
  const orders = await deps.orderDetails.read(shop.domain, [orderId], {
    customer: true,
    notBefore: shop.customersRedactedAt,
  });
  if (!orders) return refuse('store_unavailable');
  const order = orders.get(orderId);
  if (!order) return refuse('unknown_fulfillment');
  if (order.customerId === null || order.customerId !== token.customerId) return refuse('other_customer');
  // The store's own order must hold the fulfilment (its first 50 are listed: one beyond is not answered).
  if (!order.fulfillments.has(fulfillmentId) && !order.fulfillments.has(asked.data.fulfillment))
    return refuse('unknown_fulfillment');

  const providers = lines.flatMap((l) => (l.tracker?.desired === 'active' ? [l.tracker.provider] : []));
  const labels = await deps.carriers.labelsOf(providers);
  const locale = asked.data.locale ? shopperLocaleOf(asked.data.locale) : null;
  const base = `https://${shop.domain}${storeProxyPath}`;
  const parcels = lines.map((line): OrderStatusParcel => {
    const parcel = parcelOf(line, labels);
    const latest = parcel.events[0] ?? null;
    return {
      trackingNumber: parcel.trackingNumber,
      carrier: parcel.carrier,
      step: parcel.progress.step,
      stepIndex: parcel.progress.index,
      trouble: parcel.progress.trouble,
      estimate: parcel.estimate,
      deliveredAt: parcel.deliveredAt,
      latestEvent: latest ? { at: latest.at, message: latest.message, location: latest.location } : null,
      pageUrl: viewLinkUrl(
        base,
        viewToken(deps.apiSecret, shop.id, { kind: 'parcel', trackingNumber: parcel.trackingNumber }, now),
        locale,
      ),
    };
  });
  return { ok: true, answer: { parcels } };
}

/** What a cross-origin caller may send: GET, with its Authorization header; nothing else. */
function allowCrossOrigin(res: Parameters<RequestHandler>[1]): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'GET');
  res.setHeader('Access-Control-Allow-Headers', 'Authorization');
}

/** The route: the preflight, and the GET through the use case. Mounted at orderStatusParcelsPath. */
export function orderStatusRouter(deps: OrderStatusDeps): Router {
  const router = express.Router();
  router.options('/', (_req, res) => {
    allowCrossOrigin(res);
    res.setHeader('Access-Control-Max-Age', '600');
    res.setHeader('Cache-Control', 'no-store');
    res.status(204).end();
  });
  router.get('/', async (req, res) => {
    allowCrossOrigin(res);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const result = await readOrderStatusParcels(deps, {
      authorization: req.get('authorization'),
      query: req.query,
    });
    if (result.ok) {
      res.json(result.answer);
      return;
    }
    const status = refusalStatus[result.reason];
    // One line per refusal: the reason, never the token or the customer.
    deps.logger.info({ reason: result.reason, status }, 'order status parcels refused');
    if (status === 404) {
      res.status(404).json({ error: 'not_found' });
      return;
    }
    res.status(status).json({
      error: status === 400 ? 'bad_request' : status === 401 ? 'unauthorized' : 'forbidden',
      reason: result.reason,
    });
  });
  return router;
}
