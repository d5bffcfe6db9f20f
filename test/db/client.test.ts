import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, SQLITE_WAL_CHECKPOINT_PAGES } from '../../src/db/client.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { DATABASE_PROVIDERS, providerFromUrl, sqliteFilePath } from '../../src/db/provider.js';
import { useTestDatabase } from '../helpers/database.js';

describe('providerFromUrl', () => {
  it('maps file: to sqlite and postgres(ql):// to postgresql', () => {
    expect(providerFromUrl('file:./data/dev.db')).toBe('sqlite');
    expect(providerFromUrl('postgres://postgres@127.0.0.1:5432/app')).toBe('postgresql');
    expect(providerFromUrl('postgresql://u:p@db/app?sslmode=require')).toBe('postgresql');
  });

  it('rejects other URLs without echoing the password', () => {
    expect(() => providerFromUrl('mysql://root:secret@localhost/app')).toThrow(/Unsupported DATABASE_URL/);
    expect(() => providerFromUrl('mysql://root:secret@localhost/app')).not.toThrow(/secret/);
  });

  it('resolves SQLite paths', () => {
    expect(sqliteFilePath('file:./data/dev.db', '/srv/app')).toBe('/srv/app/data/dev.db');
    expect(sqliteFilePath('file:/tmp/x/dev.db?connection_limit=1')).toBe('/tmp/x/dev.db');
    expect(sqliteFilePath('file:///tmp/x/dev.db')).toBe('/tmp/x/dev.db');
  });
});

describe.each(DATABASE_PROVIDERS)('generated client on %s', (provider) => {
  const db = useTestDatabase({ provider });

  it('round-trips a record through create, read, update and delete', async () => {
    const created = await db.prisma.shop.create({ data: { domain: `crud-${provider}.myshopify.com` } });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.createdAt).toBeInstanceOf(Date);

    const found = await db.prisma.shop.findUnique({ where: { domain: created.domain } });
    expect(found).toEqual(created);

    const updated = await db.prisma.shop.update({
      where: { id: created.id },
      data: { domain: `renamed-${provider}.myshopify.com` },
    });
    expect(updated.domain).toBe(`renamed-${provider}.myshopify.com`);
    expect(updated.updatedAt.getTime()).toBeGreaterThanOrEqual(created.updatedAt.getTime());

    await db.prisma.shop.delete({ where: { id: created.id } });
    expect(await db.prisma.shop.count({ where: { id: created.id } })).toBe(0);
  });

  it('reports unique violations with the portable Prisma code', async () => {
    await db.prisma.shop.create({ data: { domain: `unique-${provider}.myshopify.com` } });
    await expect(
      db.prisma.shop.create({ data: { domain: `unique-${provider}.myshopify.com` } }),
    ).rejects.toMatchObject({
      code: 'P2002',
    });
  });

  it('commits interactive transactions and rolls them back on error', async () => {
    await db.prisma.$transaction(async (tx) => {
      await tx.shop.create({ data: { domain: `tx-commit-${provider}.myshopify.com` } });
      await tx.shop.create({ data: { domain: `tx-commit-2-${provider}.myshopify.com` } });
    });
    expect(await db.prisma.shop.count({ where: { domain: { startsWith: 'tx-commit' } } })).toBe(2);

    await expect(
      db.prisma.$transaction(async (tx) => {
        await tx.shop.create({ data: { domain: `tx-rollback-${provider}.myshopify.com` } });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await db.prisma.shop.count({ where: { domain: { startsWith: 'tx-rollback' } } })).toBe(0);
  });

  it('runs batch transactions', async () => {
    const [a, b] = await db.prisma.$transaction([
      db.prisma.shop.create({ data: { domain: `batch-a-${provider}.myshopify.com` } }),
      db.prisma.shop.create({ data: { domain: `batch-b-${provider}.myshopify.com` } }),
    ]);
    expect([a.domain, b.domain]).toEqual([
      `batch-a-${provider}.myshopify.com`,
      `batch-b-${provider}.myshopify.com`,
    ]);
  });
});

describe('sqlite start-up', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'tracksync-client-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('creates the folder and sets WAL, synchronous=NORMAL, busy_timeout and the checkpoint size on the connection', async () => {
    const url = `file:${path.join(dir, 'missing', 'folder', 'app.db')}`;
    await applyMigrations(url);
    const db = await createDatabase(url);
    try {
      expect(db.provider).toBe('sqlite');
      const pragma = async (name: string) =>
        Object.values(
          (await db.prisma.$queryRawUnsafe<Record<string, unknown>[]>(`PRAGMA ${name}`))[0] ?? {},
        )[0];
      expect(await pragma('journal_mode')).toBe('wal');
      expect(Number(await pragma('synchronous'))).toBe(1); // NORMAL
      expect(Number(await pragma('busy_timeout'))).toBe(5000);
      expect(Number(await pragma('wal_autocheckpoint'))).toBe(SQLITE_WAL_CHECKPOINT_PAGES);
      await db.prisma.shop.create({ data: { domain: 'wal.myshopify.com' } });
    } finally {
      await db.close();
      await db.close(); // idempotent
    }
  });

  it('keeps WAL mode in the file for the next connection', async () => {
    const url = `file:${path.join(dir, 'missing', 'folder', 'app.db')}`;
    const db = await createDatabase(url);
    try {
      const [row] = await db.prisma.$queryRawUnsafe<{ journal_mode: string }[]>('PRAGMA journal_mode');
      expect(row?.journal_mode).toBe('wal');
      expect(await db.prisma.shop.count()).toBe(1);
    } finally {
      await db.close();
    }
  });
});

describe('postgresql start-up', () => {
  it('fails fast when the database does not exist', async () => {
    await expect(
      createDatabase('postgres://postgres@127.0.0.1:5432/tracksync_does_not_exist'),
    ).rejects.toThrow();
  });
});
