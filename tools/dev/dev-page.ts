/**
 * `npx tsx tools/dev/dev-page.ts [--shop <domain>] [--hours <n>] [--port <n>]`: a fresh URL of the settings
 * page outside the store admin, against `npm run dev` (its database, dev secret and emulator). `npm run
 * dev` prints one when it starts; this makes another (another shop, a longer token, another port).
 *
 * Outside the admin there is no App Bridge to hand the page session tokens, and no store to exchange
 * one for an access token. So this records the shop as installed with a placeholder offline session
 * (nothing here calls a store) and prints the page's URL with a launch token signed with the dev secret.
 * Development only: it signs with whatever SHOPIFY_API_SECRET the dev settings hold, and the dev app
 * accepts launch tokens of up to devTokenHours.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadDotEnvFile } from '../../src/config.js';
import { loadDevSettings } from './dev-settings.js';
import { createDatabase } from '../../src/db/client.js';
import { parseKeyring } from '../../src/shops/crypto.js';
import { myshopifyDomain } from '../../src/lib/shop-domain.js';
import { devPageUrl, devTokenHours, installDevShop } from './dev-store.js';
import { devShopDomain } from './dev-tools.js';

const usage = 'Usage: npx tsx tools/dev/dev-page.ts [--shop <domain>] [--hours <n>] [--port <n>]';

function readArgs(argv: string[]): { shop: string; hours: number; port: string | undefined } {
  let values: { shop?: string; hours?: string; port?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { shop: { type: 'string' }, hours: { type: 'string' }, port: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new ConfigError([`${(error as Error).message}`, usage]);
  }
  const shop = myshopifyDomain(values.shop ?? devShopDomain);
  const hours = Number(values.hours ?? String(devTokenHours));
  if (!shop) throw new ConfigError(['--shop: not a *.myshopify.com domain']);
  if (!Number.isFinite(hours) || hours <= 0 || hours > devTokenHours)
    throw new ConfigError([
      `--hours: a number of hours above 0 and at most ${devTokenHours} (what the dev app accepts)`,
    ]);
  if (values.port !== undefined && !/^\d{1,5}$/.test(values.port))
    throw new ConfigError(['--port: not a port number']);
  return { shop, hours, port: values.port };
}

async function main(): Promise<void> {
  loadDotEnvFile();
  const { shop, hours, port } = readArgs(process.argv.slice(2));
  const { env } = loadDevSettings(port ? { ...process.env, PORT: port } : process.env);
  const { SHOPIFY_API_KEY: apiKey, SHOPIFY_API_SECRET: secret, SHOPIFY_APP_URL: appUrl } = env;
  if (!apiKey || !secret || !appUrl || !env.DATABASE_URL) throw new ConfigError(['dev settings incomplete']);
  const db = await createDatabase(env.DATABASE_URL);
  try {
    await installDevShop(db.prisma, parseKeyring(env.ENCRYPTION_KEY ?? ''), shop);
  } finally {
    await db.close();
  }
  const url = devPageUrl({ shop, apiKey, secret, appUrl, hours });
  process.stdout.write(`The app's pages for ${shop} (token valid ${hours} h):\n${url}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
