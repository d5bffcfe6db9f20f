import { createHmac, randomUUID } from 'node:crypto';

/**
 * Session tokens as App Bridge hands them to the page: HS256 JWTs signed with the app secret, `aud` the
 * API key, `dest` the shop's https origin, `iss` its admin. Every claim can be overridden (or left out
 * with `undefined` in `claims`) to make tokens the app must refuse.
 */
export interface MintSessionTokenOptions {
  /** The shop domain, e.g. test-shop.myshopify.com. */
  shop: string;
  /** The app's API key (client id): the token's audience. */
  apiKey: string;
  /** The app secret the token is signed with. */
  secret: string;
  /** Seconds from `now` until exp (default 60, as App Bridge's); negative for an expired token. */
  expiresInSeconds?: number;
  /** Seconds from `now` of nbf (default 0); positive for a token not yet valid. */
  notBeforeSeconds?: number;
  /** The clock, in ms (default Date.now()). */
  now?: number;
  /** The user (sub), default "42". */
  userId?: string;
  /** Claims set over (or, with undefined, removed from) the defaults. */
  claims?: Record<string, unknown>;
  /** Header fields over the defaults ({alg: HS256, typ: JWT}). The signature is HS256 whatever alg says. */
  header?: Record<string, unknown>;
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function mintSessionToken(options: MintSessionTokenOptions): string {
  const nowS = Math.floor((options.now ?? Date.now()) / 1000);
  const claims: Record<string, unknown> = {
    iss: `https://${options.shop}/admin`,
    dest: `https://${options.shop}`,
    aud: options.apiKey,
    sub: options.userId ?? '42',
    exp: nowS + (options.expiresInSeconds ?? 60),
    nbf: nowS + (options.notBeforeSeconds ?? 0),
    iat: nowS,
    jti: randomUUID(),
    sid: randomUUID(),
  };
  for (const [key, value] of Object.entries(options.claims ?? {})) {
    if (value === undefined) delete claims[key];
    else claims[key] = value;
  }
  const signingInput = `${base64url({ alg: 'HS256', typ: 'JWT', ...options.header })}.${base64url(claims)}`;
  const signature = createHmac('sha256', options.secret).update(signingInput).digest('base64url');
  return `${signingInput}.${signature}`;
}

/** `{ Authorization: 'Bearer <token>' }` for supertest's .set(). */
export function bearer(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}
