import { afterAll, beforeAll, beforeEach, inject } from 'vitest';
import { createDatabase, type Database, type DatabaseClient } from '../../src/db/client.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { type DatabaseProvider, isDatabaseProvider } from '../../src/db/provider.js';
import { createScratchDatabase, DEFAULT_POSTGRES_ADMIN_URL } from '../../tools/db/scratch.js';
import { resetDatabase } from './factories.js';

/**
 * The provider tests use when they do not name one: TEST_DATABASE_PROVIDER (sqlite | postgresql),
 * default sqlite. Lets the whole suite run once per provider.
 */
export function defaultTestProvider(env: Record<string, string | undefined> = process.env): DatabaseProvider {
  const value = env.TEST_DATABASE_PROVIDER ?? 'sqlite';
  if (!isDatabaseProvider(value))
    throw new Error(`TEST_DATABASE_PROVIDER must be sqlite or postgresql, got "${value}"`);
  return value;
}

/**
 * PostgreSQL server on which test databases are created: POSTGRES_ADMIN_URL, which the run's global setup
 * (test/helpers/postgres-server.ts) sets to the server it chose or started; outside vitest, unset, the
 * local `postgres`.
 */
export function testPostgresAdminUrl(): string {
  return process.env.POSTGRES_ADMIN_URL ?? DEFAULT_POSTGRES_ADMIN_URL;
}

export interface EmptyTestDatabase {
  url: string;
  provider: DatabaseProvider;
  /** Drops the database (PostgreSQL) or deletes its temp folder (SQLite). Safe to call twice. */
  cleanup(): Promise<void>;
}

export interface TestDatabase extends EmptyTestDatabase {
  prisma: DatabaseClient;
  /** Migration names applied when the database was created. */
  migrations: string[];
}

/**
 * A fresh, empty, unmigrated database: a file in a new temp folder (SQLite) or a new database
 * `tracksync_test_<random>` on the test PostgreSQL server.
 */
export async function createEmptyTestDatabase(
  provider: DatabaseProvider = defaultTestProvider(),
): Promise<EmptyTestDatabase> {
  const scratch = await createScratchDatabase(provider, {
    prefix: 'tracksync_test',
    postgresAdminUrl: testPostgresAdminUrl(),
  });
  return { url: scratch.url, provider, cleanup: () => scratch.drop() };
}

/** The run's template under `npm test`; none outside vitest (`npm run bench:page` uses these helpers). */
function runTemplate(): ReturnType<typeof inject<'templateDatabase'>> | undefined {
  try {
    return inject('templateDatabase');
  } catch {
    return undefined;
  }
}

/**
 * A fresh database with every migration of prisma/migrations/<provider> applied and a connected
 * client (created like the app does, see createDatabase). Call `cleanup()` in afterAll/afterEach.
 *
 * Under `npm test` it is a copy of the run's migrated template (test/helpers/template-database.ts);
 * without one (another provider than the project's, the reliability suite) the migrations are applied.
 */
export async function createTestDatabase(
  provider: DatabaseProvider = defaultTestProvider(),
): Promise<TestDatabase> {
  const template = runTemplate();
  const copy = template?.provider === provider ? template : undefined;
  const scratch = await createScratchDatabase(provider, {
    prefix: 'tracksync_test',
    postgresAdminUrl: testPostgresAdminUrl(),
    template: copy?.template,
  });
  try {
    const migrations = copy ? copy.migrations : (await applyMigrations(scratch.url)).applied;
    const database = await createDatabase(scratch.url);
    let cleaning: Promise<void> | undefined;
    return {
      url: scratch.url,
      provider,
      prisma: database.prisma,
      migrations,
      cleanup: () => {
        cleaning ??= database.close().finally(() => scratch.drop());
        return cleaning;
      },
    };
  } catch (error) {
    await scratch.drop();
    throw error;
  }
}

export interface TestDatabaseOptions {
  /** The database to make; default the suite's (defaultTestProvider()). */
  provider?: DatabaseProvider;
  /** Empty the tables the core modules write (resetDatabase) before each test of the block. */
  reset?: boolean;
  /** The create hook's timeout in ms; default the config's hookTimeout. */
  timeout?: number;
}

/**
 * The test database of the enclosing file or describe block: registers a beforeAll that creates it
 * (createTestDatabase), an afterAll that drops it and, with `reset`, a beforeEach that empties it.
 * Call it first in the block: afterAll hooks run in reverse order (vitest's sequence.hooks 'stack'), so
 * the database is dropped last, after the block's own afterAll closes what uses it, and beforeAll/
 * beforeEach hooks run in order, so the block's own hooks find it ready (and emptied).
 *
 * The handle's fields are read inside hooks and tests; `provider` is known at once, the others throw
 * until the create hook has run.
 */
export function useTestDatabase(options: TestDatabaseOptions = {}): TestDatabase {
  const provider = options.provider ?? defaultTestProvider();
  let database: TestDatabase | undefined;
  const ready = (field: string): TestDatabase => {
    if (!database)
      throw new Error(
        `useTestDatabase(): ${field} was read before the database was created (read it in a hook or a test, after its beforeAll)`,
      );
    return database;
  };
  beforeAll(async () => {
    database = await createTestDatabase(provider);
  }, options.timeout);
  afterAll(async () => {
    await database?.cleanup();
  });
  if (options.reset)
    beforeEach(async () => {
      await resetDatabase(ready('prisma').prisma);
    });
  return {
    provider,
    get url() {
      return ready('url').url;
    },
    get prisma() {
      return ready('prisma').prisma;
    },
    get migrations() {
      return ready('migrations').migrations;
    },
    cleanup: async () => {
      await database?.cleanup();
    },
  };
}

/**
 * Another connection to a useTestDatabase() database, as another process would hold one (the concurrency
 * tests): opened after the database is created, closed before it is dropped. Call it after
 * useTestDatabase, in the same block; its `prisma` throws until its beforeAll has run.
 */
export function useOtherConnection(db: TestDatabase): Database {
  let other: Database | undefined;
  beforeAll(async () => {
    other = await createDatabase(db.url);
  });
  afterAll(async () => {
    await other?.close();
  });
  return {
    get provider() {
      return db.provider;
    },
    get prisma() {
      if (!other)
        throw new Error(
          'useOtherConnection(): prisma was read before the connection was opened (read it in a hook or a test)',
        );
      return other.prisma;
    },
    close: async () => {
      await other?.close();
    },
  };
}
