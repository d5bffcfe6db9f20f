/**
 * Scratch databases for the bench (a temp SQLite file, or a throw-away PostgreSQL database), migrated with
 * the app's own migrations, always removed afterwards; and the app's own code to connect shops and to write
 * the drain's burst.
 */
import { createDatabase, type Database } from '../src/db/client.js';
import { applyMigrations } from '../src/db/migrate.js';
import type { DatabaseProvider } from '../src/db/provider.js';
import { createScratchDatabase, DEFAULT_POSTGRES_ADMIN_URL } from '../tools/db/scratch.js';
import { silentLogger } from '../src/logger.js';
import { connectShop } from '../src/shops/connect-shop.js';
import { parseKeyring } from '../src/shops/crypto.js';
import { createShopRepository } from '../src/shops/shop-repository.js';
import { createTrackingClient } from '../src/tracking/client.js';
import { installShop } from '../test/helpers/install.js';
import type { BenchShop, BurstDelivery } from './burst.js';
import type { Cleanup } from './cleanup.js';
import { withTimeout } from './wait.js';

export interface BenchDatabase {
  url: string;
  provider: DatabaseProvider;
  /** Drops it now (also registered with the cleanup). */
  drop(): Promise<void>;
}

/** A fresh, migrated database, dropped by `drop()` or at the latest by the cleanup. */
export async function scratchDatabase(
  provider: DatabaseProvider,
  cleanup: Cleanup,
  postgresAdminUrl = DEFAULT_POSTGRES_ADMIN_URL,
): Promise<BenchDatabase> {
  const scratch = await withTimeout(
    `a scratch ${provider} database`,
    30_000,
    createScratchDatabase(provider, { prefix: 'tracksync_bench', postgresAdminUrl }),
  );
  const drop = cleanup.add(`drop scratch ${provider} database`, () => scratch.drop());
  try {
    await withTimeout('migrations', 60_000, applyMigrations(scratch.url));
  } catch (error) {
    await drop();
    throw error;
  }
  return { url: scratch.url, provider, drop };
}

/** Opens the database with the app's client for the duration of `fn`. */
export async function withDatabase<T>(url: string, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await withTimeout('a database connection', 30_000, createDatabase(url));
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/**
 * Connects every shop as the settings page and `shop:connect` do (the app's connectShop use case): the key
 * and app name are checked with the service, then stored sealed with ENCRYPTION_KEY.
 */
export async function connectShops(
  databaseUrl: string,
  options: { trackingApiBaseUrl: string; encryptionKey: string; shops: BenchShop[] },
): Promise<void> {
  await withDatabase(databaseUrl, async (db) => {
    const shops = createShopRepository(db.prisma, parseKeyring(options.encryptionKey));
    const client = createTrackingClient({ baseUrl: options.trackingApiBaseUrl, logger: silentLogger });
    for (const shop of options.shops) {
      const result = await withTimeout(
        `connecting ${shop.domain}`,
        20_000,
        connectShop({ client, shops }, { domain: shop.domain, apiKey: shop.apiKey, appName: shop.appName }),
      );
      if (!result.ok)
        throw new Error(`could not connect ${shop.domain}: ${result.reason}: ${result.message}`);
    }
  });
}

/**
 * Records each shop's install as the OAuth / token exchange would (test/helpers/install.ts): an offline
 * session in the Session table, its token sealed with ENCRYPTION_KEY. The worker needs it to confirm a
 * first-seen fulfilment with the store (src/webhooks/admit-deliveries.ts); without one the delivery waits
 * ("no offline session"). The shops must be connected (a Shop row) too: connectShops.
 */
export async function installShops(
  databaseUrl: string,
  options: { encryptionKey: string; shops: BenchShop[] },
): Promise<void> {
  await withDatabase(databaseUrl, async (db) => {
    const app = { database: { prisma: db.prisma }, config: { encryptionKey: options.encryptionKey } };
    for (const shop of options.shops) await installShop(app, shop.domain);
  });
}

/**
 * Writes the burst's deliveries straight into WebhookDelivery (rows as intake writes them, pending and due),
 * in one transaction so they land at once.
 */
export async function insertBurst(db: Database, deliveries: BurstDelivery[]): Promise<void> {
  const chunk = 500;
  const batches = [];
  for (let i = 0; i < deliveries.length; i += chunk) {
    batches.push(db.prisma.webhookDelivery.createMany({ data: deliveries.slice(i, i + chunk) }));
  }
  await withTimeout('the burst to be written', 120_000, db.prisma.$transaction(batches));
}
