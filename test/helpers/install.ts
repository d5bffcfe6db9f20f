import { randomUUID } from 'node:crypto';
import { Session } from '@shopify/shopify-api';
import { appScopes } from '../../src/shopify/api.js';
import { PrismaSessionStorage } from '../../src/shops/session-storage.js';
import { parseKeyring } from '../../src/shops/crypto.js';
import type { AppConfig } from '../../src/config.js';
import type { DatabaseClient } from '../../src/db/client.js';
import { ensureShop } from '../../src/shops/shop-repository.js';

/**
 * Records the store's install as the OAuth / token exchange would: an offline session in the app's session
 * storage, so loading the page never calls the platform's token endpoint.
 */
export async function installShop(
  app: { database: { prisma: DatabaseClient }; config: Pick<AppConfig, 'encryptionKey'> },
  shop: string,
): Promise<void> {
  const storage = new PrismaSessionStorage(app.database.prisma, {
    keyring: parseKeyring(app.config.encryptionKey),
    connectionRetries: 0,
  });
  await storage.storeSession(
    new Session({
      id: `offline_${shop}`,
      shop,
      state: 'installed',
      isOnline: false,
      scope: appScopes.join(','),
      accessToken: `shpat_test_${randomUUID().slice(0, 8)}`,
    }),
  );
}

/** The whole install as the platform's OAuth / token exchange leaves it: the shop's row and its session. */
export async function installStore(
  app: { database: { prisma: DatabaseClient }; config: Pick<AppConfig, 'encryptionKey'> },
  shop: string,
): Promise<void> {
  await ensureShop(app.database.prisma, shop);
  await installShop(app, shop);
}
