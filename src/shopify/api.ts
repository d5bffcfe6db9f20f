import '@shopify/shopify-api/adapters/node';
import { ApiVersion, LogSeverity, type Shopify } from '@shopify/shopify-api';
import { type ShopifyApp, shopifyApp } from '@shopify/shopify-app-express';
import type { SessionStorage } from '@shopify/shopify-app-session-storage';
import type { Logger } from '../logger.js';

/**
 * What the app asks of the store: read orders and fulfilments, write fulfilment events (statuses back),
 * and set fulfilments' tracking links (the tracking-page setting: fulfillmentTrackingInfoUpdate needs
 * write_merchant_managed_fulfillment_orders). The one list: the OAuth request, the token exchange and
 * shopify.app.toml (checked by a test) all say the same.
 */
export const appScopes = [
  'read_orders',
  'read_fulfillments',
  'write_fulfillments',
  'write_merchant_managed_fulfillment_orders',
];

export const adminApiVersion = ApiVersion.October26;

/** Where the install routes and the webhook intake live (shopify.app.toml points at the same). */
export const authPath = '/api/auth';
export const authCallbackPath = '/api/auth/callback';
export const webhookPath = '/webhooks';

export interface ShopifySettings {
  apiKey: string;
  apiSecret: string;
  appUrl: string;
  /**
   * Where offline sessions (the stores' access tokens) live: PrismaSessionStorage in the app. Left out,
   * the library keeps them in memory, which only suits code that never installs (webhook tests).
   */
  sessionStorage?: SessionStorage;
  /** The library's own warnings and errors go here (never its debug lines, which may name tokens). */
  logger?: Logger;
}

/** The app's one Shopify object: the Express middlewares (OAuth, redirects) and, as `.api`, shopifyApi. */
export type TracksyncShopify = ShopifyApp;

/**
 * @shopify/shopify-app-express builds its own shopifyApi from `api`; `shopify.api` is the object the
 * webhook intake verifies HMACs with (apiSecretKey = SHOPIFY_API_SECRET), so there is exactly one.
 */
export function createShopify(settings: ShopifySettings): TracksyncShopify {
  const url = new URL(settings.appUrl);
  const logger = settings.logger;
  return shopifyApp({
    api: {
      apiKey: settings.apiKey,
      apiSecretKey: settings.apiSecret,
      scopes: appScopes,
      hostName: url.host,
      hostScheme: url.protocol === 'http:' ? 'http' : 'https',
      apiVersion: adminApiVersion,
      isEmbeddedApp: true,
      logger: {
        level: LogSeverity.Warning,
        httpRequests: false,
        timestamps: false,
        log: (severity, message) => {
          if (!logger) return;
          if (severity === LogSeverity.Error) logger.error({ component: 'shopify' }, message);
          else logger.warn({ component: 'shopify' }, message);
        },
      },
    },
    auth: { path: authPath, callbackPath: authCallbackPath },
    webhooks: { path: webhookPath },
    useOnlineTokens: false,
    // Offline tokens that expire, with a refresh token: the library asks for them at OAuth, and
    // shopify.ensureValidOfflineSession(shop) refreshes one close to expiry.
    future: { expiringOfflineAccessTokens: true },
    ...(settings.sessionStorage ? { sessionStorage: settings.sessionStorage } : {}),
  });
}

/** The shopifyApi inside (HMAC checks, session tokens, token exchange). */
export function shopifyApiOf(shopify: TracksyncShopify): Shopify {
  return shopify.api;
}
