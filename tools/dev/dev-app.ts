import { createHmac, timingSafeEqual } from 'node:crypto';
import express, { type Express, type RequestHandler } from 'express';
import { storeProxyPath } from '../../src/lib/proxy-paths.js';
import { devAppProxy } from './dev-proxy.js';
import { devTokenHours, signDevToken } from './dev-store.js';

/**
 * `npm run dev`'s extras, in front of the app it is given (startRuntime's `serve`): the app itself is the
 * production one and knows nothing of them.
 * - GET /apps/track plays the store's app proxy for the dev shop (./dev-proxy.ts);
 * - the page's launch token outside the admin lives for hours (./dev-store.ts devPageUrl), where the app
 *   accepts the platform's minute-long session tokens only: a token signed with the development secret and
 *   still valid is handed to the app re-signed, as the platform would issue it now, in the page's
 *   `id_token` and in the API's bearer token. Anything else passes as it came, for the app to judge.
 */
export function withDevExtras(app: Express, options: { secret: string; shop: string }): Express {
  const dev = express();
  dev.disable('x-powered-by');
  dev.get(storeProxyPath, devAppProxy(options));
  dev.use(freshSessionTokens(options.secret));
  dev.use(app);
  return dev;
}

/** The platform's session tokens live a minute. */
const SESSION_TOKEN_LIFETIME_S = 60;

function freshSessionTokens(secret: string): RequestHandler {
  return (req, _res, next) => {
    const bearer = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const freshBearer = bearer === undefined ? null : reSigned(bearer, secret);
    if (freshBearer) req.headers.authorization = `Bearer ${freshBearer}`;
    const url = new URL(req.url, 'http://dev');
    const launch = url.searchParams.get('id_token');
    const freshLaunch = launch === null ? null : reSigned(launch, secret);
    if (freshLaunch) {
      url.searchParams.set('id_token', freshLaunch);
      req.url = `${url.pathname}${url.search}`;
    }
    next();
  };
}

/** The token with the same claims issued now for a minute, when `secret` signed it and it runs yet
 * (within the dev launch token's hours); null otherwise. */
function reSigned(token: string, secret: string): string | null {
  const [header, payload, signature] = token.split('.');
  if (header === undefined || payload === undefined || signature === undefined) return null;
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
  const nowS = Math.floor(Date.now() / 1000);
  if (typeof claims.exp !== 'number' || claims.exp <= nowS || claims.exp - nowS > devTokenHours * 3600)
    return null;
  return signDevToken(
    { ...claims, iat: nowS, nbf: nowS, exp: Math.min(claims.exp, nowS + SESSION_TOKEN_LIFETIME_S) },
    secret,
  );
}
