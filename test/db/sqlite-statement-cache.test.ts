import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import type { SqlDriverAdapter, SqlQuery } from '@prisma/driver-adapter-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheSqliteStatements } from '../../src/db/sqlite-statement-cache.js';

/** The adapter's own calls, through a cached connection: the answers of an uncached one, prepared once. */

let adapter: SqlDriverAdapter | null = null;
afterEach(async () => {
  await adapter?.dispose();
  adapter = null;
});

/** A query as the engine hands it to the adapter: each argument with its own type. */
const query = (sql: string, args: Array<string | number> = []): SqlQuery =>
  ({
    sql,
    args,
    argTypes: args.map((a) => ({ scalarType: typeof a === 'number' ? 'int' : 'string', arity: 'scalar' })),
  }) as unknown as SqlQuery;

async function connect() {
  adapter = await new PrismaBetterSqlite3({ url: ':memory:' }).connect();
  const stats = cacheSqliteStatements(adapter, 3);
  if (!stats) throw new Error('the adapter was not given a cache');
  await adapter.executeScript('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL)');
  return { adapter, stats };
}

describe('the adapter’s private fields the cache reaches into', () => {
  // @prisma/adapter-better-sqlite3 offers no public way to its connection (see src/db/sqlite-statement-cache.ts):
  // the cache uses its private field `client` (a better-sqlite3 Database), its `prepare(sql)`, and the
  // statement's `bind(args)`, `reader`, `run()`, `all()`, `columns()` and `raw()`, as the adapter calls them.
  // The day an upgrade changes them, this says so instead of the app running on, uncached.
  const changed = (what: string) =>
    `@prisma/adapter-better-sqlite3 changed its private fields: ${what}. src/db/sqlite-statement-cache.ts ` +
    'reaches into `adapter.client` (better-sqlite3 Database: prepare) and the adapter’s calls ' +
    '(prepare(sql).bind(args) then reader, run(), all(), columns(), raw()); update it to the new adapter.';

  it('are still there: adapter.client is a better-sqlite3 Database, and every query goes through its prepare', async () => {
    adapter = await new PrismaBetterSqlite3({ url: ':memory:' }).connect();
    const client = (adapter as unknown as { client?: { prepare?: unknown; open?: unknown } }).client;
    expect(typeof client?.prepare, changed('`client.prepare` is not a function')).toBe('function');
    expect(client?.open, changed('`client` is not an open better-sqlite3 Database')).toBe(true);
    const statement = (client as { prepare(sql: string): Record<string, unknown> }).prepare(
      'SELECT 1 AS one',
    );
    for (const member of ['bind', 'run', 'all', 'columns', 'raw'])
      expect(typeof statement[member], changed(`a statement has no \`${member}()\``)).toBe('function');
    expect(typeof statement.reader, changed('a statement has no `reader`')).toBe('boolean');

    const stats = cacheSqliteStatements(adapter);
    expect(stats, changed('cacheSqliteStatements found no `client` to cache on')).not.toBeNull();
    await adapter.queryRaw(query('SELECT 1 AS one'));
    await adapter.executeRaw(query('SELECT 2 AS two'));
    expect(stats, changed('queryRaw/executeRaw no longer call `client.prepare`')).toEqual({
      prepared: 2,
      reused: 0,
    });
  });
});

describe('the SQLite statement cache', () => {
  it('prepares each SQL text once; every use binds its own arguments', async () => {
    const { adapter, stats } = await connect();
    const insert = 'INSERT INTO t (id, name) VALUES (?, ?)';
    for (let i = 1; i <= 5; i++) expect(await adapter.executeRaw(query(insert, [i, `n${i}`]))).toBe(1);
    const select = 'SELECT id, name FROM t WHERE id >= ? ORDER BY id';
    const all = await adapter.queryRaw(query(select, [1]));
    const some = await adapter.queryRaw(query(select, [4]));
    expect(all.rows.map((r) => r[1])).toEqual(['n1', 'n2', 'n3', 'n4', 'n5']);
    expect(some.rows.map((r) => r[1])).toEqual(['n4', 'n5']);
    expect(some.columnNames).toEqual(['id', 'name']);
    expect(stats).toEqual({ prepared: 2, reused: 5 });
    // A statement that returns nothing through queryRaw, as the engine sends some writes.
    const update = await adapter.queryRaw(query('UPDATE t SET name = ? WHERE id = ?', ['x', 1]));
    expect(update.rows).toEqual([]);
  });

  it('keeps the most recently used statements, and an evicted one still works', async () => {
    const { adapter, stats } = await connect();
    const texts = [1, 2, 3, 4].map((n) => `SELECT ${n} AS n`);
    for (const sql of texts) await adapter.queryRaw(query(sql));
    expect(stats.prepared).toBe(4);
    // Capacity 3: the first was evicted, the last three are kept.
    expect((await adapter.queryRaw(query(texts[3]!))).rows).toEqual([[4]]);
    expect(stats.reused).toBe(1);
    expect((await adapter.queryRaw(query(texts[0]!))).rows).toEqual([[1]]);
    expect(stats.prepared).toBe(5);
  });

  it('transactions begin, commit and roll back as before', async () => {
    const { adapter } = await connect();
    for (const outcome of ['COMMIT', 'ROLLBACK', 'COMMIT']) {
      const tx = await adapter.startTransaction();
      await tx.executeRaw(query('INSERT INTO t (name) VALUES (?)', [outcome]));
      await tx.executeRaw(query(outcome));
      await (outcome === 'COMMIT' ? tx.commit() : tx.rollback());
    }
    const rows = await adapter.queryRaw(query('SELECT name FROM t ORDER BY id'));
    expect(rows.rows).toEqual([['COMMIT'], ['COMMIT']]);
  });

  it('an error is the adapter’s error, and the statement stays usable', async () => {
    const { adapter } = await connect();
    const insert = 'INSERT INTO t (id, name) VALUES (?, ?)';
    await adapter.executeRaw(query(insert, [1, 'a']));
    await expect(adapter.executeRaw(query(insert, [1, 'b']))).rejects.toMatchObject({
      name: 'DriverAdapterError',
    });
    expect(await adapter.executeRaw(query(insert, [2, 'b']))).toBe(1);
  });
});
