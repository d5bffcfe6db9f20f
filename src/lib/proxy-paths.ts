/** Where the app serves the shoppers' page (the app proxy's `url` in shopify.app.toml points here). */
export const proxyPath = '/proxy';

/** Where the store shows the page (shopify.app.toml [app_proxy] prefix/subpath). */
export const storeProxyPath = '/apps/track';
