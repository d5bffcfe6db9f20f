import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/client.js';
import { createMigration, createMigrations, migrationSlug } from '../../tools/db/create-migration.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { migrationsDirFor, SCHEMA_PATH } from '../../src/db/paths.js';
import { DATABASE_PROVIDERS, type DatabaseProvider } from '../../src/db/provider.js';
import { derivePostgresSchema, type SchemaFile } from '../../src/db/schema.js';
import { createEmptyTestDatabase, testPostgresAdminUrl } from '../helpers/database.js';

/** A schema in the source (sqlite) dialect, as the schema engine gets it for `provider`. */
function schemaFor(provider: DatabaseProvider, sqliteSchema: string): SchemaFile {
  return provider === 'sqlite'
    ? { path: SCHEMA_PATH, content: sqliteSchema }
    : { path: '/virtual/schema.postgresql.prisma', content: derivePostgresSchema(sqliteSchema) };
}

const HEADER = `
generator client {
  provider = "prisma-client"
  output   = "../src/generated/sqlite"
}

datasource db {
  provider = "sqlite"
}
`;

/** Exercises what the real models will need: relations, composite indexes, defaults, scalar types. */
const RICH_SCHEMA = `${HEADER}
model Shop {
  id          String        @id @default(uuid())
  domain      String        @unique
  active      Boolean       @default(true)
  retries     Int           @default(0)
  score       Float?
  bytes       BigInt?
  settings    String        @default("{}")
  createdAt   DateTime      @default(now())
  updatedAt   DateTime      @updatedAt
  fulfilments Fulfilment[]
}

model Fulfilment {
  id        String   @id @default(uuid())
  shopId    String
  shop      Shop     @relation(fields: [shopId], references: [id], onDelete: Cascade)
  number    String
  status    String   @default("pending")
  syncedAt  DateTime?

  @@unique([shopId, number])
  @@index([status, syncedAt])
}
`;

describe.each(DATABASE_PROVIDERS)('createMigration on %s', (provider) => {
  const options = { postgresAdminUrl: testPostgresAdminUrl() };
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'tracksync-create-migration-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('finds the committed migrations in step with prisma/schema.prisma', async () => {
    await cp(migrationsDirFor(provider), dir, { recursive: true });
    const result = await createMigration('drift check', provider, { ...options, migrationsDir: dir });
    // If this fails, run `npm run db:migration:create -- <name>` after changing the schema.
    expect(result).toEqual({ status: 'no-changes', provider });
  });

  it('writes an initial migration and lockfile, then reports no changes', async () => {
    const schema = schemaFor(provider, RICH_SCHEMA);
    const created = await createMigration('Init: rich models', provider, {
      ...options,
      migrationsDir: dir,
      schema,
      timestamp: '20250101000000',
    });
    expect(created).toMatchObject({ status: 'created', name: '20250101000000_init_rich_models' });
    expect(await readdir(dir)).toEqual(['20250101000000_init_rich_models', 'migration_lock.toml']);
    expect(await readFile(path.join(dir, 'migration_lock.toml'), 'utf8')).toContain(
      `provider = "${provider}"`,
    );
    const sql = await readFile(path.join(dir, '20250101000000_init_rich_models', 'migration.sql'), 'utf8');
    expect(sql).toContain('CREATE TABLE "Fulfilment"');
    expect(sql).toContain('FOREIGN KEY ("shopId")');

    const again = await createMigration('again', provider, {
      ...options,
      migrationsDir: dir,
      schema,
      timestamp: '20250101000001',
    });
    expect(again).toEqual({ status: 'no-changes', provider });
  });

  it('writes only the change for an edited schema, and the result applies', async () => {
    await createMigration('init', provider, {
      ...options,
      migrationsDir: dir,
      schema: schemaFor(provider, RICH_SCHEMA),
      timestamp: '20250101000000',
    });
    const edited = RICH_SCHEMA.replace('syncedAt  DateTime?', 'syncedAt  DateTime?\n  carrier   String?');
    const change = await createMigration('add carrier', provider, {
      ...options,
      migrationsDir: dir,
      schema: schemaFor(provider, edited),
      timestamp: '20250102000000',
    });
    expect(change.status).toBe('created');
    if (change.status !== 'created') return;
    expect(change.script).toMatch(/"carrier" TEXT/);
    expect(change.script).not.toMatch(/CREATE TABLE "Shop"/);

    const database = await createEmptyTestDatabase(provider);
    try {
      expect(await applyMigrations(database.url, { migrationsDir: dir })).toEqual({
        applied: ['20250101000000_init', '20250102000000_add_carrier'],
      });
    } finally {
      await database.cleanup();
    }
  });

  it('refuses a name that would not sort after the latest migration', async () => {
    await createMigration('init', provider, {
      ...options,
      migrationsDir: dir,
      schema: schemaFor(provider, RICH_SCHEMA),
      timestamp: '20250102000000',
    });
    await expect(
      createMigration('older', provider, { ...options, migrationsDir: dir, timestamp: '20250101000000' }),
    ).rejects.toThrow(/would not sort after/);
  });
});

describe('createMigrations', () => {
  it('writes the same folder name for both providers, with SQL that works through the client', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'tracksync-create-migrations-'));
    try {
      const results = await createMigrations('init', DATABASE_PROVIDERS, {
        postgresAdminUrl: testPostgresAdminUrl(),
        migrationsDirFor: (provider) => path.join(root, provider),
      });
      expect(results.map((r) => r.status)).toEqual(['created', 'created']);
      const names = results.map((r) => (r.status === 'created' ? r.name : ''));
      expect(names[0]).toMatch(/^\d{14}_init$/);
      expect(names[1]).toBe(names[0]);

      for (const provider of DATABASE_PROVIDERS) {
        const database = await createEmptyTestDatabase(provider);
        try {
          await applyMigrations(database.url, { migrationsDir: path.join(root, provider) });
          const db = await createDatabase(database.url);
          try {
            await db.prisma.shop.create({ data: { domain: `${provider}.myshopify.com` } });
            expect(await db.prisma.shop.count()).toBe(1);
          } finally {
            await db.close();
          }
        } finally {
          await database.cleanup();
        }
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('slugs migration names like prisma migrate dev', () => {
    expect(migrationSlug('Add tracking events!')).toBe('add_tracking_events');
    expect(() => migrationSlug('  --  ')).toThrow();
  });
});

describe('migration timestamps', () => {
  it('sorts a new migration after one written by a machine whose clock was ahead', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tracksync-future-'));
    try {
      await createMigration('init', 'sqlite', {
        migrationsDir: dir,
        schema: schemaFor('sqlite', RICH_SCHEMA),
        timestamp: '29991231235959',
      });
      const edited = RICH_SCHEMA.replace('syncedAt  DateTime?', 'syncedAt  DateTime?\n  carrier   String?');
      const next = await createMigration('add carrier', 'sqlite', {
        migrationsDir: dir,
        schema: schemaFor('sqlite', edited),
      });
      expect(next).toMatchObject({ status: 'created', name: '30000101000000_add_carrier' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
