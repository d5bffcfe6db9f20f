import { routeShopifyFetchTo } from './fake-store-admin.js';

/**
 * Development and tests only: `node --import tsx --import ./tools/dev/fake-store-preload.ts src/app/main.ts`
 * with FAKE_STORE_URL set sends the process's store Admin API requests to a local fake store
 * (tools/dev/fake-store-admin.ts) that the test or bench runs, as `npm run dev` does in-process. Production
 * never loads it: nothing in the app imports it.
 */
const url = process.env.FAKE_STORE_URL;
if (url) routeShopifyFetchTo(url);
