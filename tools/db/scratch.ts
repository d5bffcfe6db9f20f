import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import type { DatabaseProvider } from '../../src/db/provider.js';

/** Server-level connection used to create and drop throw-away PostgreSQL databases. */
export const DEFAULT_POSTGRES_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** A throw-away, empty database. `drop()` removes it and is safe to call twice. */
export interface ScratchDatabase {
  url: string;
  provider: DatabaseProvider;
  drop(): Promise<void>;
}

export interface ScratchDatabaseOptions {
  /** Prefix of the database (PostgreSQL) or temp folder (SQLite) name. Lowercase letters, digits, `_`. */
  prefix?: string;
  /** PostgreSQL server connection (default {@link DEFAULT_POSTGRES_ADMIN_URL}). */
  postgresAdminUrl?: string;
  /**
   * Start as a copy of this database instead of empty. SQLite: the path of a database file, copied as it
   * is (close its connections first, so no change waits in a -wal file). PostgreSQL: the name of a
   * database on the same server, copied with CREATE DATABASE … TEMPLATE (nobody may be connected to it).
   */
  template?: string;
}

/** The same server URL pointing at another database. */
export function withDatabaseName(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

function assertIdentifier(name: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`Refusing unsafe database name "${name}"`);
}

async function runOnServer(adminUrl: string, sql: string): Promise<void> {
  const adapter = await new PrismaPg({ connectionString: adminUrl }).connect();
  try {
    await adapter.executeScript(sql);
  } finally {
    await adapter.dispose();
  }
}

/**
 * Creates the database, empty or as a copy of `template`. PostgreSQL refuses the copy while another
 * session is connected to the template ("source database … is being accessed by other users"), which a
 * concurrent copy can briefly be: tried up to 20 times, 100 ms apart.
 */
export async function createPostgresDatabase(
  adminUrl: string,
  name: string,
  template?: string,
): Promise<void> {
  assertIdentifier(name);
  if (template === undefined) return runOnServer(adminUrl, `CREATE DATABASE "${name}"`);
  assertIdentifier(template);
  for (let attempt = 1; ; attempt++) {
    try {
      return await runOnServer(adminUrl, `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
    } catch (error) {
      if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Drops the database, disconnecting any session still using it (PostgreSQL 13+). */
export async function dropPostgresDatabase(adminUrl: string, name: string): Promise<void> {
  assertIdentifier(name);
  await runOnServer(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

/**
 * A fresh database, empty or a copy of `options.template`: a file in a new temp folder for SQLite, or a
 * new database `<prefix>_<random>` on the PostgreSQL server for PostgreSQL.
 */
export async function createScratchDatabase(
  provider: DatabaseProvider,
  options: ScratchDatabaseOptions = {},
): Promise<ScratchDatabase> {
  const prefix = options.prefix ?? 'tracksync_scratch';
  const suffix = randomBytes(6).toString('hex');
  if (provider === 'sqlite') {
    const dir = await mkdtemp(path.join(os.tmpdir(), `${prefix}_`));
    const file = path.join(dir, 'scratch.db');
    if (options.template !== undefined) {
      await copyFile(options.template, file).catch(async (error: unknown) => {
        await rm(dir, { recursive: true, force: true });
        throw error;
      });
    }
    return {
      provider,
      url: `file:${file}`,
      drop: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const adminUrl = options.postgresAdminUrl ?? DEFAULT_POSTGRES_ADMIN_URL;
  const name = `${prefix}_${suffix}`;
  await createPostgresDatabase(adminUrl, name, options.template);
  let dropped: Promise<void> | undefined;
  return {
    provider,
    url: withDatabaseName(adminUrl, name),
    drop: () => {
      dropped ??= dropPostgresDatabase(adminUrl, name);
      return dropped;
    },
  };
}
