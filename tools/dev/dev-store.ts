import { createHmac, randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { Session } from '@shopify/shopify-api';
import type { DatabaseClient } from '../../src/db/client.js';
import {
  type FakeAdminGraphql,
  type FakeLineItem,
  type FakeOrder,
  startFakeAdminGraphql,
} from './fake-store-admin.js';
import { appScopes } from '../../src/shopify/api.js';
import { recordInstall } from '../../src/shopify/install.js';
import type { EncryptionKeyring } from '../../src/shops/crypto.js';
import { PrismaSessionStorage } from '../../src/shops/session-storage.js';

/**
 * The store side of local development: no real store is ever called. `npm run dev` runs the fake store
 * Admin API (the one the tests use) and sends every Admin API request of the app to it, records the demo
 * shop as installed with a placeholder offline session, and signs a launch token for the page outside the
 * admin. Development only.
 */

/** How long the page's launch token (and so a dev session token) may live in `npm run dev`. */
export const devTokenHours = 8;

/**
 * The demo store's orders, for a local backfill: three orders shipped with UPS and DHL yesterday, each
 * fulfilment with its items (what the shoppers' page shows in each parcel).
 */
export function demoOrders(now: Date = new Date()): FakeOrder[] {
  const day = new Date(now.getTime() - 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const items: FakeLineItem[][] = [
    [{ title: 'Linen shirt', variantTitle: 'Blue / M', quantity: 1 }],
    [
      { title: 'Desk lamp', variantTitle: 'Brass', quantity: 1 },
      { title: 'Bulb pack', variantTitle: null, quantity: 2 },
    ],
    [{ title: 'Wool socks', variantTitle: 'Grey', quantity: 3 }],
  ];
  const order = (n: number, company: string, numbers: string[]): FakeOrder => ({
    legacyResourceId: String(6_200_000_000_000 + n),
    name: `#${1100 + n}`,
    cancelledAt: null,
    shippingAddress: { zip: '10115', countryCodeV2: 'DE' },
    fulfillments: [
      {
        legacyResourceId: String(5_200_000_000_000 + n),
        status: 'SUCCESS',
        createdAt: day,
        updatedAt: day,
        trackingInfo: numbers.map((number) => ({ company, number })),
        lineItems: items[n - 1] ?? [],
      },
    ],
  });
  return [
    order(1, 'UPS', ['1Z999AA10123456001']),
    order(2, 'DHL Express', ['1234567001', '1234567002']),
    order(3, 'UPS', ['1Z999AA10123456003']),
  ];
}

/** The fake store Admin API with the demo shop's orders; every Admin API request of this process goes to it. */
export async function startDevStore(shop: string): Promise<FakeAdminGraphql> {
  const store = await startFakeAdminGraphql(50);
  store.setOrders(shop, demoOrders());
  return store;
}

/** Records the shop as installed: a placeholder offline session (sealed like any other) and its shop row. */
export async function installDevShop(
  prisma: DatabaseClient,
  keyring: EncryptionKeyring,
  shop: string,
): Promise<void> {
  const storage = new PrismaSessionStorage(prisma, { keyring, connectionRetries: 0 });
  const id = `offline_${shop}`;
  if (!(await storage.loadSession(id))) {
    await storage.storeSession(
      new Session({
        id,
        shop,
        state: '',
        isOnline: false,
        accessToken: 'dev-placeholder-offline-token',
        scope: appScopes.join(','),
      }),
    );
  }
  await recordInstall(prisma, shop);
}

/** A JWT as the platform signs session tokens (HS256 with the app's secret). */
export function signDevToken(claims: Record<string, unknown>, secret: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/** The page's URL with a launch token signed with the dev secret, valid `hours`. */
export function devPageUrl(options: {
  shop: string;
  apiKey: string;
  secret: string;
  appUrl: string;
  hours?: number;
  /** Which of the app's pages (default the Overview, `/`). */
  path?: string;
}): string {
  const now = Math.floor(Date.now() / 1000);
  const token = signDevToken(
    {
      iss: `https://${options.shop}/admin`,
      dest: `https://${options.shop}`,
      aud: options.apiKey,
      sub: '1',
      exp: now + Math.round((options.hours ?? devTokenHours) * 3600),
      nbf: now,
      iat: now,
      jti: randomUUID(),
      sid: randomUUID(),
    },
    options.secret,
  );
  const url = new URL(options.path ?? '/', options.appUrl);
  url.searchParams.set('shop', options.shop);
  url.searchParams.set('id_token', token);
  return url.href;
}

/**
 * Writes the running dev setup's settings for the operator CLI (`npm run cli -- …` reads this file when
 * it exists and NODE_ENV is not production). Dev-only values: the dev secret and key protect nothing real.
 */
export async function writeDevEnvFile(file: string, values: Record<string, string>): Promise<void> {
  const lines = [
    '# Written by `npm run dev` for the operator CLI. Development only: never use these values in production.',
    ...Object.entries(values).map(([k, v]) => `${k}=${v}`),
    '',
  ];
  await writeFile(file, lines.join('\n'), { mode: 0o600 });
}
