export { setShopifyFetch } from '../../tools/dev/fetch-seam.js';
