import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The two databases tracksync runs on. SQLite is the embedded default. */
export type DatabaseProvider = 'sqlite' | 'postgresql';

export const DATABASE_PROVIDERS: readonly DatabaseProvider[] = ['sqlite', 'postgresql'];

/** Used by the CLI scripts when DATABASE_URL is not set. Relative to the working directory. */
export const DEFAULT_DATABASE_URL = 'file:./data/dev.db';

export function isDatabaseProvider(value: string): value is DatabaseProvider {
  return (DATABASE_PROVIDERS as readonly string[]).includes(value);
}

/** `file:...` → sqlite, `postgres://` / `postgresql://` → postgresql. Anything else is rejected. */
export function providerFromUrl(databaseUrl: string): DatabaseProvider {
  if (databaseUrl.startsWith('file:')) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return 'postgresql';
  throw new Error(
    `Unsupported DATABASE_URL "${redactUrl(databaseUrl)}": expected file:... (SQLite) or postgres(ql)://... (PostgreSQL)`,
  );
}

/**
 * The filesystem path of a `file:` URL, or `:memory:`.
 * `file:./data/dev.db` and `file:data/dev.db` are relative to `cwd`; `file:/abs/dev.db` and
 * `file:///abs/dev.db` are absolute. A query string (`?connection_limit=1`) is ignored.
 */
export function sqliteFilePath(databaseUrl: string, cwd: string = process.cwd()): string {
  if (!databaseUrl.startsWith('file:')) throw new Error(`Not a SQLite URL: ${redactUrl(databaseUrl)}`);
  const withoutQuery = databaseUrl.replace(/\?.*$/, '');
  const rest = withoutQuery.slice('file:'.length);
  if (rest === ':memory:') return rest;
  if (rest === '') throw new Error('SQLite DATABASE_URL has no file path');
  if (rest.startsWith('//')) return fileURLToPath(withoutQuery);
  return path.resolve(cwd, rest);
}

/** The URL with any password masked, for messages and logs. */
export function redactUrl(databaseUrl: string): string {
  return databaseUrl.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}
