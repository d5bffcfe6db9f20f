/**
 * Applying migrations without Prisma's native schema engine: `@prisma/schema-engine-wasm` driven through
 * the app's own driver adapters (better-sqlite3 / pg). Each provider has its own history in
 * `prisma/migrations/<provider>/<timestamp>_<name>/migration.sql` + `migration_lock.toml`, the layout
 * and `_prisma_migrations` bookkeeping of `prisma migrate deploy`, so both paths stay interchangeable.
 *
 * Runtime code: the app and the CLI apply pending migrations at start (so @prisma/schema-engine-wasm and
 * @prisma/driver-adapter-utils are dependencies). Creating migrations is tooling: tools/db/create-migration.ts.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { MigrationDirectory, MigrationList } from '@prisma/schema-engine-wasm/schema_engine_bg';
import { createAdapterFactory, ensureSqliteParentDir } from './adapters.js';
import { migrationsDirFor } from './paths.js';
import { type DatabaseProvider, providerFromUrl, sqliteFilePath } from './provider.js';
import { NO_FILTER, withSchemaEngine } from './schema-engine.js';

/** The provider lock of a migrations folder (`prisma/migrations/<provider>/migration_lock.toml`). */
export const LOCKFILE = 'migration_lock.toml';
/** The script of one migration (`<timestamp>_<name>/migration.sql`). */
export const MIGRATION_FILE = 'migration.sql';

export interface MigrationOptions {
  /** Default: `prisma/migrations/<provider of the URL>`. */
  migrationsDir?: string;
  /** Receives the schema engine's JSON log lines. */
  onLog?: (line: string) => void;
}

/**
 * Reads a migrations folder the way the Prisma CLI does: every sub-folder is a migration (sorted by
 * name) whose script is `migration.sql`; `migration_lock.toml` names the provider. A missing folder is
 * an empty history.
 */
export async function readMigrationsList(
  migrationsDir: string,
  provider: DatabaseProvider,
): Promise<MigrationList> {
  const baseDir = path.resolve(migrationsDir);
  const lockContent = await readFile(path.join(baseDir, LOCKFILE), 'utf8').catch(() => null);
  if (lockContent !== null) {
    const locked = /^\s*provider\s*=\s*"([^"]+)"/m.exec(lockContent)?.[1];
    if (locked !== undefined && locked !== provider) {
      throw new Error(`${path.join(baseDir, LOCKFILE)} is for provider "${locked}", not "${provider}"`);
    }
  }
  const entries = await readdir(baseDir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const migrationDirectories: MigrationDirectory[] = [];
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const content = await readFile(path.join(baseDir, entry.name, MIGRATION_FILE), 'utf8').then(
      (value) => ({ tag: 'ok' as const, value }),
      (error: Error) => ({ tag: 'error' as const, value: error.message }),
    );
    migrationDirectories.push({ path: entry.name, migrationFile: { path: MIGRATION_FILE, content } });
  }
  return {
    baseDir,
    lockfile: { path: LOCKFILE, content: lockContent },
    shadowDbInitScript: '',
    migrationDirectories,
  };
}

/**
 * Applies the pending migrations to the database (creating the SQLite file and its folder if needed)
 * and records them in `_prisma_migrations`. Idempotent: returns the names applied by this call.
 */
export async function applyMigrations(
  databaseUrl: string,
  options: MigrationOptions = {},
): Promise<{ applied: string[] }> {
  const provider = providerFromUrl(databaseUrl);
  const migrationsList = await readMigrationsList(
    options.migrationsDir ?? migrationsDirFor(provider),
    provider,
  );
  if (provider === 'sqlite') await ensureSqliteParentDir(databaseUrl);
  // Nothing to do: leave the engine out. On SQLite it puts its connection in EXCLUSIVE locking mode,
  // which fails (SQLITE_BUSY) while any other process has the database open: a second app process, or
  // an operator command next to the running app, could not start even with no migration pending.
  if (await upToDate(databaseUrl, migrationsList).catch(() => false)) return { applied: [] };
  // Applying needs only the migration scripts, not prisma/schema.prisma.
  return withSchemaEngine({ databaseUrl, onLog: options.onLog }, async (engine) => {
    const output = await engine.applyMigrations({ migrationsList, filters: NO_FILTER });
    return { applied: output.appliedMigrationNames };
  });
}

/** Every local migration is recorded as finished, and none is half-applied. Reads only. */
async function upToDate(databaseUrl: string, migrationsList: MigrationList): Promise<boolean> {
  const rows = await readAppliedRows(databaseUrl);
  if (rows.some((r) => !r.finished && !r.rolledBack)) return false; // let the engine report it
  const applied = new Set(rows.filter((r) => r.finished && !r.rolledBack).map((r) => r.name));
  return migrationsList.migrationDirectories.every((d) => applied.has(d.path));
}

export interface MigrationStatus {
  /** Migrations recorded as finished (and not rolled back), in the order they were applied. */
  applied: string[];
  /** Local migrations not applied yet, in the order they will be applied. */
  pending: string[];
  /** Migrations recorded as started but neither finished nor rolled back. */
  failed: string[];
}

async function readAppliedRows(
  databaseUrl: string,
): Promise<{ name: string; finished: boolean; rolledBack: boolean }[]> {
  const { provider, factory } = createAdapterFactory(databaseUrl);
  if (provider === 'sqlite') {
    const file = sqliteFilePath(databaseUrl);
    if (file !== ':memory:' && !existsSync(file)) return []; // do not create the file just to look
  }
  const adapter = await factory.connect();
  try {
    const tableSql =
      provider === 'sqlite'
        ? `SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'`
        : `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = '_prisma_migrations'`;
    const table = await adapter.queryRaw({ sql: tableSql, args: [], argTypes: [] });
    if (table.rows.length === 0) return [];
    const result = await adapter.queryRaw({
      sql: 'SELECT migration_name, finished_at, rolled_back_at FROM _prisma_migrations ORDER BY started_at, migration_name',
      args: [],
      argTypes: [],
    });
    return result.rows.map(([name, finishedAt, rolledBackAt]) => ({
      name: String(name),
      finished: finishedAt !== null,
      rolledBack: rolledBackAt !== null,
    }));
  } finally {
    await adapter.dispose();
  }
}

/** Compares the migrations folder with `_prisma_migrations`, without changing anything. */
export async function migrationStatus(
  databaseUrl: string,
  options: Pick<MigrationOptions, 'migrationsDir'> = {},
): Promise<MigrationStatus> {
  const provider = providerFromUrl(databaseUrl);
  const local = await readMigrationsList(options.migrationsDir ?? migrationsDirFor(provider), provider);
  const rows = await readAppliedRows(databaseUrl);
  const applied = [...new Set(rows.filter((r) => r.finished && !r.rolledBack).map((r) => r.name))];
  const appliedSet = new Set(applied);
  const failed = [...new Set(rows.filter((r) => !r.finished && !r.rolledBack).map((r) => r.name))].filter(
    (name) => !appliedSet.has(name),
  );
  const pending = local.migrationDirectories.map((d) => d.path).filter((name) => !appliedSet.has(name));
  return { applied, pending, failed };
}
