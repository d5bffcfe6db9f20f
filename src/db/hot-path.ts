import { type DatabaseClient, directPgOf, directSqliteOf, type Tx } from './client.js';
import type { DatabaseProvider } from './provider.js';
import { providerOf } from './provider-of.js';

/**
 * The hot statements (a delivery's or a push's insert, the claims of the lease queues, the reconciler's
 * outcome writes) run past the ORM, on the connection the ORM itself uses:
 * - SQLite: straight on the ORM's better-sqlite3 connection, each text prepared once (src/db/sqlite-statement-cache.ts),
 *   waiting while one of the ORM's transactions is open there;
 * - PostgreSQL: on the ORM's pool as named prepared statements (src/db/pg-named-statements.ts);
 * - inside an ORM transaction (`db` is a transaction's client): through that transaction, as before.
 * Everything else stays on the ORM. A hot statement's SQL is trusted text written in this codebase, its
 * values are parameters, and it returns text and integers only (see pg-named-statements.ts).
 */
export interface HotPath {
  readonly provider: DatabaseProvider;
  /** The rows a statement returns (RETURNING for a write). */
  rows<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
  /** A write's count of rows changed. */
  run(sql: string, params: readonly unknown[]): Promise<number>;
}

type Db = DatabaseClient | Tx;

export function hotPathOf(db: Db): HotPath {
  const provider = providerOf(db);
  const direct = directSqliteOf(db) ?? directPgOf(db);
  if (direct) return { provider, rows: (sql, params) => direct.rows(sql, params), run: direct.run };
  return {
    provider,
    rows: (sql, params) => db.$queryRawUnsafe(sql, ...params),
    run: (sql, params) => db.$executeRawUnsafe(sql, ...params),
  };
}

/**
 * `fn` in one transaction: on PostgreSQL on one connection of the pool with named statements; otherwise an
 * ORM transaction (or, when `db` is already a transaction's client, that transaction).
 */
export async function inHotTransaction<T>(db: Db, fn: (hot: HotPath) => Promise<T>): Promise<T> {
  const pg = directPgOf(db);
  if (pg) return pg.transaction((conn) => fn({ provider: 'postgresql', ...conn }));
  if (typeof (db as { $disconnect?: unknown }).$disconnect !== 'function') return fn(hotPathOf(db));
  return (db as DatabaseClient).$transaction((tx) => fn(hotPathOf(tx)));
}
