import { columnTypes } from '../generated/column-types.js';
import type { StoreFulfillmentEvent, Tracker } from '../generated/sqlite/client.js';
import type { DatabaseClient, Tx } from './client.js';
import { hotPathOf } from './hot-path.js';
import { type CellValue, type ColumnType, pgCast, toParam } from './insert-rows.js';
import { SqlParams } from './sql.js';

/**
 * One UPDATE for many rows by id, on the hot path (src/db/hot-path.ts): the outcome writes of the queues' work.
 * Typed by the generated row types, the columns' SQL types read from the schema
 * (src/generated/column-types.ts), values written as the ORM writes them (src/db/insert-rows.ts); a table
 * with an `updatedAt` column gets it set, as the ORM's `@updatedAt` does.
 */

/** The tables written this way, and their rows. */
export interface UpdatableRows {
  Tracker: Tracker;
  StoreFulfillmentEvent: StoreFulfillmentEvent;
}

type Columns<R> = { [K in keyof R]?: R[K] & CellValue };

export interface RowUpdate<R> {
  ids: readonly string[];
  /** Only the rows whose columns hold these values too (null: IS NULL). */
  where?: Columns<R>;
  set: Columns<R>;
  /** Columns raised by these amounts. */
  increment?: { [K in keyof R]?: R[K] extends number ? number : never };
}

/** Rows per statement. */
const chunk = 500;

/** Writes the update; returns the ids of the rows it changed. */
export async function updateRows<T extends keyof UpdatableRows>(
  db: DatabaseClient | Tx,
  table: T,
  update: RowUpdate<UpdatableRows[T]>,
): Promise<string[]> {
  const hot = hotPathOf(db);
  const types: Readonly<Record<string, ColumnType>> = columnTypes[table];
  const typeOf = (name: string) => {
    const type = types[name];
    if (!type) throw new Error(`${table} has no column ${name}`);
    return type;
  };
  const written: string[] = [];
  for (let start = 0; start < update.ids.length; start += chunk) {
    const p = new SqlParams(hot.provider);
    const param = (value: unknown, type: string) => p.value(value, type);
    const cell = (name: string, value: CellValue | undefined) =>
      param(toParam(value ?? null, typeOf(name), hot.provider), pgCast[typeOf(name)]);
    const given = (o: object | undefined) =>
      Object.entries((o ?? {}) as Record<string, CellValue | undefined>).filter(([, v]) => v !== undefined);
    const set = given(update.set).map(([name, value]) => `"${name}" = ${cell(name, value)}`);
    for (const [name, by] of Object.entries(update.increment ?? {}) as [string, number][]) {
      typeOf(name);
      set.push(`"${name}" = "${name}" + ${param(by, 'integer')}`);
    }
    if (types.updatedAt && !('updatedAt' in update.set))
      set.push(`"updatedAt" = ${cell('updatedAt', new Date())}`);
    const ids = p.inTexts(update.ids.slice(start, start + chunk));
    const where = given(update.where).map(([name, value]) =>
      value === null ? `"${name}" IS NULL` : `"${name}" = ${cell(name, value)}`,
    );
    const sql = `UPDATE "${table}" SET ${set.join(', ')} WHERE "id" ${ids}${where.map((w) => ` AND ${w}`).join('')} RETURNING "id"`;
    for (const row of await hot.rows<{ id: string }>(sql, p.values)) written.push(row.id);
  }
  return written;
}
