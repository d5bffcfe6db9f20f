import type { Prisma, PrismaClient } from '../generated/sqlite/client.js';
import { registerProvider } from './provider-of.js';
import { createAdapterFactory, ensureSqliteParentDir, SQLITE_BUSY_TIMEOUT_MS } from './adapters.js';
import { type DatabaseProvider, sqliteFilePath } from './provider.js';
import { type DirectPg, withNamedStatements } from './pg-named-statements.js';
import { startCheckpointer } from './sqlite-checkpointer.js';
import { type DirectSqlite, withStatementCache } from './sqlite-statement-cache.js';

/**
 * The Prisma client type used throughout the app. Both generated clients (src/generated/sqlite and
 * src/generated/postgresql) come from the same models, so their model APIs are identical; the SQLite
 * one is the nominal type.
 */
export type DatabaseClient = PrismaClient;

export interface Database {
  readonly prisma: DatabaseClient;
  readonly provider: DatabaseProvider;
  /** Disconnects the client and closes the driver (SQLite file handle / pg pool). Idempotent. */
  close(): Promise<void>;
}

/**
 * Connects to DATABASE_URL: `file:...` → SQLite (better-sqlite3), `postgres(ql)://...` → PostgreSQL
 * (pg). Does not migrate: run `npm run db:migrate` (or applyMigrations from ./migrate.js) first.
 *
 * SQLite: creates the file's folder if missing and sets, on the client's connection,
 * `journal_mode=WAL` (persistent, lets readers work during a write), `synchronous=NORMAL` (safe with
 * WAL, far fewer fsyncs) and `busy_timeout` (wait for locks instead of failing with SQLITE_BUSY).
 */
export async function createDatabase(
  databaseUrl: string,
  options: {
    /** A SQLite checkpoint that failed on its thread (the commits' own checkpoint is the backstop). */
    onCheckpointError?: (message: string) => void;
  } = {},
): Promise<Database> {
  const { provider, factory: adapter } = createAdapterFactory(databaseUrl);
  let prisma: DatabaseClient;
  if (provider === 'sqlite') {
    await ensureSqliteParentDir(databaseUrl);
    const { PrismaClient } = await import('../generated/sqlite/client.js');
    // Each SQL text prepared once per connection, not on every query; the hot inserts run on the same
    // connection past the ORM (src/db/sqlite-statement-cache.ts).
    let direct: DirectSqlite | null = null;
    prisma = new PrismaClient({ adapter: withStatementCache(adapter, (d) => (direct = d)) });
    directConnections.set(prisma, () => direct);
  } else {
    const { PrismaClient } = await import('../generated/postgresql/client.js');
    // The hot statements run on the same pool past the ORM, as named prepared statements
    // (src/db/pg-named-statements.ts).
    let direct: DirectPg | null = null;
    // Same models, different provider: the PostgreSQL client's model API is identical to the SQLite
    // client's, but TypeScript sees two unrelated generated classes, hence the cast.
    prisma = new PrismaClient({
      adapter: withNamedStatements(adapter, (d) => (direct = d)),
    }) as unknown as DatabaseClient;
    directPgConnections.set(prisma, () => direct);
  }

  try {
    if (provider === 'sqlite') {
      await configureSqlite(prisma, sqliteFilePath(databaseUrl) === ':memory:');
    } else {
      await prisma.$queryRawUnsafe('SELECT 1'); // fail fast on a bad URL or an unreachable server
    }
  } catch (error) {
    await prisma.$disconnect().catch(() => {});
    throw error;
  }

  registerProvider(prisma, provider);
  // SQLite's checkpoints on a thread of their own, off the event loop (src/db/sqlite-checkpointer.ts).
  const file = provider === 'sqlite' ? sqliteFilePath(databaseUrl) : ':memory:';
  const checkpointer =
    file === ':memory:'
      ? null
      : startCheckpointer(file, {
          busyTimeoutMs: SQLITE_BUSY_TIMEOUT_MS,
          ...(options.onCheckpointError ? { onError: options.onCheckpointError } : {}),
        });
  let closing: Promise<void> | undefined;
  return {
    prisma,
    provider,
    close: () => {
      closing ??= (async () => {
        await checkpointer?.stop();
        await prisma.$disconnect();
      })();
      return closing;
    },
  };
}

/** WAL pages after which a commit copies the log into the database file (SQLite's default: 1 000). */
export const SQLITE_WAL_CHECKPOINT_PAGES = 10_000;

async function configureSqlite(prisma: DatabaseClient, inMemory: boolean): Promise<void> {
  // The adapter opens one better-sqlite3 connection per client, so these per-connection pragmas hold
  // for every query the client runs. busy_timeout first: switching to WAL needs a lock.
  await prisma.$queryRawUnsafe(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  const [mode] = await prisma.$queryRawUnsafe<{ journal_mode: string }[]>('PRAGMA journal_mode = WAL');
  if (!inMemory && mode?.journal_mode !== 'wal') {
    throw new Error(`Could not switch SQLite to WAL mode (journal_mode is ${String(mode?.journal_mode)})`);
  }
  await prisma.$executeRawUnsafe('PRAGMA synchronous = NORMAL');
  // The checkpointer thread copies the log into the database file (src/db/sqlite-checkpointer.ts); a commit
  // does it itself only past 10 000 pages (40 MB; SQLite's default is 1 000), the backstop should that
  // thread fall behind. A busy index page changed by many commits is copied once per checkpoint.
  await prisma.$executeRawUnsafe(`PRAGMA wal_autocheckpoint = ${SQLITE_WAL_CHECKPOINT_PAGES}`);
  // Deleted and overwritten content is zeroed, not left in free pages: a secret replaced by its sealed
  // form (store tokens written before they were sealed) must not stay readable in the file.
  await prisma.$executeRawUnsafe('PRAGMA secure_delete = ON');
}

const directConnections = new WeakMap<object, () => DirectSqlite | null>();
const directPgConnections = new WeakMap<object, () => DirectPg | null>();

/**
 * Statements straight on a SQLite client's connection (serialised with its transactions), or null: on
 * PostgreSQL, inside a transaction (`db` is then the transaction's client), or before the client connected.
 */
export function directSqliteOf(db: object): DirectSqlite | null {
  return directConnections.get(db)?.() ?? null;
}

/**
 * Named prepared statements on a PostgreSQL client's pool, or null: on SQLite, inside a transaction, or before
 * the client connected.
 */
export function directPgOf(db: object): DirectPg | null {
  return directPgConnections.get(db)?.() ?? null;
}

/** The client handed to an interactive transaction's callback. */
export type Tx = Prisma.TransactionClient;

/** A unique constraint refused the write (Prisma's P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'P2002';
}
