import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { LRUCache } from 'lru-cache';

/**
 * A prepared-statement cache for the SQLite driver adapter (@prisma/adapter-better-sqlite3 7.10 prepares
 * every statement anew on every query: `client.prepare(sql).bind(args)`). Each SQL text is prepared once
 * per connection and kept (the most recently used `capacity` of them); a use binds its arguments per call
 * instead of to the statement, since a better-sqlite3 statement can be bound only once.
 *
 * The adapter's own calls are kept exactly: `prepare(sql).bind(args)` then `run()`, `reader`, `columns()`
 * and `raw().all()`, and `prepare(sql).run()` (BEGIN). better-sqlite3 runs one statement at a time on a
 * connection (synchronously), so a cached statement is never used twice at once; SQLite re-prepares a
 * statement by itself when the schema changed under it (a migration).
 *
 * Kept by hand, reaching into the adapter's private field `client` (its better-sqlite3 Database) and the
 * calls it makes on it: the adapter offers no public way in (PrismaBetterSqlite3 takes better-sqlite3's
 * options and a URL, opens the Database itself and exposes neither it nor a statement hook). Should those
 * internals change, queries still work, uncached, and test/db/sqlite-statement-cache.test.ts fails naming
 * what changed ("the adapter's private fields").
 */

interface Statement {
  reader: boolean;
  run(...args: unknown[]): unknown;
  all(...args: unknown[]): unknown[];
  columns(): unknown[];
  raw(toggle?: boolean): Statement;
}

interface Connection {
  prepare(sql: string): Statement;
}

/** One use of a cached statement with its arguments, shaped like what the adapter calls. */
function boundUse(statement: Statement, args: unknown[]) {
  return {
    get reader() {
      return statement.reader;
    },
    run: () => statement.run(...args),
    all: () => statement.raw(false).all(...args),
    columns: () => statement.columns(),
    raw: () => ({ all: () => statement.raw(true).all(...args) }),
  };
}

export const statementCacheCapacity = 500;

export interface StatementCacheStats {
  prepared: number;
  reused: number;
}

/**
 * Gives the adapter's connection a statement cache; returns its counters. Nothing happens (null) if the
 * adapter's internals are not what this was written for: queries then work as before, uncached.
 */
export function cacheSqliteStatements(
  adapter: SqlDriverAdapter,
  capacity = statementCacheCapacity,
): StatementCacheStats | null {
  const client = (adapter as unknown as { client?: Connection }).client;
  if (!client || typeof client.prepare !== 'function') return null;
  const prepare = client.prepare.bind(client);
  // The most recently used `capacity` statements (lru-cache drops the least recently used).
  const cache = new LRUCache<string, Statement>({ max: Math.max(1, capacity) });
  const stats: StatementCacheStats = { prepared: 0, reused: 0 };
  const cached = (sql: string): Statement => {
    const kept = cache.get(sql);
    if (kept) {
      stats.reused++;
      return kept;
    }
    const statement = prepare(sql);
    stats.prepared++;
    cache.set(sql, statement);
    return statement;
  };
  (client as { prepare: unknown }).prepare = (sql: string) => {
    const statement = cached(sql);
    return {
      bind: (args: unknown[]) => boundUse(statement, args),
      run: () => statement.run(),
      get reader() {
        return statement.reader;
      },
      columns: () => statement.columns(),
      raw: () => ({ all: () => statement.raw(true).all() }),
    };
  };
  return stats;
}

/**
 * Statements run straight on the connection, past the ORM (the hot inserts: src/db/insert-rows.ts), with the
 * same prepared-statement cache. They wait while one of the ORM's transactions is open on the connection
 * (a statement run then would join it and vanish with its rollback) and then run synchronously, so no
 * transaction can begin in between.
 */
export interface DirectSqlite {
  rows<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
  /** A write's count of rows changed. */
  run(sql: string, params: readonly unknown[]): Promise<number>;
}

interface Transaction {
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

function directOn(adapter: SqlDriverAdapter): DirectSqlite | null {
  const client = (adapter as unknown as { client?: Connection }).client;
  if (!client || typeof adapter.startTransaction !== 'function') return null;
  let open = 0;
  let waiters: Array<() => void> = [];
  const closed = () => {
    open--;
    if (open > 0) return;
    const ready = waiters;
    waiters = [];
    for (const wake of ready) wake();
  };
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (...args: Parameters<typeof startTransaction>) => {
    // Counted before BEGIN runs (inside the adapter, after its own lock): no direct statement slips in.
    open++;
    let tx: Awaited<ReturnType<typeof startTransaction>>;
    try {
      tx = await startTransaction(...args);
    } catch (error) {
      closed();
      throw error;
    }
    const end = tx as unknown as Transaction;
    let ended = false;
    const once = () => {
      if (ended) return;
      ended = true;
      closed();
    };
    const commit = end.commit.bind(tx);
    const rollback = end.rollback.bind(tx);
    end.commit = () => commit().finally(once);
    end.rollback = () => rollback().finally(once);
    return tx;
  };
  const bound = async (sql: string, params: readonly unknown[]) => {
    while (open > 0) await new Promise<void>((resolve) => waiters.push(resolve));
    const prepare = client.prepare as unknown as (sql: string) => {
      bind(args: unknown[]): ReturnType<typeof boundUse>;
    };
    return prepare(sql).bind([...params]);
  };
  return {
    async rows<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
      const statement = await bound(sql, params);
      if (!statement.reader) {
        statement.run();
        return [];
      }
      return statement.all() as T[];
    },
    async run(sql, params) {
      const statement = await bound(sql, params);
      if (statement.reader) return statement.all().length;
      return (statement.run() as { changes?: number }).changes ?? 0;
    },
  };
}

/**
 * The factory, its every connection given a statement cache; `onConnect` receives each connection's
 * direct statements (null when the adapter's internals are not what this was written for).
 */
export function withStatementCache<F extends SqlMigrationAwareDriverAdapterFactory>(
  factory: F,
  onConnect?: (direct: DirectSqlite | null) => void,
): F {
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const cached = cacheSqliteStatements(adapter);
    onConnect?.(cached ? directOn(adapter) : null);
    return adapter;
  };
  return factory;
}
