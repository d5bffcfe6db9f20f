import '@shopify/shopify-api/adapters/node';
import { ApiVersion, LogSeverity, type Shopify, shopifyApi } from '@shopify/shopify-api';

/** What the app asks of the store: read orders and fulfilments, write fulfilment events (issue: status back). */
export const appScopes = ['read_orders', 'read_fulfillments', 'write_fulfillments'];

export const adminApiVersion = ApiVersion.October26;

export interface ShopifySettings {
  apiKey: string;
  apiSecret: string;
  appUrl: string;
}

export function createShopify(settings: ShopifySettings): Shopify {
  const url = new URL(settings.appUrl);
  return shopifyApi({
    apiKey: settings.apiKey,
    apiSecretKey: settings.apiSecret,
    scopes: appScopes,
    hostName: url.host,
    hostScheme: url.protocol === 'http:' ? 'http' : 'https',
    apiVersion: adminApiVersion,
    isEmbeddedApp: true,
    logger: { level: LogSeverity.Error, httpRequests: false, timestamps: false },
  });
}
