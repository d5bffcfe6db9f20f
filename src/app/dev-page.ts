/**
 * `npx tsx src/app/dev-page.ts [--shop <domain>] [--hours <n>]`: the settings page locally, outside the
 * store admin, against `npm run dev` (its database, dev secret and emulator).
 *
 * Outside the admin there is no App Bridge to hand the page session tokens, and no store to exchange
 * one for an access token. So this stores a placeholder offline session for the shop (the install the
 * admin would have made; nothing here calls the store) and prints the page's URL with a session token
 * signed with the dev secret, valid for a few hours, which the page uses as its launch token.
 * Development only: it signs with whatever SHOPIFY_API_SECRET the dev settings hold.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { Session } from '@shopify/shopify-api';
import { ConfigError, loadDevSettings, loadDotEnvFile } from '../config.js';
import { createDatabase } from '../db/client.js';
import { recordInstall } from '../shopify/install.js';
import { PrismaSessionStorage } from '../shops/session-storage.js';
import { parseKeyring } from '../shops/crypto.js';
import { myshopifyDomain } from '../ui/auth/session-token.js';
import { devShopDomain } from './dev-tools.js';

function arg(name: string): string | undefined {
  const argv = process.argv.slice(2);
  const index = argv.indexOf(`--${name}`);
  return index === -1 ? undefined : argv[index + 1];
}

function sign(claims: Record<string, unknown>, secret: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

async function main(): Promise<void> {
  loadDotEnvFile();
  const { env } = loadDevSettings();
  const shop = myshopifyDomain(arg('shop') ?? devShopDomain);
  const hours = Number(arg('hours') ?? '8');
  if (!shop) throw new ConfigError(['--shop: not a *.myshopify.com domain']);
  if (!Number.isFinite(hours) || hours <= 0) throw new ConfigError(['--hours: not a positive number']);
  const { SHOPIFY_API_KEY: apiKey, SHOPIFY_API_SECRET: secret, SHOPIFY_APP_URL: appUrl } = env;
  if (!apiKey || !secret || !appUrl || !env.DATABASE_URL) throw new ConfigError(['dev settings incomplete']);

  const db = await createDatabase(env.DATABASE_URL);
  try {
    const keyring = parseKeyring(env.ENCRYPTION_KEY ?? '');
    const storage = new PrismaSessionStorage(db.prisma, { keyring, connectionRetries: 0 });
    const id = `offline_${shop}`;
    if (!(await storage.loadSession(id))) {
      await storage.storeSession(
        new Session({
          id,
          shop,
          state: '',
          isOnline: false,
          accessToken: 'dev-placeholder-offline-token',
          scope: 'read_orders,read_fulfillments,write_fulfillments',
        }),
      );
    }
    await recordInstall(db.prisma, shop);
  } finally {
    await db.close();
  }

  const now = Math.floor(Date.now() / 1000);
  const token = sign(
    {
      iss: `https://${shop}/admin`,
      dest: `https://${shop}`,
      aud: apiKey,
      sub: '1',
      exp: now + Math.round(hours * 3600),
      nbf: now,
      iat: now,
      jti: randomUUID(),
      sid: randomUUID(),
    },
    secret,
  );
  const url = new URL('/', appUrl);
  url.searchParams.set('shop', shop);
  url.searchParams.set('id_token', token);
  process.stdout.write(`The settings page of ${shop} (token valid ${hours} h):\n${url.href}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
