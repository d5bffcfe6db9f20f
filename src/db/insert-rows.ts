import { columnTypes } from '../generated/column-types.js';
import type { Prisma } from '../generated/sqlite/client.js';
import type { DatabaseClient, Tx } from './client.js';
import { hotPathOf } from './hot-path.js';
import type { DatabaseProvider } from './provider.js';
import { providerOf } from './provider-of.js';

/**
 * Many rows in one INSERT. Prisma's createMany costs about a millisecond per row here (its query plan is
 * compiled afresh for every row count); one multi-row INSERT costs a fraction of that. Used only for the
 * busy-day bulk path, with values written exactly as Prisma writes them: DateTime as ISO-8601 `+00:00` text
 * on SQLite and as timestamp(3) on PostgreSQL, Boolean as 0/1 on SQLite. Every column with a Prisma-side
 * default (ids, createdAt, updatedAt) must be given.
 */

export type ColumnType = 'text' | 'int' | 'bool' | 'timestamp';
export type CellValue = string | number | boolean | Date | null;

/** The tables written in bulk, and the row each takes: Prisma's own create input for the model. */
export interface BulkRows {
  WebhookDelivery: Prisma.WebhookDeliveryCreateManyInput;
  Fulfillment: Prisma.FulfillmentCreateManyInput;
  Tracker: Prisma.TrackerCreateManyInput;
  TrackingLine: Prisma.TrackingLineCreateManyInput;
  StoreFulfillmentEvent: Prisma.StoreFulfillmentEventCreateManyInput;
  StoreTrackingLink: Prisma.StoreTrackingLinkCreateManyInput;
  StatusPush: Prisma.StatusPushCreateManyInput;
  ShipmentProblem: Prisma.ShipmentProblemCreateManyInput;
}

export const pgCast: Record<ColumnType, string> = {
  text: 'text',
  int: 'integer',
  bool: 'boolean',
  timestamp: 'timestamp(3)',
};

/** Rows per statement: far below SQLite's 32 766 and PostgreSQL's 65 535 parameters. */
const chunkRows = 200;

export interface InsertOptions {
  /** Skip rows that collide on this unique key (`ON CONFLICT (...) DO NOTHING`). */
  skipConflictsOn?: readonly string[];
  /**
   * Write only the rows meeting this condition, decided by the statement itself (so nothing can change in
   * between): trusted SQL over the row as `v."column"`, per provider.
   */
  onlyIf?: (provider: DatabaseProvider) => string;
}

/**
 * Inserts the rows; returns the ids (column `id`) of the rows actually written. The columns are the keys the
 * rows give (every row the same ones), their types the schema's (src/generated/column-types.ts).
 */
export async function insertRows<T extends keyof BulkRows>(
  db: DatabaseClient | Tx,
  table: T,
  rows: readonly BulkRows[T][],
  options: InsertOptions = {},
): Promise<string[]> {
  if (rows.length === 0) return [];
  const provider = providerOf(db);
  const types: Readonly<Record<string, ColumnType>> = columnTypes[table];
  const names = Object.keys(rows[0]!);
  for (const name of names) {
    if (!types[name]) throw new Error(`${table} has no column ${name}`);
  }
  const conflict = options.skipConflictsOn
    ? ` ON CONFLICT (${options.skipConflictsOn.map((n) => `"${n}"`).join(', ')}) DO NOTHING`
    : '';
  const columns = names.map((n) => `"${n}"`).join(', ');
  const only = options.onlyIf ? ` WHERE ${options.onlyIf(provider)}` : '';
  const written: string[] = [];
  for (let start = 0; start < rows.length; start += chunkRows) {
    const chunk = rows.slice(start, start + chunkRows) as readonly Record<string, CellValue | undefined>[];
    const cell = (row: Record<string, CellValue | undefined>, name: string) =>
      toParam(row[name] ?? null, types[name]!, provider);
    let sql: string;
    let params: unknown[];
    if (provider === 'postgresql') {
      // One array per column, zipped by unnest: the same text whatever the number of rows, so it is prepared
      // once per connection (src/db/pg-named-statements.ts), not once per row count.
      params = names.map((name) => chunk.map((row) => cell(row, name)));
      const arrays = names.map((name, i) => `$${i + 1}::${pgCast[types[name]!]}[]`);
      sql = `INSERT INTO "${table}" (${columns}) SELECT ${names.map((n) => `v."${n}"`).join(', ')} FROM unnest(${arrays.join(', ')}) AS v (${columns})${only}${conflict} RETURNING "id"`;
    } else {
      params = [];
      const tuples = chunk.map((row) => {
        for (const name of names) params.push(cell(row, name));
        return `(${names.map(() => '?').join(', ')})`;
      });
      sql = options.onlyIf
        ? `WITH v (${columns}) AS (VALUES ${tuples.join(', ')}) INSERT INTO "${table}" (${columns}) SELECT ${names.map((n) => `v."${n}"`).join(', ')} FROM v${only}${conflict} RETURNING "id"`
        : `INSERT INTO "${table}" (${columns}) VALUES ${tuples.join(', ')}${conflict} RETURNING "id"`;
    }
    // Outside a transaction past the ORM, its statement prepared once (the hot inserts: deliveries, pushes,
    // store events: src/db/hot-path.ts); in one, through it.
    const ids = await hotPathOf(db).rows<{ id: string }>(sql, params);
    for (const { id } of ids) written.push(id);
  }
  return written;
}

/**
 * A DateTime as a raw-SQL parameter, spelled as Prisma writes it. Prisma's SQLite adapter writes
 * `2026-11-22T01:57:51.920+00:00`, and SQLite compares these as text: the same spelling is what keeps `<=`
 * and ORDER BY right between rows written either way. PostgreSQL takes the ISO text cast to timestamp(3)
 * (UTC wall clock whatever the session's time zone).
 */
export function sqlTimestamp(value: Date, provider: string): string {
  return provider === 'postgresql' ? value.toISOString() : value.toISOString().replace(/Z$/, '+00:00');
}

export function toParam(value: CellValue, type: ColumnType, provider: string): unknown {
  if (value === null) return null;
  if (type === 'timestamp') {
    if (!(value instanceof Date)) throw new TypeError('timestamp columns take Date values');
    return sqlTimestamp(value, provider);
  }
  if (type === 'bool') return provider === 'postgresql' ? String(Boolean(value)) : value ? 1 : 0;
  return value;
}
