/**
 * The bench's PostgreSQL server, decided as for the tests (tools/db/postgres-server.ts): the one named by
 * `--postgres-admin-url` or POSTGRES_ADMIN_URL, else the one at the default address when it lets us in,
 * else (or with TEST_POSTGRES=embedded) an embedded one started for the run. Its line goes to the output,
 * so the figures say which server they were measured on; an embedded one is stopped by the cleanup, after
 * the scratch databases on it were dropped (steps run newest first).
 */
import { acquireTestPostgres } from '../tools/db/postgres-server.js';
import type { Cleanup } from './cleanup.js';

/** The admin URL of the bench's server. `explicitUrl` (a command-line option) wins over the environment. */
export async function benchPostgres(
  cleanup: Cleanup,
  log: (line: string) => void,
  explicitUrl?: string,
): Promise<string> {
  const env = explicitUrl === undefined ? process.env : { POSTGRES_ADMIN_URL: explicitUrl };
  const postgres = await acquireTestPostgres(env);
  cleanup.add('stop the embedded PostgreSQL', () => postgres.release());
  log(`  ${postgres.description}`);
  return postgres.adminUrl;
}
