import { randomBytes } from 'node:crypto';
import { type Runtime, type RuntimeOptions, startRuntime } from '../../src/app/runtime.js';
import type { AppConfig } from '../../src/config.js';
import type { DatabaseProvider } from '../../src/db/provider.js';
import { silentLogger } from '../../src/logger.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { startTestEmulator, type TestEmulator } from './emulator.js';
import { type FakeAdminGraphql, startFakeAdminGraphql } from '../../tools/dev/fake-store-admin.js';
import { installShop } from './install.js';

export const TEST_SECRET = 'test-app-secret';
export const TEST_SHOP = 'test-shop.myshopify.com';
export const TEST_ACCOUNT = {
  apiKey: 'test-service-key-0001',
  appName: 'test-store',
  plan: 'Pro',
  balance: 1000,
};

export interface TestApp {
  runtime: Runtime;
  url: string;
  emulator: TestEmulator;
  database: TestDatabase;
  config: AppConfig;
  /**
   * The stores' Admin API (a local fake: it holds every fulfilment it is asked about unless a test
   * declares a store's). A test that starts its own fake (startFakeAdminGraphql) gets the requests instead.
   */
  store: FakeAdminGraphql;
  close(): Promise<void>;
}

export function testConfig(
  databaseUrl: string,
  trackingApiBaseUrl: string,
  overrides: Partial<AppConfig> = {},
): AppConfig {
  return {
    port: 0,
    host: '127.0.0.1',
    databaseUrl,
    shopify: { apiKey: 'test-api-key', apiSecret: TEST_SECRET, appUrl: 'http://127.0.0.1:3000' },
    trackingApiBaseUrl,
    encryptionKey: `t1:${randomBytes(32).toString('base64')}`,
    logLevel: 'silent',
    role: 'all',
    workerConcurrency: 8,
    lease: { leaseMs: 15_000, renewEveryMs: 5_000 },
    trackingTimeoutMs: 10_000,
    metrics: { port: null, host: '127.0.0.1', token: null },
    adminUiScripts: 'stand-in',
    trustProxy: 1,
    trackingPage: { refreshAfterMs: 30 * 60_000 },
    ...overrides,
  };
}

/**
 * The emulator, a fresh migrated database, and the app (web + worker) on loopback, with one shop
 * connected to the emulator's account.
 */
export async function startTestApp(
  options: {
    provider?: DatabaseProvider;
    connect?: boolean;
    config?: Partial<AppConfig>;
    emulator?: TestEmulator;
    /** Extra runtime options (reconciler backoff, client timeout, a logger, …) over the test defaults. */
    runtime?: Partial<RuntimeOptions>;
  } = {},
): Promise<TestApp> {
  const emulator =
    options.emulator ?? (await startTestEmulator({ accounts: [{ ...TEST_ACCOUNT, https: true }] }));
  const database = await createTestDatabase(options.provider);
  const store = await startFakeAdminGraphql(2, { seam: 'if-free' });
  const config = testConfig(database.url, emulator.baseUrl, options.config);
  const runtime = await startRuntime(config, {
    logger: silentLogger,
    migrate: false,
    idlePollMs: 25,
    ...options.runtime,
  });
  if (options.connect ?? true) {
    await runtime.context.shops.saveCredentials(TEST_SHOP, {
      apiKey: TEST_ACCOUNT.apiKey,
      appName: TEST_ACCOUNT.appName,
    });
    await installShop({ database, config }, TEST_SHOP);
  }
  return {
    runtime,
    url: runtime.url!,
    emulator,
    database,
    config,
    store,
    async close() {
      await runtime.close();
      await store.close();
      await database.cleanup();
      if (!options.emulator) await emulator.close();
    },
  };
}

/** Polls until `check` returns true, or fails after `timeoutMs` with `what` in the message. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
