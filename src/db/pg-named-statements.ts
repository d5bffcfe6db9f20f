import { createHash } from 'node:crypto';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';

/**
 * Statements straight on the PostgreSQL driver's pool (the one the ORM's adapter opened), past the ORM, each as a
 * named prepared statement: PostgreSQL parses and plans a text once per connection and then only binds and
 * runs it (the ORM's adapter sends every statement unnamed, parsed anew each time). Used by the hot paths
 * (src/db/hot-path.ts). A name is derived from the text, so one name never stands for two texts.
 *
 * Results are read by a small fixed set of parsers: booleans, 16- and 32-bit integers as numbers, `timestamp(3)`
 * (the schema's DateTime: a UTC wall clock) as a Date in UTC whatever the process's time zone, and every
 * other type as the server's text (a `bigint` such as COUNT(*) as a string, as the driver gives it).
 *
 * A pooler in transaction mode (PgBouncer before 1.21) cannot keep named statements per connection: such a
 * setup is not supported (the app talks to PostgreSQL directly).
 */
export interface DirectPg {
  rows<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
  /** A write's count of rows changed. */
  run(sql: string, params: readonly unknown[]): Promise<number>;
  /** `fn` on one connection of the pool inside BEGIN … COMMIT (ROLLBACK when it throws). */
  transaction<T>(fn: (conn: Omit<DirectPg, 'transaction'>) => Promise<T>): Promise<T>;
}

const utc = (text: string) => new Date(`${text.replace(' ', 'T')}Z`);
const parsers: Record<number, (text: string) => unknown> = {
  16: (text) => text === 't', // bool
  21: Number, // int2
  23: Number, // int4
  1114: utc, // timestamp
};
const asText = (text: string) => text;
const types = { getTypeParser: (oid: number) => parsers[oid] ?? asText };

interface PgResult {
  rows: unknown[];
  rowCount: number | null;
}
interface PgQueryable {
  query(config: { name?: string; text: string; values?: unknown[]; types?: typeof types }): Promise<PgResult>;
}
interface PgPool extends PgQueryable {
  connect(): Promise<PgQueryable & { release(error?: Error | boolean): void }>;
}

/**
 * Texts given a name, at most `maxNamedTexts`: each named text is prepared once on every pooled connection that
 * runs it and kept there for the connection's life (the driver never deallocates), so the set must stay small.
 * The hot statements keep one text whatever their batch size (arrays, not lists of placeholders); a text first
 * seen once the set is full runs unnamed (parsed each time, as through the ORM), so a statement whose text
 * varies can never fill PostgreSQL's memory with prepared statements.
 */
export const maxNamedTexts = 256;
const names = new Map<string, string>();

/**
 * The statement's name, `ts_` and 24 hex digits of the text's SHA-1 (PostgreSQL keeps 63 bytes of a name), or
 * null when the text runs unnamed (see maxNamedTexts).
 */
export function statementName(sql: string): string | null {
  const known = names.get(sql);
  if (known !== undefined) return known;
  if (names.size >= maxNamedTexts) return null;
  const name = `ts_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
  names.set(sql, name);
  return name;
}

/** How many texts have a name (for tests and the hot paths' own checks). */
export function namedTextCount(): number {
  return names.size;
}

function on(conn: PgQueryable): Omit<DirectPg, 'transaction'> {
  const query = (sql: string, params: readonly unknown[]) => {
    const name = params.length === 0 ? null : statementName(sql);
    return name === null
      ? conn.query({ text: sql, values: [...params], types })
      : conn.query({ name, text: sql, values: [...params], types });
  };
  return {
    async rows<T>(sql: string, params: readonly unknown[]) {
      return (await query(sql, params)).rows as T[];
    },
    async run(sql, params) {
      return (await query(sql, params)).rowCount ?? 0;
    },
  };
}

function directOn(pool: PgPool): DirectPg {
  return {
    ...on(pool),
    async transaction(fn) {
      const conn = await pool.connect();
      let broken = false;
      try {
        await conn.query({ text: 'BEGIN' });
        const result = await fn(on(conn));
        await conn.query({ text: 'COMMIT' });
        return result;
      } catch (error) {
        // A connection whose ROLLBACK failed is not given back to the pool in an unknown state.
        await conn.query({ text: 'ROLLBACK' }).catch(() => {
          broken = true;
        });
        throw error;
      } finally {
        conn.release(broken);
      }
    },
  };
}

/**
 * The factory, its every connection's pool given to `onConnect` as direct statements (null when the adapter's
 * internals are not what this was written for: the hot paths then go through the ORM).
 */
export function withNamedStatements<F extends SqlMigrationAwareDriverAdapterFactory>(
  factory: F,
  onConnect: (direct: DirectPg | null) => void,
): F {
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const driver = (adapter as unknown as { underlyingDriver?: () => unknown }).underlyingDriver?.();
    const pool = driver as Partial<PgPool> | undefined;
    onConnect(
      pool && typeof pool.query === 'function' && typeof pool.connect === 'function'
        ? directOn(pool as PgPool)
        : null,
    );
    return adapter;
  };
  return factory;
}
