import { exitCodes } from './errors.js';

/** Where a command writes: results to `out` (stdout), notes and errors to `err` (stderr). */
export interface CliIo {
  out(text?: string): void;
  err(text: string): void;
}

/** Writes lines to the process's streams. */
export function processIo(): CliIo {
  return {
    out: (text = '') => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  };
}

export type Cell = string | number | boolean | Date | null | undefined;

/** `2026-11-18T15:21:43Z`; `-` for nothing. */
export function formatCell(value: Cell): string {
  if (value === null || value === undefined || value === '') return '-';
  if (value instanceof Date) return value.toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value).replace(/\s+/g, ' ').trim();
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

export interface Column<Row> {
  header: string;
  value: (row: Row) => Cell;
  /** Longer cells are cut with an ellipsis. */
  maxWidth?: number;
  align?: 'left' | 'right';
}

/** An aligned plain-text table: a header line, then one line per row, columns two spaces apart. */
export function formatTable<Row>(columns: ReadonlyArray<Column<Row>>, rows: readonly Row[]): string {
  const cells = rows.map((row) =>
    columns.map((c) => {
      const text = formatCell(c.value(row));
      return c.maxWidth ? truncate(text, c.maxWidth) : text;
    }),
  );
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => {
        const last = i === values.length - 1;
        if (columns[i]!.align === 'right') return v.padStart(widths[i]!);
        return last ? v : v.padEnd(widths[i]!);
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join('\n');
}

/** JSON for scripts: two-space indented, dates as ISO strings. */
export function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** Prints the rows as a table; with no rows, the `none` line instead (or nothing). */
export function printTable<Row>(
  io: CliIo,
  columns: ReadonlyArray<Column<Row>>,
  rows: readonly Row[],
  none?: string,
): void {
  if (rows.length > 0) io.out(formatTable(columns, rows));
  else if (none !== undefined) io.out(none);
}

/**
 * Prints a command's result: as JSON with `--json` (for scripts), else as text (for people). Returns the
 * ok exit code, so a run can end with `return printResult(...)`.
 */
export function printResult<Result>(
  io: CliIo,
  json: boolean,
  result: Result,
  printText: (result: Result) => void,
): number {
  if (json) io.out(formatJson(result));
  else printText(result);
  return exitCodes.ok;
}

/** Replaces every secret occurring in a message (only secrets of 6+ characters, to avoid mangling text). */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | null | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 6) out = out.split(secret).join('[redacted]');
  }
  return out;
}
