import type { AppContext } from '../../context/app-context.js';
import { randomBytes } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { authPath, type TracksyncShopify } from '../../shopify/api.js';
import { type OfflineTokenExchange, offlineTokenExchange, recordInstall } from '../../shopify/install.js';
import { myshopifyDomain } from '../../lib/shop-domain.js';
import { verifySessionToken } from './session-token.js';
import { safeReason } from '../../errors/safe-reason.js';

/** App Bridge, from Shopify's CDN (it must be loaded from there). */
export const APP_BRIDGE_URL = 'https://cdn.shopify.com/shopifycloud/app-bridge.js';

/** A session whose token expires within this is treated as gone (as the library does). */
const WITHIN_MS_OF_EXPIRY = 5 * 60_000;

/** Polaris web components, from Shopify's CDN (the page's next version loads them). */
export const POLARIS_URL = 'https://cdn.shopify.com/shopifycloud/polaris.js';

/**
 * What the page may load: its own files, and App Bridge and Polaris from the platform's CDN; API calls to
 * itself (App Bridge's own traffic goes to the admin through the parent frame). No inline script, no
 * plugin, no base or form elsewhere. Inline <style> only with the page load's nonce: the Tracking page's
 * preview frames (srcdoc, which inherit this policy) show the shoppers' page with its own styles, and
 * the page gives the nonce to those <style> elements only (src/ui/page/pages/tracking-page.ts).
 */
function pageSources(styleNonce: string | null): string {
  return [
    "default-src 'self'",
    "script-src 'self' https://cdn.shopify.com",
    `style-src 'self' https://cdn.shopify.com${styleNonce ? ` 'nonce-${styleNonce}'` : ''}`,
    "font-src 'self' https://cdn.shopify.com",
    "img-src 'self' data: https://cdn.shopify.com",
    "connect-src 'self' https://cdn.shopify.com",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join('; ');
}

/** A new nonce for one page load's style-src (128 random bits). */
export function newStyleNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * The embedded page may be framed by its own store's admin and by admin.shopify.com, nothing else.
 * Without a valid shop it may be framed by no one.
 */
export function frameAncestorsPolicy(shop: string | null, styleNonce: string | null = null): string {
  const ancestors = shop
    ? `frame-ancestors https://${shop} https://admin.shopify.com`
    : `frame-ancestors 'none'`;
  return `${pageSources(styleNonce)}; ${ancestors};`;
}

export function setFrameAncestors(
  res: Response,
  shop: string | null,
  styleNonce: string | null = null,
): void {
  res.setHeader('Content-Security-Policy', frameAncestorsPolicy(shop, styleNonce));
}

/**
 * In front of the page (GET /): makes sure the store has an offline token before the page loads.
 *
 * - `shop` must be a *.myshopify.com domain (400 otherwise); the page's CSP frame-ancestors names it.
 * - With `id_token` (the admin loads embedded apps so): the token is verified and must be for that shop.
 *   When storage holds no usable offline session for the shop, the token is exchanged for one, which is
 *   stored, and the install recorded (the shop row). A stale or invalid token with no session to fall
 *   back on gets App Bridge's bounce page (it fetches a fresh token).
 * - Without `id_token` and with no session: off to the OAuth flow, `/api/auth?shop=…` (host and
 *   embedded passed along, so an embedded load leaves the iframe first).
 */
/** `exchange` defaults to shopify.api.auth.tokenExchange for an offline token (expiring, with a refresh token). */
export function embeddedPageAuth(
  ctx: Pick<AppContext, 'prisma' | 'logger'>,
  shopify: TracksyncShopify,
  exchange: OfflineTokenExchange = offlineTokenExchange(shopify),
): RequestHandler {
  const { logger } = ctx;
  const storage = shopify.config.sessionStorage;

  return async (req, res, next) => {
    const shop = myshopifyDomain(req.query.shop);
    // The document served after this check writes the same nonce into it (res.locals.styleNonce).
    const styleNonce = newStyleNonce();
    res.locals.styleNonce = styleNonce;
    setFrameAncestors(res, shop, styleNonce);
    res.setHeader('Cache-Control', 'no-store');
    if (!shop) {
      res
        .status(400)
        .type('text/plain')
        .send(
          'Open Tracksync from your store admin: the shop parameter is missing or not a *.myshopify.com domain.',
        );
      return;
    }
    const session = await storage.loadSession(shopify.api.session.getOfflineId(shop));
    const hasUsableSession = session?.isActive(undefined, WITHIN_MS_OF_EXPIRY) ?? false;
    const idToken = typeof req.query.id_token === 'string' ? req.query.id_token : undefined;

    if (idToken === undefined) {
      if (session) return next();
      const params = new URLSearchParams({ shop });
      if (typeof req.query.host === 'string') params.set('host', req.query.host);
      if (req.query.embedded === '1') params.set('embedded', '1');
      res.redirect(302, `${authPath}?${params.toString()}`);
      return;
    }

    const verification = await verifySessionToken(shopify, idToken);
    if (verification.ok && verification.shopDomain !== shop) {
      logger.info(
        { shop, tokenShop: verification.shopDomain },
        'page load: session token is for another shop',
      );
      res.status(400).type('text/plain').send('The session token is for another store.');
      return;
    }
    if (!verification.ok) {
      logger.info({ shop, reason: verification.reason }, 'page load: session token refused');
      if (session) return next();
      renderAppBridgeBounce(res, shopify.api.config.apiKey);
      return;
    }
    if (hasUsableSession) return next();

    try {
      const fresh = await exchange({ shop, sessionToken: idToken });
      await storage.storeSession(fresh);
    } catch (error) {
      if (isRefusedSessionToken(error)) {
        logger.info({ shop }, 'token exchange refused the session token');
        renderAppBridgeBounce(res, shopify.api.config.apiKey);
        return;
      }
      logger.error({ shop, err: safeReason(error) }, 'token exchange failed');
      res.status(502).type('text/plain').send('The store did not grant the app access; reload to try again.');
      return;
    }
    await recordInstall(ctx.prisma, shop);
    logger.info({ shop }, 'app installed (token exchange)');
    next();
  };
}

/**
 * The token endpoint (400 invalid_subject_token) or the library (InvalidJwtError) refused the session
 * token. Recognised by shape, not instanceof: @shopify/shopify-app-express loads the CommonJS build of
 * @shopify/shopify-api, whose error classes are not the ones an ES import gets.
 */
function isRefusedSessionToken(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.constructor.name === 'InvalidJwtError') return true;
  const response = (error as { response?: { code?: unknown; body?: { error?: unknown } } }).response;
  return response?.code === 400 && response.body?.error === 'invalid_subject_token';
}

/** Text safe inside HTML and its attributes. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/** App Bridge alone: in the admin it fetches a fresh session token and reloads the page with it. */
export function renderAppBridgeBounce(res: Response, apiKey: string): void {
  res
    .status(200)
    .type('text/html')
    .send(
      `<!doctype html><meta name="shopify-api-key" content="${escapeHtml(apiKey)}">` +
        `<script data-api-key="${escapeHtml(apiKey)}" src="${APP_BRIDGE_URL}"></script>`,
    );
}

/** GET /exitiframe's redirect, a file of the page's bundle (src/ui/page/exit-iframe.ts). */
export const EXIT_IFRAME_SCRIPT = '/assets/exit-iframe.js';

/**
 * GET /exitiframe: where the library sends an embedded request that needs OAuth (redirectToAuth with
 * embedded=1). OAuth cannot run inside the admin's iframe, so the URL is opened at the top: App Bridge
 * first (in the admin it carries `window.open(url, '_top')` out of the frame), then the app's own script
 * (EXIT_IFRAME_SCRIPT), which opens the URL it is given in `data-target`. The page's CSP allows no inline
 * script, so nothing here is inline; a link does the same by hand should no script run. Only our own
 * /api/auth URL is followed (no open redirect).
 */
export function exitIframe(
  shopify: TracksyncShopify,
  options: { appBridgeUrl?: string } = {},
): RequestHandler {
  const appBridgeUrl = escapeHtml(options.appBridgeUrl ?? APP_BRIDGE_URL);
  return (req, res) => {
    const shop = myshopifyDomain(req.query.shop);
    setFrameAncestors(res, shop);
    const target = typeof req.query.redirectUri === 'string' ? req.query.redirectUri : '';
    const ownAuth = `${shopify.api.config.hostScheme}://${shopify.api.config.hostName}${authPath}?`;
    if (!shop || !target.startsWith(ownAuth)) {
      res.status(400).type('text/plain').send('Invalid redirect.');
      return;
    }
    const apiKey = escapeHtml(shopify.api.config.apiKey);
    const href = escapeHtml(target);
    res
      .status(200)
      .set('Cache-Control', 'no-store')
      .set('X-Content-Type-Options', 'nosniff')
      .type('text/html')
      .send(
        `<!doctype html><html lang="en"><meta charset="utf-8"><title>Tracksync</title>` +
          `<meta name="shopify-api-key" content="${apiKey}">` +
          `<script data-api-key="${apiKey}" src="${appBridgeUrl}"></script>` +
          `<script src="${EXIT_IFRAME_SCRIPT}" data-target="${href}"></script>` +
          `<p><a href="${href}" target="_top">Continue to Tracksync</a></p>`,
      );
  };
}
