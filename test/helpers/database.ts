import { inject } from 'vitest';
import { createDatabase, type DatabaseClient } from '../../src/db/client.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { type DatabaseProvider, isDatabaseProvider } from '../../src/db/provider.js';
import { createScratchDatabase, DEFAULT_POSTGRES_ADMIN_URL } from '../../tools/db/scratch.js';

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

/** PostgreSQL server on which test databases are created: POSTGRES_ADMIN_URL or the local `postgres`. */
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
