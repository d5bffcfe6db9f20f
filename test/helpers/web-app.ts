import { randomBytes } from 'node:crypto';
import type express from 'express';
import { createApp } from '../../src/app/server.js';
import { createAppContext } from '../../src/context/app-context.js';
import type { AdminUiScripts } from '../../src/config.js';
import type { DatabaseClient } from '../../src/db/client.js';
import { type Logger, silentLogger } from '../../src/logger.js';
import { createShopify, type TracksyncShopify } from '../../src/shopify/api.js';
import { parseKeyring } from '../../src/shops/crypto.js';
import { PrismaSessionStorage } from '../../src/shops/session-storage.js';
import type { ShopRepository } from '../../src/shops/shop-repository.js';
import { createTrackingClient } from '../../src/tracking/client.js';

export interface TestWebApp {
  app: express.Express;
  shopify: TracksyncShopify;
  shops: ShopRepository;
  sessions: PrismaSessionStorage;
}

/**
 * createApp on a test database without the worker or a listening server (for supertest): the real
 * Shopify object on PrismaSessionStorage, repositories, and a tracking client pointed at `trackingApiBaseUrl`
 * (nothing listens there unless the test starts an emulator).
 */
export function createTestWebApp(options: {
  prisma: DatabaseClient;
  apiKey?: string;
  secret?: string;
  appUrl?: string;
  trackingApiBaseUrl?: string;
  onDeliveryRecorded?: () => void;
  logger?: Logger;
  /** App Bridge and Polaris from the CDN (default) or the offline stand-ins (a browser test). */
  adminUiScripts?: AdminUiScripts;
}): TestWebApp {
  const keyring = parseKeyring(`t1:${randomBytes(32).toString('base64')}`);
  const sessions = new PrismaSessionStorage(options.prisma, { keyring, connectionRetries: 0 });
  const shopify = createShopify({
    apiKey: options.apiKey ?? 'test-api-key',
    apiSecret: options.secret ?? 'test-app-secret',
    appUrl: options.appUrl ?? 'https://tracksync.example.com',
    sessionStorage: sessions,
  });
  const context = createAppContext({
    prisma: options.prisma,
    keyring,
    client: createTrackingClient({
      baseUrl: options.trackingApiBaseUrl ?? 'http://127.0.0.1:9/v1',
      logger: silentLogger,
    }),
    logger: options.logger ?? silentLogger,
  });
  const { shops } = context;
  const app = createApp(context, {
    shopify,
    readiness: async () => ({ ready: true }),
    ...(options.onDeliveryRecorded ? { onDeliveryRecorded: options.onDeliveryRecorded } : {}),
    ...(options.adminUiScripts ? { adminUiScripts: options.adminUiScripts } : {}),
  });
  return { app, shopify, shops, sessions };
}
