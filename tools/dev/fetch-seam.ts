import { createRequire } from 'node:module';
import * as esmRuntime from '@shopify/shopify-api/runtime';

/**
 * @shopify/shopify-app-express is CommonJS (no "exports" map), so the shopifyApi it builds is the CJS
 * build of @shopify/shopify-api, with its own module-level fetch; our ESM imports get the ESM build.
 * Test fakes point both at themselves through the library's documented seam (abstractFetch).
 */
const cjsRuntime = createRequire(import.meta.url)('@shopify/shopify-api/runtime') as typeof esmRuntime;

export function setShopifyFetch(fetchFunc: Parameters<typeof esmRuntime.setAbstractFetchFunc>[0]): void {
  esmRuntime.setAbstractFetchFunc(fetchFunc);
  cjsRuntime.setAbstractFetchFunc(fetchFunc);
}
