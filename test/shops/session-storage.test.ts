import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Session } from '@shopify/shopify-api';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.js';
import { migrationsDirFor } from '../../src/db/paths.js';
import {
  FIND_SESSIONS_LIMIT,
  MissingSessionStorageError,
  MissingSessionTableError,
  PrismaSessionStorage,
} from '../../src/shops/session-storage.js';
import { captureLogger } from '../helpers/capture-logger.js';
import {
  createEmptyTestDatabase,
  defaultTestProvider,
  type EmptyTestDatabase,
  useTestDatabase,
} from '../helpers/database.js';
import { batteryOfTests } from '../helpers/session-storage-battery.js';

import { testKeyring } from '../helpers/factories.js';

const keyring = testKeyring();
const provider = defaultTestProvider();

/** A P2002 / P2003 error as Prisma raises it (only `code` is read). */
function prismaKnownError(code: string): Error {
  return Object.assign(new Error(`prisma error ${code}`), { name: 'PrismaClientKnownRequestError', code });
}

/** Runs prisma/migrations/<provider>/<timestamp><suffix>/migration.sql statement by statement. */
async function runCommittedMigration(database: Database, suffix: string): Promise<void> {
  const dir = migrationsDirFor(database.provider);
  const folder = (await readdir(dir)).find((name) => name.endsWith(suffix));
  if (!folder) throw new Error(`no migration *${suffix} in ${dir}`);
  const sql = await readFile(path.join(dir, folder, 'migration.sql'), 'utf8');
  for (const statement of sql.split(/;\s*(?:\n|$)/)) {
    const code = statement
      .split('\n')
      .filter((line) => !line.trim().startsWith('--'))
      .join('\n')
      .trim();
    if (code !== '') await database.prisma.$executeRawUnsafe(code);
  }
}

function offlineSession(shop: string, overrides: Partial<ConstructorParameters<typeof Session>[0]> = {}) {
  return new Session({
    id: `offline_${shop}`,
    shop,
    state: 'state',
    isOnline: false,
    scope: 'read_orders,write_fulfillments',
    accessToken: `shpat_${shop}`,
    ...overrides,
  });
}

describe(`PrismaSessionStorage on ${provider}`, () => {
  // The official Prisma adapter's own run: user info on (Shopify/shopify-app-js,
  // packages/apps/session-storage/shopify-app-session-storage-prisma/src/__tests__/prisma.test.ts),
  // plus the refresh-token test upstream enables for adapters that store refresh tokens.
  describe('battery of tests, with user info and refresh tokens', () => {
    const db = useTestDatabase();
    batteryOfTests(async () => new PrismaSessionStorage(db.prisma, { keyring }), true, true);
  });

  // The other variant of the battery: an online session whose user is known only by id.
  describe('battery of tests, online session with a user id only', () => {
    const db = useTestDatabase();
    batteryOfTests(async () => new PrismaSessionStorage(db.prisma, { keyring }), false, false);
  });

  describe('round trips', () => {
    const db = useTestDatabase();

    it('keeps the refresh token and its expiry of an expiring offline token', async () => {
      const storage = new PrismaSessionStorage(db.prisma, { keyring });
      const expires = new Date(Date.now() + 60 * 60 * 1000);
      expires.setMilliseconds(0);
      const refreshTokenExpires = new Date(Date.now() + 30 * 24 * 60 * 60 * 1000);
      refreshTokenExpires.setMilliseconds(0);
      const session = offlineSession('refresh.myshopify.com', {
        expires,
        refreshToken: 'shprt_refresh',
        refreshTokenExpires,
      });

      await expect(storage.storeSession(session)).resolves.toBe(true);
      const row = await db.prisma.session.findUniqueOrThrow({ where: { id: session.id } });
      // Sealed at rest (test/shops/session-sealing.test.ts), opened on load.
      expect(row.refreshToken).toMatch(/^sealed:v1:/);
      expect(row).toMatchObject({
        refreshTokenExpires,
        expires,
        isOnline: false,
        userId: null,
      });

      const loaded = await storage.loadSession(session.id);
      expect(loaded).toBeInstanceOf(Session);
      expect(session.equals(loaded)).toBe(true);
      expect(loaded?.accessToken).toBe('shpat_refresh.myshopify.com');
      expect(loaded?.refreshToken).toBe('shprt_refresh');
      expect(loaded?.refreshTokenExpires).toEqual(refreshTokenExpires);
      expect(loaded?.expires).toEqual(expires);
      expect(loaded?.onlineAccessInfo).toBeUndefined();
      expect(loaded?.isActive('read_orders')).toBe(true);
    });

    it('clears the refresh token when the stored session no longer has one', async () => {
      const storage = new PrismaSessionStorage(db.prisma, { keyring });
      const withRefresh = offlineSession('rotate.myshopify.com', {
        refreshToken: 'shprt_old',
        refreshTokenExpires: new Date(Date.now() + 1000 * 60 * 60),
      });
      await storage.storeSession(withRefresh);
      const without = offlineSession('rotate.myshopify.com', { accessToken: 'shpat_new' });
      await storage.storeSession(without);

      const loaded = await storage.loadSession(without.id);
      expect(without.equals(loaded)).toBe(true);
      expect(loaded?.accessToken).toBe('shpat_new');
      expect(loaded?.refreshToken).toBeUndefined();
      expect(loaded?.refreshTokenExpires).toBeUndefined();
      expect(await db.prisma.session.count({ where: { shop: 'rotate.myshopify.com' } })).toBe(1);
    });

    it('keeps the associated user of an online session', async () => {
      const storage = new PrismaSessionStorage(db.prisma, { keyring });
      const userId = 2 ** 40 + 7; // beyond 32 bits: the column is a BigInt
      const expires = new Date(Date.now() + 24 * 60 * 60 * 1000);
      expires.setMilliseconds(0);
      const session = new Session({
        id: `online.myshopify.com_${userId}`,
        shop: 'online.myshopify.com',
        state: 'state',
        isOnline: true,
        scope: 'read_orders',
        accessToken: 'shpua_online',
        expires,
        onlineAccessInfo: {
          expires_in: 86_400,
          associated_user_scope: 'read_orders',
          associated_user: {
            id: userId,
            first_name: 'Ada',
            last_name: 'Lovelace',
            email: 'ada@example.com',
            email_verified: true,
            account_owner: false,
            locale: 'en-GB',
            collaborator: true,
          },
        },
      });

      await storage.storeSession(session);
      const row = await db.prisma.session.findUniqueOrThrow({ where: { id: session.id } });
      expect(row.userId).toBe(BigInt(userId));

      const loaded = await storage.loadSession(session.id);
      expect(session.equals(loaded)).toBe(true);
      expect(loaded?.isOnline).toBe(true);
      expect(loaded?.expires).toEqual(expires);
      expect(loaded?.onlineAccessInfo?.associated_user).toEqual({
        id: userId,
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: 'ada@example.com',
        email_verified: true,
        account_owner: false,
        locale: 'en-GB',
        collaborator: true,
      });
      expect(typeof loaded?.onlineAccessInfo?.associated_user.id).toBe('number');
    });
  });

  describe('shops and deletes', () => {
    const db = useTestDatabase();

    it('does not return the sessions of shop A for shop B', async () => {
      const storage = new PrismaSessionStorage(db.prisma, { keyring });
      const a = offlineSession('shop-a.myshopify.com');
      const aOnline = new Session({
        id: 'shop-a.myshopify.com_1',
        shop: 'shop-a.myshopify.com',
        state: 'state',
        isOnline: true,
        accessToken: 'shpua_a',
        onlineAccessInfo: { associated_user: { id: 1 } } as ConstructorParameters<
          typeof Session
        >[0]['onlineAccessInfo'],
      });
      const b = offlineSession('shop-b.myshopify.com');
      for (const session of [a, aOnline, b]) await storage.storeSession(session);

      const forB = await storage.findSessionsByShop('shop-b.myshopify.com');
      expect(forB.map((session) => session.id)).toEqual([b.id]);
      expect(forB[0]?.accessToken).toBe('shpat_shop-b.myshopify.com');

      const forA = await storage.findSessionsByShop('shop-a.myshopify.com');
      expect(forA.map((session) => session.id).sort()).toEqual([a.id, aOnline.id].sort());
      expect(await storage.findSessionsByShop('shop-c.myshopify.com')).toEqual([]);
      // No prefix or case-insensitive match either.
      expect(await storage.findSessionsByShop('shop-a')).toEqual([]);
      expect(await storage.findSessionsByShop('SHOP-A.myshopify.com')).toEqual([]);
    });

    it(`returns at most ${FIND_SESSIONS_LIMIT} sessions of a shop, latest expiry first`, async () => {
      const storage = new PrismaSessionStorage(db.prisma, { keyring });
      const shop = 'many.myshopify.com';
      const base = Date.now() + 60 * 60 * 1000;
      for (let i = 0; i < FIND_SESSIONS_LIMIT + 5; i++) {
        await storage.storeSession(
          new Session({
            id: `many_${i}`,
            shop,
            state: 'state',
            isOnline: true,
            expires: new Date(base + i * 1000),
          }),
        );
      }
      const found = await storage.findSessionsByShop(shop);
      expect(found).toHaveLength(FIND_SESSIONS_LIMIT);
      expect(found[0]?.id).toBe(`many_${FIND_SESSIONS_LIMIT + 4}`);
      expect(found.at(-1)?.id).toBe('many_5');
    });

    it('deletes an unknown id without error', async () => {
      const storage = new PrismaSessionStorage(db.prisma, { keyring });
      await expect(storage.deleteSession('no_such_session')).resolves.toBe(true);
      await expect(storage.deleteSessions(['no_such_1', 'no_such_2'])).resolves.toBe(true);
      await expect(storage.deleteSessions([])).resolves.toBe(true);
    });

    it('deletes only the ids given', async () => {
      const storage = new PrismaSessionStorage(db.prisma, { keyring });
      const keep = offlineSession('keep.myshopify.com');
      const drop = offlineSession('drop.myshopify.com');
      await storage.storeSession(keep);
      await storage.storeSession(drop);

      await expect(storage.deleteSessions([drop.id, 'no_such_session'])).resolves.toBe(true);
      await expect(storage.loadSession(drop.id)).resolves.toBeUndefined();
      expect(keep.equals(await storage.loadSession(keep.id))).toBe(true);
    });
  });

  // Ported from the official adapter's tests: "Prisma throws P2002 Unique key constraint error on upsert".
  describe('a unique key race (P2002) on upsert', () => {
    const db = useTestDatabase();
    const session = new Session({
      id: 'session-123',
      shop: 'shop',
      state: 'state',
      isOnline: false,
      accessToken: '123',
      scope: '',
    });

    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('handles Prisma unique key constraint errors', async () => {
      const storage = new PrismaSessionStorage(db.prisma, { keyring });
      vi.spyOn(db.prisma.session, 'upsert').mockRejectedValueOnce(prismaKnownError('P2002'));
      await expect(storage.storeSession(session)).resolves.toBe(true);
      // The retry stored it.
      expect(session.equals(await storage.loadSession(session.id))).toBe(true);
    });

    it('returns true after handling Prisma unique key constraint errors', async () => {
      const storage = new PrismaSessionStorage(db.prisma, { keyring });
      vi.spyOn(db.prisma.session, 'upsert').mockRejectedValueOnce(prismaKnownError('P2002'));
      await expect(storage.storeSession(session)).resolves.toBe(true);
    });

    it('tries upsert again after handling Prisma unique key constraint errors', async () => {
      const storage = new PrismaSessionStorage(db.prisma, { keyring });
      const upsert = vi.spyOn(db.prisma.session, 'upsert').mockRejectedValueOnce(prismaKnownError('P2002'));

      await storage.storeSession(session);
      expect(upsert).toHaveBeenCalledTimes(2);
      expect(session.equals(await storage.loadSession(session.id))).toBe(true);
    });

    it('throws other errors than the unique key constraint error', async () => {
      const storage = new PrismaSessionStorage(db.prisma, { keyring });
      const expectedError = prismaKnownError('P2003');
      const upsert = vi.spyOn(db.prisma.session, 'upsert').mockRejectedValueOnce(expectedError);

      await expect(storage.storeSession(session)).rejects.toBe(expectedError);
      expect(upsert).toHaveBeenCalledTimes(1);
    });

    it('logs the retry without the session or its tokens', async () => {
      const captured = captureLogger('debug');
      const storage = new PrismaSessionStorage(db.prisma, { keyring, logger: captured.logger });
      vi.spyOn(db.prisma.session, 'upsert').mockRejectedValueOnce(prismaKnownError('P2002'));
      await storage.storeSession(
        offlineSession('logged.myshopify.com', { accessToken: 'shpat_SECRET', refreshToken: 'shprt_SECRET' }),
      );

      expect(captured.lines.length).toBeGreaterThan(0);
      expect(captured.lines.join('\n')).not.toMatch(/SECRET/);
    });
  });

  describe('a database that cannot be reached at first use', () => {
    const db = useTestDatabase();
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('reports it, then works once the database answers (the failure is not kept)', async () => {
      const storage = new PrismaSessionStorage(db.prisma, { keyring, connectionRetries: 0 });
      vi.spyOn(db.prisma.session, 'count').mockRejectedValueOnce(prismaKnownError('P1001'));

      await expect(storage.loadSession('any')).rejects.toBeInstanceOf(MissingSessionTableError);
      await expect(storage.loadSession('any')).resolves.toBeUndefined();
    });
  });

  // Ported from the official adapter's tests: "PrismaSessionStorage when with no database set up".
  describe('without the Session table (migrations not applied)', () => {
    let empty: EmptyTestDatabase;
    let database: Database;
    beforeAll(async () => {
      empty = await createEmptyTestDatabase(provider);
      database = await createDatabase(empty.url);
    });
    afterAll(async () => {
      await database?.close();
      await empty?.cleanup();
    });
    afterEach(() => {
      vi.restoreAllMocks();
    });

    /** setTimeout calls with `delay`, run at once; any other delay (the drivers' own timers) runs as usual. */
    function instantSleeps(delay: number) {
      const realSetTimeout = globalThis.setTimeout;
      const spy = vi.spyOn(globalThis, 'setTimeout');
      spy.mockImplementation(((callback: () => void, ms?: number, ...args: unknown[]) => {
        if (ms === delay) {
          callback();
          return realSetTimeout(() => {}, 0);
        }
        return Reflect.apply(realSetTimeout, globalThis, [callback, ms, ...args]);
      }) as typeof setTimeout);
      return () => spy.mock.calls.filter(([, ms]) => ms === delay);
    }

    it('throws an appropriate error when Prisma migrations were not run', async () => {
      const storage = new PrismaSessionStorage(database.prisma, { keyring, connectionRetries: 0 });

      const error = await storage.findSessionsByShop('shop.myshopify.com').then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(MissingSessionTableError);
      const cause = (error as MissingSessionTableError).cause as { code?: string; message: string };
      expect(cause.code).toBe('P2021');
      expect(cause.message).toMatch(/Session.*does not exist in the current database/);
      // Every method reports it, and keeps reporting it.
      await expect(storage.loadSession('any')).rejects.toBeInstanceOf(MissingSessionTableError);
      await expect(storage.storeSession(offlineSession('x.myshopify.com'))).rejects.toBeInstanceOf(
        MissingSessionTableError,
      );
    });

    it('defaults to 3 tries with 5s intervals', async () => {
      const sleeps = instantSleeps(5000);
      const count = vi.spyOn(database.prisma.session, 'count');
      const storage = new PrismaSessionStorage(database.prisma, { keyring });

      await expect(storage.findSessionsByShop('shop.myshopify.com')).rejects.toThrow(
        MissingSessionTableError,
      );

      expect(sleeps()).toHaveLength(2);
      expect(count).toHaveBeenCalledTimes(3);
    });

    it('allows overriding connection retry settings', async () => {
      const sleeps = instantSleeps(1000);
      const count = vi.spyOn(database.prisma.session, 'count');
      const storage = new PrismaSessionStorage(database.prisma, {
        keyring,
        connectionRetries: 5,
        connectionRetryIntervalMs: 1000,
      });

      await expect(storage.findSessionsByShop('shop.myshopify.com')).rejects.toThrow(
        MissingSessionTableError,
      );

      expect(sleeps()).toHaveLength(5);
      expect(count).toHaveBeenCalledTimes(6);
    });

    it('isReady() reports the missing table, then finds it once it exists', async () => {
      const storage = new PrismaSessionStorage(database.prisma, { keyring, connectionRetries: 0 });
      await expect(storage.isReady()).resolves.toBe(false);
      await expect(storage.loadSession('any')).rejects.toBeInstanceOf(MissingSessionStorageError);

      // Create the table through this very client, from the committed migration. (Not with
      // applyMigrations: on SQLite the schema engine wants the file to itself, and this client has it open.)
      await runCommittedMigration(database, '_sessions');
      await expect(storage.isReady()).resolves.toBe(true);
      const session = offlineSession('late.myshopify.com');
      await expect(storage.storeSession(session)).resolves.toBe(true);
      expect(session.equals(await storage.loadSession(session.id))).toBe(true);
    });
  });
});
