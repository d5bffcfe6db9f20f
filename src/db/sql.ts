import type { DatabaseClient, Tx } from './client.js';
import { sqlTimestamp } from './insert-rows.js';
import type { DatabaseProvider } from './provider.js';
import { providerOf } from './provider-of.js';

/**
 * One raw statement's parameters, in the provider's placeholder style: `$n::type` on PostgreSQL (typed, so
 * the planner sees the column's type and uses its index), `?` on SQLite. Build the text in order: every
 * call appends a parameter. Values are always parameters, never spliced into the text.
 */
export class SqlParams {
  readonly values: unknown[] = [];
  constructor(readonly provider: DatabaseProvider) {}

  static for(db: DatabaseClient | Tx): SqlParams {
    return new SqlParams(providerOf(db));
  }

  text(value: string): string {
    return this.value(value, 'text');
  }

  int(value: number): string {
    return this.value(value, 'integer');
  }

  /** A DateTime, spelt as Prisma writes it (SQLite compares the text). */
  time(value: Date): string {
    return this.value(sqlTimestamp(value, this.provider), 'timestamp(3)');
  }

  /** `(a, b, c)` for IN; an empty list is `(NULL)`, which matches nothing. */
  texts(values: readonly string[]): string {
    return values.length === 0 ? '(NULL)' : `(${values.map((v) => this.text(v)).join(', ')})`;
  }

  /**
   * Membership in a list of ids: `= ANY($n::text[])` on PostgreSQL (one text whatever the list's length, so a
   * statement prepared once serves every batch), `IN (?, ?, …)` on SQLite; an empty list matches nothing.
   */
  inTexts(values: readonly string[]): string {
    return this.provider === 'postgresql'
      ? `= ANY(${this.value(values, 'text[]')})`
      : `IN ${this.texts(values)}`;
  }

  /** Any value, cast on PostgreSQL to `pgType`. */
  value(value: unknown, pgType: string): string {
    this.values.push(value);
    return this.provider === 'postgresql' ? `$${this.values.length}::${pgType}` : '?';
  }
}

/** Runs a read built with SqlParams. */
export function queryRows<T>(db: DatabaseClient | Tx, sql: string, params: SqlParams): Promise<T[]> {
  return db.$queryRawUnsafe<T[]>(sql, ...params.values);
}

/** A count as both drivers return it (PostgreSQL: bigint; SQLite: number). */
export function countOf(value: unknown): number {
  return typeof value === 'bigint' ? Number(value) : Number(value ?? 0);
}

/** A DateTime column read by raw SQL (PostgreSQL: Date; SQLite: ISO text). */
export function dateOf(value: unknown): Date {
  return value instanceof Date ? value : new Date(String(value));
}
