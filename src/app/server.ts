import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { AppContext } from '../context/app-context.js';
import { describeError, newErrorId } from '../errors/error-log.js';
import type { AdminUiScripts, LookupLimits } from '../config.js';
import { authCallbackPath, authPath, type TracksyncShopify, webhookPath } from '../shopify/api.js';
import { afterAuth } from '../shopify/install.js';
import { createPageApi } from '../ui/api/router.js';
import { requireHostParam } from '../ui/auth/admin-host.js';
import { embeddedPageAuth, exitIframe } from '../ui/auth/embedded-page.js';
import { myshopifyDomain } from '../lib/shop-domain.js';
import { requireSessionToken } from '../ui/auth/session-token.js';
import { metricsWithToken } from './metrics-route.js';
import { pageDocument, pagePaths, standInUrls, withStyleNonce } from '../ui/page-document.js';
import { createLookupLimiter } from '../proxy/lookup-limits.js';
import { createOrderRefresher } from '../proxy/refresh.js';
import { createCustomerOrders } from '../proxy/customer-orders.js';
import { shopifyStoreAdmin } from '../shopify/admin-graphql.js';
import { statusPushRouter } from '../status-pushes/receive.js';
import { statusPushPath } from '../status-pushes/token.js';
import { proxyPath } from '../lib/proxy-paths.js';
import { proxyRoute } from '../proxy/route.js';
import { orderStatusParcelsPath, orderStatusRouter } from '../proxy/order-status.js';
import { createOrderDetails } from '../shopify/order-details.js';
import { webhookRoute } from '../webhooks/route.js';
import { flowLifecyclePath, flowLifecycleRoute } from '../flow/lifecycle-route.js';
import type { Readiness } from './readiness.js';

/** The web side's own parts and settings, beside the context (src/context/app-context.ts). */
export interface WebSettings {
  /** The one Shopify object: OAuth middlewares, and `.api` (HMAC, session tokens, token exchange). */
  shopify: TracksyncShopify;
  readiness: () => Promise<Readiness>;
  onDeliveryRecorded?: () => void;
  /** GET /metrics on this port behind this bearer token (METRICS_TOKEN); without it, no such route. */
  metricsToken?: string | null;
  /** App Bridge and Polaris from the platform's CDN (default), or the offline stand-ins (tests, dev). */
  adminUiScripts?: AdminUiScripts;
  /** The shoppers' tracking page reads an order again when its data is older (default 30 min). */
  trackingPageRefreshMs?: number;
  /** The proxies in front of the app (TRUST_PROXY): a hop count or their addresses (default 1). */
  trustProxy?: number | string[];
  /** The shoppers' page's limits (default: defaultLookupLimits). */
  trackingPageLimits?: Partial<LookupLimits>;
  /** Whether the digest e-mails can be sent (SMTP_URL is set): the Settings page says so. */
  smtpConfigured?: boolean;
}

/**
 * The page: index.html, styles.css and the bundled page (assets/), beside this module's folder:
 * src/ui/public when run from source (`npm run dev` and the tests bundle into it), dist/ui/public when
 * compiled (`npm run build` copies and bundles there).
 */
export const publicDir = fileURLToPath(new URL('../ui/public/', import.meta.url));

/** The document is never stored; the assets keep their names across releases, so they are revalidated
 * (ETag) on every load rather than cached blindly. */
const ASSET_CACHE = 'no-cache';

/**
 * The HTTP side: health and readiness, webhook intake, the install (OAuth and token exchange), the page's
 * JSON API behind session tokens, and the page. Routes stay thin; the work is in use cases.
 */
export function createApp(ctx: AppContext, web: WebSettings): express.Express {
  const { shopify } = web;
  const app = express();
  app.disable('x-powered-by');
  // Only the hops actually in front of the app are believed (src/lib/client-address.ts).
  app.set('trust proxy', web.trustProxy ?? 1);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  if (web.metricsToken) app.get('/metrics', metricsWithToken(web.metricsToken));
  app.get('/readyz', async (_req, res) => {
    const readiness = await web.readiness();
    res
      .status(readiness.ready ? 200 : 503)
      .json(readiness.ready ? { status: 'ready' } : { status: 'not ready', reason: readiness.reason });
  });

  // The raw body, exactly as signed, whatever the content type claims.
  app.post(
    webhookPath,
    express.raw({ type: () => true, limit: '2mb' }),
    webhookRoute(ctx, shopify.api, web.onDeliveryRecorded),
  );

  // Shopify Flow's trigger lifecycle callbacks: signed like webhooks (raw body, the app's secret).
  app.post(
    flowLifecyclePath,
    express.raw({ type: () => true, limit: '64kb' }),
    flowLifecycleRoute(ctx, shopify.api.config.apiSecretKey),
  );

  // The tracking service's status pushes: per-shop URL token plus the shop's API key, not a session.
  app.use(
    statusPushPath,
    statusPushRouter(ctx, web.onDeliveryRecorded ? { onRecorded: web.onDeliveryRecorded } : {}),
  );

  // Nothing under /api is kept by a browser or a proxy: answers name a shop's data and credentials.
  app.use('/api', (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  // Install by OAuth: begin → the store's consent screen → callback (stores the offline session) →
  // the shop row → back into the admin. A `shop` that is not a store's domain, or a `host` that is not the
  // admin's (missing on an embedded start, empty, malformed), is refused up front (400) with the reason,
  // before the library, which would answer 500.
  app.get(authPath, requireShopParam, requireHostParam, shopify.auth.begin());
  app.get(
    authCallbackPath,
    requireShopParam,
    shopify.auth.callback(),
    afterAuth({ prisma: ctx.prisma, logger: ctx.logger }),
    shopify.redirectToShopifyOrAppRoot(),
  );
  app.get(
    shopify.config.exitIframePath,
    exitIframe(shopify, web.adminUiScripts === 'stand-in' ? { appBridgeUrl: standInUrls.appBridge } : {}),
  );

  // The shoppers' tracking page, through the store's app proxy (signed by the platform, not a session).
  // Orders' items and customers, asked of the store and kept a minute: one cache for the page and the extension.
  const admin = shopifyStoreAdmin(shopify);
  const orderDetails = createOrderDetails({ admin, logger: ctx.logger });
  const lookupLimiter = createLookupLimiter({
    prisma: ctx.prisma,
    secret: shopify.api.config.apiSecretKey,
    logger: ctx.logger,
    ...(web.trackingPageLimits ? { limits: web.trackingPageLimits } : {}),
  });
  app.get(
    proxyPath,
    proxyRoute({
      prisma: ctx.prisma,
      carriers: ctx.carriers,
      logger: ctx.logger,
      apiSecret: shopify.api.config.apiSecretKey,
      limiter: lookupLimiter,
      refresher: createOrderRefresher({
        prisma: ctx.prisma,
        shops: ctx.shops,
        client: ctx.client,
        logger: ctx.logger,
        staleAfterMs: web.trackingPageRefreshMs ?? 30 * 60_000,
        allowCall: (shopId) => lookupLimiter.takeServiceCall(shopId),
      }),
      customerOrders: createCustomerOrders({ admin, logger: ctx.logger }),
      orderItems: orderDetails,
    }),
  );

  // The order status extension's parcels (extensions/order-status-tracking): its session token names the
  // shop and the customer; the store says whose order it is (src/proxy/order-status.ts).
  app.use(
    orderStatusParcelsPath,
    orderStatusRouter({
      prisma: ctx.prisma,
      carriers: ctx.carriers,
      logger: ctx.logger,
      apiKey: shopify.api.config.apiKey,
      apiSecret: shopify.api.config.apiSecretKey,
      orderDetails,
    }),
  );

  // The page's JSON API: a session token names the shop, and only that shop.
  app.use(
    '/api',
    requireSessionToken(shopify, { logger: ctx.logger }),
    createPageApi(ctx, {
      appUrl: `${shopify.api.config.hostScheme}://${shopify.api.config.hostName}`,
      smtpConfigured: web.smtpConfigured ?? false,
    }),
  );

  // The page: the install check (token exchange or OAuth) first, then the document, never cached.
  const document = pageDocument({
    publicDir,
    apiKey: shopify.api.config.apiKey,
    scripts: web.adminUiScripts ?? 'cdn',
  });
  app.get([...pagePaths, '/index.html'], embeddedPageAuth(ctx, shopify), (_req, res) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type('html').send(withStyleNonce(document, res.locals.styleNonce));
  });
  app.use(
    express.static(publicDir, {
      index: false,
      redirect: false,
      setHeaders: (res) => {
        res.setHeader('Cache-Control', ASSET_CACHE);
        res.setHeader('X-Content-Type-Options', 'nosniff');
      },
    }),
  );

  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found' });
  });
  // One short line per failure (name, code, the message's first line: never a stack, a source path or
  // an ORM's arguments) with an error id the 500 answer carries too, so a report leads to the line.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = httpErrorStatus(error);
    if (status < 500) {
      if (!res.headersSent) res.status(status).json({ error: 'bad_request' });
      return;
    }
    const errorId = newErrorId();
    ctx.logger.error(
      { errorId, method: req.method, path: req.path.slice(0, 200), error: describeError(error) },
      'request failed',
    );
    if (res.headersSent) return;
    res.status(500).json({ error: 'internal_error', errorId });
  });
  return app;
}

/** 400 with a clear reason unless `?shop=` is one *.myshopify.com domain. */
const requireShopParam: RequestHandler = (req, res, next) => {
  const shop = typeof req.query.shop === 'string' ? myshopifyDomain(req.query.shop) : null;
  if (!shop) {
    res
      .status(400)
      .json({ error: 'bad_request', reason: 'shop must be a store domain such as example.myshopify.com' });
    return;
  }
  next();
};

/** body-parser's errors carry a 4xx status (413 too large, 400 bad encoding); anything else is ours. */
function httpErrorStatus(error: unknown): number {
  const status =
    (error as { status?: unknown; statusCode?: unknown })?.status ??
    (error as { statusCode?: unknown })?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : 500;
}
