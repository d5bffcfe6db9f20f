import type { RequestHandler } from 'express';
import { proxyPath, storeProxyPath } from './route.js';
import { signProxyQuery } from './signature.js';

/**
 * `npm run dev` only: the store's app proxy, played locally. GET /apps/track on the dev app does what the
 * store does for https://<shop>/apps/track: it adds the shop and the path prefix, signs the query with the
 * app's secret (as the platform does) and hands it to GET /proxy (by redirect). So the shoppers' page and
 * its forms work locally, through the same verification as in a store.
 */
export function devAppProxy(options: { secret: string; shop: string }): RequestHandler {
  return (req, res) => {
    const params: Record<string, string> = {};
    for (const [key, value] of new URL(req.originalUrl, 'http://dev').searchParams) {
      if (!['shop', 'signature', 'timestamp', 'path_prefix'].includes(key)) params[key] = value;
    }
    const query = signProxyQuery(options.secret, {
      ...params,
      shop: options.shop,
      path_prefix: storeProxyPath,
    });
    res.redirect(302, `${proxyPath}?${query}`);
  };
}
