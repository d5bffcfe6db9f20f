import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { Session } from '@shopify/shopify-api';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseKeyring, SecretUnreadableError } from '../../src/shops/crypto.js';
import { PrismaSessionStorage } from '../../src/shops/session-storage.js';
import { useTestDatabase } from '../helpers/database.js';
import { uniqueDomain } from '../helpers/factories.js';

/**
 * The store's access and refresh tokens are sealed at rest with the ENCRYPTION_KEY keyring (AES-256-GCM,
 * key id beside each ciphertext), like the service API keys: what the database holds — read here from the
 * raw SQLite files, or the table's file on PostgreSQL, old row versions included — never contains a token.
 */

const db = useTestDatabase();
const key = () => randomBytes(32).toString('base64');
const k1 = key();
const k2 = key();
const keyring = parseKeyring(`k1:${k1}`);

beforeEach(async () => {
  await db.prisma.session.deleteMany({});
});

const token = () => `shpat_${randomBytes(16).toString('hex')}`;
const refresh = () => `shprt_${randomBytes(16).toString('hex')}`;

function offline(shop: string, accessToken: string, refreshToken?: string): Session {
  return new Session({
    id: `offline_${shop}`,
    shop,
    state: '',
    isOnline: false,
    accessToken,
    ...(refreshToken ? { refreshToken, refreshTokenExpires: new Date(Date.now() + 86_400_000) } : {}),
  });
}

/** Every byte the database keeps for the Session table, as text. */
async function rawStorage(): Promise<string> {
  if (db.provider === 'postgresql') {
    // The table's file as written to disk (every row version it still holds, dead ones included), read
    // through the server (pg_read_binary_file: the test server's superuser) after a checkpoint.
    await db.prisma.$executeRawUnsafe('CHECKPOINT');
    const [file] = await db.prisma.$queryRawUnsafe<Array<{ bytes: Uint8Array }>>(
      `SELECT pg_read_binary_file(pg_relation_filepath('"Session"')) AS bytes`,
    );
    return Buffer.from(file!.bytes).toString('latin1');
  }
  // SQLite: the database file and its write-ahead log, read as bytes.
  const file = fileURLToPath(db.url.replace(/^file:/, 'file://'));
  const dir = path.dirname(file);
  const parts = await Promise.all(
    (await readdir(dir))
      .filter((f) => f.startsWith(path.basename(file)))
      .map((f) => readFile(path.join(dir, f))),
  );
  return Buffer.concat(parts).toString('latin1');
}

/** PostgreSQL: the table's file (a rewrite gives it a new one); SQLite: none. */
async function tableFile(): Promise<string | null> {
  if (db.provider !== 'postgresql') return null;
  const [row] = await db.prisma.$queryRawUnsafe<Array<{ path: string }>>(
    `SELECT pg_relation_filepath('"Session"') AS path`,
  );
  return row!.path;
}

describe('store tokens at rest', () => {
  it('are sealed: neither token is found in what the database holds, and they read back as stored', async () => {
    const storage = new PrismaSessionStorage(db.prisma, { keyring });
    const shop = uniqueDomain('sealed');
    const [access, renew] = [token(), refresh()];
    await storage.storeSession(offline(shop, access, renew));

    const raw = await rawStorage();
    expect(raw).not.toContain(access);
    expect(raw).not.toContain(renew);
    expect(raw).not.toContain('shpat_');
    expect(raw).not.toContain('shprt_');
    const row = await db.prisma.session.findUniqueOrThrow({ where: { id: `offline_${shop}` } });
    expect(row.accessToken).toMatch(/^sealed:v1:k1:/);
    expect(row.refreshToken).toMatch(/^sealed:v1:k1:/);

    const loaded = await storage.loadSession(`offline_${shop}`);
    expect(loaded?.accessToken).toBe(access);
    expect(loaded?.refreshToken).toBe(renew);
    expect((await storage.findSessionsByShop(shop))[0]?.accessToken).toBe(access);
  });

  it('stored before sealing are read as they are, then sealed by the start-up pass', async () => {
    const shop = uniqueDomain('legacy');
    const [access, renew] = [token(), refresh()];
    await db.prisma.session.create({
      data: {
        id: `offline_${shop}`,
        shop,
        state: '',
        isOnline: false,
        accessToken: access,
        refreshToken: renew,
      },
    });
    const storage = new PrismaSessionStorage(db.prisma, { keyring });
    expect((await storage.loadSession(`offline_${shop}`))?.accessToken).toBe(access);

    const fileBefore = await tableFile();
    expect(await storage.sealStoredTokens()).toBe(1);
    expect(await storage.sealStoredTokens()).toBe(0); // idempotent
    if (db.provider === 'postgresql') {
      // The table was written anew (VACUUM FULL). It keeps a replaced row version only while a transaction
      // older than the sealing still runs somewhere on the server (other tests'): then it goes at the next
      // rewrite. Wait for that, rewriting as the pass did.
      expect(await tableFile()).not.toBe(fileBefore);
      for (let i = 0; i < 100 && (await rawStorage()).includes(access); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await db.prisma.$executeRawUnsafe('VACUUM FULL "Session"');
      }
    }
    const raw = await rawStorage();
    expect(raw).not.toContain(access);
    expect(raw).not.toContain(renew);
    expect((await storage.loadSession(`offline_${shop}`))?.refreshToken).toBe(renew);
  });

  it('sealed with a rotated-out key still open, and are re-sealed with the current key by the pass', async () => {
    const shop = uniqueDomain('rotate');
    const access = token();
    await new PrismaSessionStorage(db.prisma, { keyring }).storeSession(offline(shop, access));
    const rotated = new PrismaSessionStorage(db.prisma, { keyring: parseKeyring(`k2:${k2},k1:${k1}`) });
    expect((await rotated.loadSession(`offline_${shop}`))?.accessToken).toBe(access);
    expect(await rotated.sealStoredTokens()).toBe(1);
    const row = await db.prisma.session.findUniqueOrThrow({ where: { id: `offline_${shop}` } });
    expect(row.accessToken).toMatch(/^sealed:v1:k2:/);
    // Without the key they were sealed with, they cannot be read: a clear error, never the ciphertext.
    const wrong = new PrismaSessionStorage(db.prisma, { keyring: parseKeyring(`k3:${key()}`) });
    await expect(wrong.loadSession(`offline_${shop}`)).rejects.toBeInstanceOf(SecretUnreadableError);
  });
});
