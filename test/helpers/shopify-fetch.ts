export { setShopifyFetch } from '../../src/shopify/fetch-seam.js';
