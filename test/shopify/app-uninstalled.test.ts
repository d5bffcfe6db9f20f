import { Session } from '@shopify/shopify-api';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PrismaSessionStorage } from '../../src/shops/session-storage.js';
import { handleAppUninstalled } from '../../src/webhooks/topics/app-uninstalled.js';
import { useTestDatabase } from '../helpers/database.js';
import { testKeyring, uniqueDomain } from '../helpers/factories.js';

const db = useTestDatabase({ reset: true });
let sessions: PrismaSessionStorage;

beforeAll(async () => {
  sessions = new PrismaSessionStorage(db.prisma, { keyring: testKeyring(), connectionRetries: 0 });
});
beforeEach(async () => {
  await db.prisma.session.deleteMany({});
});

function offlineSession(shop: string): Session {
  return new Session({ id: `offline_${shop}`, shop, state: '', isOnline: false, accessToken: 'shpat_x' });
}

async function uninstall(shop: string) {
  return db.prisma.$transaction((tx) =>
    handleAppUninstalled(
      { tx, shopDomain: shop, matcher: undefined as never },
      { id: '1', domain: shop, myshopify_domain: shop },
    ),
  );
}

describe('app/uninstalled', () => {
  it('deletes the shop’s sessions and keeps its row, paused as uninstalled', async () => {
    const shop = uniqueDomain();
    const other = uniqueDomain();
    await db.prisma.shop.create({ data: { domain: shop } });
    await sessions.storeSession(offlineSession(shop));
    await sessions.storeSession(
      new Session({ id: `${shop}_7`, shop, state: '', isOnline: true, accessToken: 'shpua_x' }),
    );
    await sessions.storeSession(offlineSession(other));

    expect(await uninstall(shop)).toMatchObject({ kind: 'applied' });

    expect(await sessions.findSessionsByShop(shop)).toEqual([]);
    expect(await sessions.loadSession(`offline_${other}`)).toBeDefined();
    expect(await db.prisma.shop.findUnique({ where: { domain: shop } })).toMatchObject({
      pausedReason: 'uninstalled',
    });
  });

  it('deletes the sessions of a shop it has no row for, and says it ignored the rest', async () => {
    const shop = uniqueDomain();
    await sessions.storeSession(offlineSession(shop));
    expect(await uninstall(shop)).toMatchObject({ kind: 'ignored' });
    expect(await db.prisma.session.count()).toBe(0);
    expect(await db.prisma.shop.count()).toBe(0);
  });
});
