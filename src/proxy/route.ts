import type { RequestHandler, Response } from 'express';
import { clientAddress } from '../lib/client-address.js';
import type { CarrierRepository } from '../carriers/carrier-repository.js';
import type { DatabaseClient } from '../db/client.js';
import { isStorableText, truncateText } from '../db/storable-text.js';
import type { Logger } from '../logger.js';
import { countTrackingPageLookup, shopByDomain } from '../shipments/queries/shopper-lookups.js';
import type { CustomerOrders } from './customer-orders.js';
import {
  findCustomerOrderParcels,
  findOrderParcels,
  findOrderParcelsById,
  findParcelByNumber,
  lookupNumberMaxLength,
  type ShopperItem,
  type ShopperParcel,
} from './lookup.js';
import { proxyLocale, proxyMessages } from './messages.js';
import { type ProxyPage, proxyPagePolicy, renderProxyPage } from './render.js';
import { readTrackingPageSettings } from '../shops/tracking-page-settings.js';
import { checkViewToken, madeBefore, viewLinkExpiry, viewToken, type ViewTarget } from './view-link.js';
import type { LookupLimiter, Visitor } from './lookup-limits.js';
import { trackingPageLookups } from '../observability/metrics.js';
import type { OrderRefresher } from './refresh.js';
import { storeProxyPath } from '../lib/proxy-paths.js';
import { verifyProxyRequest } from './signature.js';

export interface ProxyDeps {
  prisma: DatabaseClient;
  carriers: CarrierRepository;
  logger: Logger;
  /** Reads an order again when its stored data is stale (one by-order-id call); none: stored data only. */
  refresher?: OrderRefresher;
  /** A logged-in customer's recent orders, asked of the store; none: such customers see the form only. */
  customerOrders?: CustomerOrders;
  /** The items of orders' fulfilments, asked of the store (src/shopify/order-details.ts); none: no items. */
  orderItems?: OrderItemsSource;
  /** Failed lookups per visitor and per shop, shared by every process (src/proxy/lookup-limits.ts). */
  limiter: LookupLimiter;
  /** The app's secret, which the platform signs proxy requests with. */
  apiSecret: string;
  now?: () => number;
}

/** What the page needs of the store's orders: each fulfilment's items (never stored). */
export interface OrderItemsSource {
  read(
    shopDomain: string,
    orderIds: readonly string[],
  ): Promise<ReadonlyMap<string, { fulfillments: ReadonlyMap<string, ShopperItem[]> }> | null>;
}

/** At most this many orders' items are asked of the store for one page. */
const ordersWithItems = 5;

/**
 * GET /proxy: the shopper's tracking page, reached through the store's app proxy. Every request is
 * verified (signature, time) before anything is read; a shop the app does not know, or one that
 * uninstalled it, gets 404. A lookup is counted for the merchant; one that finds nothing is counted
 * against the visitor (src/proxy/lookup-limits.ts), whose own failures may hold it back (429).
 */
export function proxyRoute(deps: ProxyDeps): RequestHandler {
  return async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const search = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
    const verified = verifyProxyRequest(deps.apiSecret, search, (deps.now ?? Date.now)());
    if (!verified.ok) {
      deps.logger.info({ reason: verified.reason }, 'app proxy request refused');
      res
        .status(verified.reason === 'bad_shop' ? 400 : 401)
        .type('text/plain')
        .send('Not allowed.');
      return;
    }
    const shop = await shopByDomain(deps.prisma, verified.shop);
    if (!shop || shop.uninstalledAt) {
      res.status(404).type('text/plain').send('Not found.');
      return;
    }
    const first = (name: string) => verified.params.get(name)?.[0] ?? null;
    const now = (deps.now ?? Date.now)();
    const locale = proxyLocale(first('locale'), req.get('accept-language') ?? null);
    const tracking = truncateText((first('tracking') ?? '').trim(), lookupNumberMaxLength);
    const prefix = first('path_prefix');
    const page: ProxyPage = {
      action: prefix && prefix.startsWith('/') ? prefix : storeProxyPath,
      locale,
      messages: proxyMessages(locale),
      tracking,
      order: truncateText((first('order') ?? '').trim(), 50),
      html: first('format') === 'html',
      localeParam: first('locale') ? locale : null,
      settings: await readTrackingPageSettings(deps.prisma, shop.id),
      contactEmail: shop.contactEmail,
      timeZone: shop.timezone,
      result: { kind: 'none' },
    };
    // A value the database cannot take (a NUL) is refused as a page naming the field: nothing is counted
    // or looked up, and the value is not written back into the form.
    const refused = unstorableParameter(verified.params);
    if (refused !== null) {
      const action = isStorableText(page.action) ? page.action : storeProxyPath;
      const result = { kind: 'refused', field: refused } as const;
      sendPage(res, { ...page, action, tracking: '', order: '', result }, 400);
      return;
    }
    // Counted for the merchant's Overview (a lookup answered, found or not; a customer's orders shown).
    const countLookup = () => countTrackingPageLookup(deps.prisma, shop.id);
    const email = first('email');
    // A share link (src/proxy/view-link.ts) stands for the lookup it was made from, e-mail included.
    const view = page.order === '' && email === null && tracking === '' ? first('view') : null;
    const looksUp = page.order !== '' || email !== null || tracking !== '' || view !== null;
    let visitor: Visitor | null = null;
    if (looksUp) {
      // The shopper's address as the platform's proxy appended it, behind the hops TRUST_PROXY names.
      const gate = await deps.limiter.check(shop.id, clientAddress(req, { viaPlatformProxy: true }));
      if (!gate.ok) {
        trackingPageLookups.inc({ outcome: 'held_back' });
        res.setHeader('Retry-After', String(gate.retryAfterS));
        res.status(429).type('text/plain').send('Too many lookups. Please try again in a moment.');
        return;
      }
      visitor = gate.visitor;
      await countLookup();
    }
    // Stored data first; a stale order with a parcel under way is read again (one call, shared,
    // time-bounded), then looked up again only when that read was stored in time.
    const fresh = async <T extends { orderKeys: string[] }>(look: () => Promise<T | null>) => {
      const found = await look();
      if (!found || !deps.refresher || found.orderKeys.length === 0) return found;
      const stored = await Promise.all(found.orderKeys.map((key) => deps.refresher!.refresh(shop, key)));
      return stored.includes(true) ? look() : found;
    };
    if (!looksUp && verified.loggedInCustomerId && deps.customerOrders) {
      // Signed by the platform, so the id is the shopper's own; their orders are named by the store.
      // Not from before the shop's last customers/redact (another process may have kept an answer).
      const recent = await deps.customerOrders.recent(
        shop.domain,
        verified.loggedInCustomerId,
        shop.customersRedactedAt,
      );
      if (recent && recent.length > 0) {
        const found = await fresh(async () => findCustomerOrderParcels(deps, shop.id, recent));
        page.result = { kind: 'customer', orders: found!.orders };
        await countLookup();
      }
    } else if (view !== null) {
      const checked = checkViewToken(deps.apiSecret, shop.id, view, now);
      // A link made before the shop cut its links off (an uninstall) or before a redact of its order opens
      // nothing; one that opens shares itself again, never a new one: no link outlives the first.
      const open = checked.ok && !madeBefore(checked.issuedAt, shop.viewLinksValidFrom) ? checked : null;
      const live = (found: { redactedAt: Date | null } | null) =>
        found !== null && open !== null && !madeBefore(open.issuedAt, found.redactedAt);
      if (open === null) page.result = { kind: 'expired' };
      else if (open.target.kind === 'parcel') {
        const number = open.target.trackingNumber;
        const found = await fresh(() => findParcelByNumber(deps, shop.id, number));
        page.result = live(found) ? { kind: 'parcel', parcel: found!.parcel } : { kind: 'expired' };
      } else {
        const orderId = open.target.orderId;
        const found = await fresh(() => findOrderParcelsById(deps, shop.id, orderId));
        page.result = live(found)
          ? { kind: 'order', orderName: found!.orderName, parcels: found!.parcels }
          : { kind: 'expired' };
      }
      if (open !== null && page.result.kind !== 'expired') page.share = sameLink(view, open.expiresAt, page);
    } else if (page.order !== '' || email !== null) {
      const found = await fresh(() => findOrderParcels(deps, shop.id, page.order, email ?? ''));
      page.result = found
        ? { kind: 'order', orderName: found.orderName, parcels: found.parcels }
        : { kind: 'not_found' };
      if (found)
        page.share = shareLink(deps.apiSecret, shop.id, { kind: 'order', orderId: found.orderId }, page, now);
    } else if (tracking !== '') {
      const found = await fresh(() => findParcelByNumber(deps, shop.id, tracking));
      page.result = found ? { kind: 'parcel', parcel: found.parcel } : { kind: 'not_found' };
    }
    if (page.result.kind === 'parcel' && view === null)
      page.share = shareLink(
        deps.apiSecret,
        shop.id,
        { kind: 'parcel', trackingNumber: page.result.parcel.trackingNumber },
        page,
        now,
      );
    if (page.settings!.show.items && deps.orderItems) await addItems(deps.orderItems, shop.domain, page);
    if (visitor) {
      const found = page.result.kind !== 'not_found' && page.result.kind !== 'expired';
      trackingPageLookups.inc({ outcome: found ? 'found' : 'not_found' });
      if (!found) await deps.limiter.failed(visitor);
    }
    sendPage(res, page, 200);
  };
}

/** The answer's new share link, on the page's own path, in its language and mode. */
function shareLink(apiSecret: string, shopId: string, target: ViewTarget, page: ProxyPage, now: number) {
  return sameLink(viewToken(apiSecret, shopId, target, now), viewLinkExpiry(now), page);
}

/** A share link of this `view` token (the one the page was opened with, or a new one) and its expiry. */
function sameLink(token: string, expiresAt: Date, page: ProxyPage) {
  const params = new URLSearchParams({ view: token });
  if (page.localeParam) params.set('locale', page.localeParam);
  if (page.html) params.set('format', 'html');
  return { href: `${page.action}?${params.toString()}`, validUntil: expiresAt.toISOString() };
}

/** The parcels the page shows, whatever the answer. */
function parcelsOf(result: ProxyPage['result']): ShopperParcel[] {
  if (result.kind === 'parcel') return [result.parcel];
  if (result.kind === 'order') return result.parcels;
  if (result.kind === 'customer') return result.orders.flatMap((o) => o.parcels);
  return [];
}

/**
 * Each parcel's items from its store order (one call for the page's orders, kept briefly, waited for a
 * short while): a store that cannot say, or a shop without the scope, leaves the parcels without items.
 */
async function addItems(source: OrderItemsSource, shopDomain: string, page: ProxyPage): Promise<void> {
  const parcels = parcelsOf(page.result);
  const orderIds = [...new Set(parcels.map((p) => p.orderId))].slice(0, ordersWithItems);
  if (orderIds.length === 0) return;
  const details = await source.read(shopDomain, orderIds).catch(() => null);
  if (!details) return;
  for (const parcel of parcels)
    parcel.items = details.get(parcel.orderId)?.fulfillments.get(parcel.fulfillmentId) ?? null;
}

function sendPage(res: Response, page: ProxyPage, status: number): void {
  // The whole document loads only the items' pictures and runs only its copy button's script.
  if (page.html) res.setHeader('Content-Security-Policy', proxyPagePolicy);
  res
    .status(status)
    .type(page.html ? 'text/html; charset=utf-8' : 'application/liquid; charset=utf-8')
    .send(renderProxyPage(page));
}

/** Parameters the page reads, named when refused; any other is only "parameter" (no text of the URL's). */
const namedParameters = new Set([
  'view',
  'tracking',
  'order',
  'email',
  'locale',
  'format',
  'path_prefix',
  'logged_in_customer_id',
]);

/** The first parameter with a name or value the database cannot take (see storableString), else null. */
function unstorableParameter(params: Map<string, string[]>): string | null {
  for (const [name, values] of params) {
    if (isStorableText(name) && values.every(isStorableText)) continue;
    return namedParameters.has(name) ? name : 'parameter';
  }
  return null;
}
