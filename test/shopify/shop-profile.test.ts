import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { shopifyStoreAdmin } from '../../src/shopify/admin-graphql.js';
import { createShopify } from '../../src/shopify/api.js';
import { profileEveryMs, refreshShopProfiles, shopifyShopProfile } from '../../src/shopify/shop-profile.js';
import { parseKeyring } from '../../src/shops/crypto.js';
import { PrismaSessionStorage } from '../../src/shops/session-storage.js';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/app.js';
import { installShop } from '../helpers/install.js';
import { addShop, type ScenarioShop } from '../helpers/scenario.js';

/**
 * The store's time zone and contact e-mail, read through the library from the (fake) store's `shop` query
 * once after install and weekly; a store that cannot be asked keeps UTC and is tried again in an hour.
 */

let app: TestApp;
let berlin: ScenarioShop;
let broken: ScenarioShop;

beforeAll(async () => {
  app = await startTestApp({ connect: false, config: { role: 'web' } });
  [berlin, broken] = [await addShop(app, 'berlin'), await addShop(app, 'broken')];
  await installShop(app, berlin.domain);
  await installShop(app, broken.domain);
  app.store.setShopProfile(berlin.domain, {
    timezone: 'Europe/Berlin',
    contactEmail: 'owner@berlin.example',
  });
  app.store.failEvents(broken.domain, { kind: 'http', status: 503 }, { operation: 'shopProfile' });
});
afterAll(async () => {
  await app?.close();
});

function profileApi() {
  const shopify = createShopify({
    apiKey: 'test-api-key',
    apiSecret: TEST_SECRET,
    appUrl: 'http://127.0.0.1:3000',
    sessionStorage: new PrismaSessionStorage(app.database.prisma, {
      keyring: parseKeyring(app.config.encryptionKey),
      connectionRetries: 0,
    }),
  });
  return shopifyShopProfile(shopifyStoreAdmin(shopify));
}

const shopRow = (domain: string) => app.database.prisma.shop.findUniqueOrThrow({ where: { domain } });

describe('the store profile', () => {
  it('is read once after install: time zone and contact e-mail; a store that cannot answer keeps UTC', async () => {
    const now = new Date('2026-11-25T12:00:00Z');
    const deps = { prisma: app.database.prisma, api: profileApi(), logger: silentLogger, now: () => now };
    const read = await refreshShopProfiles(deps, 100);
    expect(read).toBeGreaterThanOrEqual(1);
    expect(await shopRow(berlin.domain)).toMatchObject({
      timezone: 'Europe/Berlin',
      contactEmail: 'owner@berlin.example',
      profileCheckedAt: now,
    });
    const failed = await shopRow(broken.domain);
    expect(failed.timezone).toBe('UTC');
    // Tried again in an hour, not at the next pass.
    expect(failed.profileCheckedAt!.getTime()).toBe(now.getTime() - profileEveryMs + 3_600_000);
    const asked = () => app.store.requests.filter((r) => r.operation === 'shopProfile').length;
    const before = asked();
    await refreshShopProfiles(deps, 100);
    expect(asked()).toBe(before);
    // A week on, read again.
    const later = new Date(now.getTime() + profileEveryMs);
    await refreshShopProfiles({ ...deps, now: () => later }, 100);
    expect(asked()).toBeGreaterThan(before);
  });
});
