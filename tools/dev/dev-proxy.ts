import type { RequestHandler } from 'express';
import { devDefaults } from '../../src/config.js';
import { proxyPath, storeProxyPath } from '../../src/lib/proxy-paths.js';
import { signProxyQuery } from '../../src/proxy/signature.js';

/**
 * `npm run dev` only: the store's app proxy, played locally. GET /apps/track on the dev app does what the
 * store does for https://<shop>/apps/track: it adds the shop and the path prefix, signs the query with the
 * app's secret (as the platform does) and hands it to GET /proxy (by redirect). So the shoppers' page and
 * its forms work locally, through the same verification as in a store.
 *
 * It signs whatever it is handed, so it hands on only what a shopper can type:
 * - only the page's own parameters (`devProxyParameters`), the first value of each; anything else, the
 *   platform's own (`logged_in_customer_id`, `shop`, `signature`, `path_prefix`, `timestamp`) included, is
 *   dropped, so no one reaching a dev server picks a customer or a shop;
 * - no value with `=` (400). The signed string joins `key=value` entries with nothing between
 *   (src/proxy/signature.ts): with an `=` in a value, `order=1shop=other.myshopify.comt=` signed beside the
 *   dev shop re-splits into a valid request for another shop. With known keys and `=`-free values, every
 *   `=` in the signed string follows one of the keys signed, so it cannot be read another way.
 *
 * And it runs only with the development secret (`devAppProxySecret`): a signature made with a real app's
 * secret would be good on every store that installed it.
 */

/** The parameters the shoppers' page reads (src/proxy/route.ts) and its forms send. */
export const devProxyParameters: readonly string[] = [
  'tracking',
  'order',
  'email',
  'view',
  'locale',
  'format',
];

/** The only secret the dev proxy signs with: `npm run dev`'s own (src/config.ts devDefaults). */
export const devAppProxySecret = devDefaults.SHOPIFY_API_SECRET!;

/** Throws unless `secret` is the development secret (at app creation, and before `npm run dev` starts). */
export function assertDevAppProxySecret(secret: string): void {
  if (secret === devAppProxySecret) return;
  throw new Error(
    `the dev app proxy (GET ${storeProxyPath}) signs what it is sent with the app's secret, so it runs only ` +
      `with the development secret (SHOPIFY_API_SECRET=${devAppProxySecret}), not a real app's: ` +
      'unset SHOPIFY_API_SECRET (and .env) for npm run dev',
  );
}

export function devAppProxy(options: { secret: string; shop: string }): RequestHandler {
  assertDevAppProxySecret(options.secret);
  return (req, res) => {
    const params: Record<string, string> = {};
    for (const [key, value] of new URL(req.originalUrl, 'http://dev').searchParams) {
      if (!devProxyParameters.includes(key) || key in params) continue;
      if (value.includes('=')) {
        res.status(400).type('text/plain').send(`The dev app proxy refuses "=" in ${key}.`);
        return;
      }
      params[key] = value;
    }
    const query = signProxyQuery(options.secret, {
      ...params,
      shop: options.shop,
      path_prefix: storeProxyPath,
    });
    res.redirect(302, `${proxyPath}?${query}`);
  };
}
