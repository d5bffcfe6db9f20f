import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import type {
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
} from '@prisma/driver-adapter-utils';
import { type DatabaseProvider, providerFromUrl, sqliteFilePath } from './provider.js';

/** How long SQLite waits on a locked database before failing with SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * The driver adapter factory the app uses for a DATABASE_URL. The migration code uses the very same
 * factories (wrapped by {@link MigrationAdapterFactory}), so the app and its migrations talk to the
 * database through the same driver.
 */
export function createAdapterFactory(databaseUrl: string): {
  provider: DatabaseProvider;
  factory: SqlMigrationAwareDriverAdapterFactory;
} {
  const provider = providerFromUrl(databaseUrl);
  if (provider === 'sqlite') {
    // `timeout` is better-sqlite3's busy timeout; the PRAGMA is set again at start-up (client.ts).
    return {
      provider,
      factory: new PrismaBetterSqlite3({ url: sqliteFilePath(databaseUrl), timeout: SQLITE_BUSY_TIMEOUT_MS }),
    };
  }
  return { provider, factory: new PrismaPg({ connectionString: databaseUrl }) };
}

/** Creates the folder a SQLite database file lives in (no-op for `:memory:`). */
export async function ensureSqliteParentDir(databaseUrl: string): Promise<void> {
  const file = sqliteFilePath(databaseUrl);
  if (file !== ':memory:') await mkdir(path.dirname(file), { recursive: true });
}

const PG_CHAR_OID = 18; // PostgreSQL's internal one-byte "char" (pg_catalog columns such as relkind)
const PG_TEXT_OID = 25;

type PgFieldsResult = { fields: { dataTypeID: number }[] };
type PerformIO = (query: SqlQuery) => Promise<PgFieldsResult>;

/**
 * WORKAROUND (adapter-pg 7.10): the schema engine introspects pg_catalog columns of type "char"
 * (OID 18), which adapter-pg does not map ("Column type 'char' could not be deserialized").
 * pg returns those values as strings already, so relabelling the column as text is exact.
 * Applied only to the connections the schema engine opens, never to the app's client.
 */
function relabelPgCharColumns(adapter: SqlDriverAdapter): void {
  const target = adapter as unknown as { performIO?: PerformIO };
  const original = target.performIO;
  if (typeof original !== 'function') return; // adapter internals changed: nothing to patch
  target.performIO = async (query) => {
    const result = await original.call(adapter, query);
    for (const field of result.fields ?? []) {
      if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
    }
    return result;
  };
}

type PgScriptTarget = {
  executeScript?: (script: string) => Promise<void>;
  underlyingDriver?: () => { query(text: string): Promise<unknown> };
  onError?: (error: unknown) => never;
};

/**
 * WORKAROUND (adapter-pg 7.10): `executeScript` splits a migration at every `;`, which cuts a PL/pgSQL
 * function body (the rollup triggers, src/shipments/rollups.ts) in pieces. The whole script is sent as one
 * simple-protocol query instead, which PostgreSQL itself splits correctly (and runs as one implicit
 * transaction: a migration applies whole or not at all). Applied only to the schema engine's connections.
 */
function runPgScriptsWhole(adapter: SqlDriverAdapter): void {
  const target = adapter as unknown as PgScriptTarget;
  const driver = target.underlyingDriver;
  if (typeof target.executeScript !== 'function' || typeof driver !== 'function') return;
  target.executeScript = async (script) => {
    try {
      await driver.call(adapter).query(script);
    } catch (error) {
      if (typeof target.onError === 'function') target.onError.call(adapter, error);
      throw error;
    }
  };
}

/**
 * The app's adapter factory, wrapped for the schema engine:
 * - remembers every connection it hands out so {@link disposeAll} can close them (freeing the engine
 *   does not; on SQLite the engine also holds `locking_mode=EXCLUSIVE` until the connection closes);
 * - makes `dispose()` idempotent;
 * - refuses shadow databases: tracksync never needs one (it diffs against a scratch database), and
 *   adapter-pg 7.10's shadow connection silently reuses the main database when given a connection string.
 */
export class MigrationAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider: SqlMigrationAwareDriverAdapterFactory['provider'];
  readonly adapterName: string;
  readonly #inner: SqlMigrationAwareDriverAdapterFactory;
  readonly #databaseProvider: DatabaseProvider;
  readonly #open = new Set<SqlDriverAdapter>();

  constructor(databaseUrl: string) {
    const { provider, factory } = createAdapterFactory(databaseUrl);
    this.#inner = factory;
    this.#databaseProvider = provider;
    this.provider = factory.provider;
    this.adapterName = factory.adapterName;
  }

  async connect(): Promise<SqlDriverAdapter> {
    const adapter = await this.#inner.connect();
    if (this.#databaseProvider === 'postgresql') {
      relabelPgCharColumns(adapter);
      runPgScriptsWhole(adapter);
    }
    const dispose = adapter.dispose.bind(adapter);
    let disposed: Promise<void> | undefined;
    adapter.dispose = () => {
      this.#open.delete(adapter);
      disposed ??= dispose();
      return disposed;
    };
    this.#open.add(adapter);
    return adapter;
  }

  connectToShadowDb(): Promise<SqlDriverAdapter> {
    return Promise.reject(new Error('tracksync migrations do not use a shadow database'));
  }

  /** Closes every connection handed out and not yet disposed. */
  async disposeAll(): Promise<void> {
    const open = [...this.#open];
    const results = await Promise.allSettled(open.map((adapter) => adapter.dispose()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}
