import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/client.js';
import { applyMigrations, migrationStatus } from '../../src/db/migrate.js';
import { migrationsDirFor } from '../../src/db/paths.js';
import { DATABASE_PROVIDERS, type DatabaseProvider } from '../../src/db/provider.js';
import { createEmptyTestDatabase, type EmptyTestDatabase } from '../helpers/database.js';

async function localMigrations(provider: DatabaseProvider): Promise<string[]> {
  const entries = await readdir(migrationsDirFor(provider), { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
  rolled_back_at: unknown;
}

async function migrationRows(url: string): Promise<MigrationRow[]> {
  const db = await createDatabase(url);
  try {
    return await db.prisma.$queryRawUnsafe<MigrationRow[]>(
      'SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations ORDER BY migration_name',
    );
  } finally {
    await db.close();
  }
}

describe.each(DATABASE_PROVIDERS)('migrations on %s', (provider) => {
  let database: EmptyTestDatabase | undefined;
  afterEach(async () => {
    await database?.cleanup();
    database = undefined;
  });

  it('has a committed migration history with a lockfile for the provider', async () => {
    expect(await localMigrations(provider)).not.toHaveLength(0);
    expect(existsSync(path.join(migrationsDirFor(provider), 'migration_lock.toml'))).toBe(true);
  });

  it('applies every migration to a fresh database, then nothing the second time', async () => {
    database = await createEmptyTestDatabase(provider);
    const local = await localMigrations(provider);

    expect(await migrationStatus(database.url)).toEqual({ applied: [], pending: local, failed: [] });
    expect(await applyMigrations(database.url)).toEqual({ applied: local });
    expect(await applyMigrations(database.url)).toEqual({ applied: [] });
    expect(await migrationStatus(database.url)).toEqual({ applied: local, pending: [], failed: [] });
  });

  it('records each migration in _prisma_migrations as finished', async () => {
    database = await createEmptyTestDatabase(provider);
    await applyMigrations(database.url);

    const rows = await migrationRows(database.url);
    expect(rows.map((r) => r.migration_name)).toEqual(await localMigrations(provider));
    for (const row of rows) {
      expect(row.finished_at).not.toBeNull();
      expect(row.rolled_back_at).toBeNull();
      expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('applies only the migrations added since the last run', async () => {
    database = await createEmptyTestDatabase(provider);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tracksync-migrations-'));
    try {
      await cp(migrationsDirFor(provider), dir, { recursive: true });
      await applyMigrations(database.url, { migrationsDir: dir });

      const extra = '99991231235959_add_probe';
      await mkdir(path.join(dir, extra));
      await writeFile(
        path.join(dir, extra, 'migration.sql'),
        'CREATE TABLE "Probe" ("id" TEXT NOT NULL PRIMARY KEY);\n',
      );

      expect(await migrationStatus(database.url, { migrationsDir: dir })).toMatchObject({ pending: [extra] });
      expect(await applyMigrations(database.url, { migrationsDir: dir })).toEqual({ applied: [extra] });
      expect(await applyMigrations(database.url, { migrationsDir: dir })).toEqual({ applied: [] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a migrations folder locked to the other provider', async () => {
    database = await createEmptyTestDatabase(provider);
    const other = provider === 'sqlite' ? 'postgresql' : 'sqlite';
    await expect(applyMigrations(database.url, { migrationsDir: migrationsDirFor(other) })).rejects.toThrow(
      /migration_lock\.toml is for provider/,
    );
  });
});

describe('migrations on sqlite files', () => {
  it('creates the database folder when missing, and status does not create the file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tracksync-sqlite-'));
    try {
      const url = `file:${path.join(dir, 'nested', 'deeper', 'dev.db')}`;
      const status = await migrationStatus(url);
      expect(status.applied).toEqual([]);
      expect(existsSync(path.join(dir, 'nested'))).toBe(false);

      expect((await applyMigrations(url)).applied).toEqual(await localMigrations('sqlite'));
      expect(existsSync(path.join(dir, 'nested', 'deeper', 'dev.db'))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
