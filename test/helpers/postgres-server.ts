/**
 * vitest globalSetup (`npm test`'s database projects, `npm run test:reliability`): the run's PostgreSQL
 * server, decided and, when needed, started once (tools/db/postgres-server.ts): POSTGRES_ADMIN_URL's
 * server, the one at the default address, or an embedded one started for the run and stopped at its end.
 * Its admin URL reaches the test workers (forked after the global setups ran) and the processes they start
 * as POSTGRES_ADMIN_URL, which testPostgresAdminUrl() reads.
 *
 * Several projects list this file and each runs its global setups: the first starts the server, the others
 * share it (the setups all run in vitest's main process), and the last teardown stops it, after every
 * project's own teardowns (template databases) ran.
 */
import { acquireTestPostgres, type TestPostgres } from '../../tools/db/postgres-server.js';

interface Shared {
  users: number;
  server: Promise<TestPostgres>;
  previousAdminUrl: string | undefined;
}

const key = Symbol.for('tracksync.test-postgres');
const store = globalThis as { [key]?: Shared };

export default async function setup(): Promise<() => Promise<void>> {
  let shared = store[key];
  if (!shared) {
    const previousAdminUrl = process.env.POSTGRES_ADMIN_URL;
    const server = acquireTestPostgres(process.env).then((acquired) => {
      process.env.POSTGRES_ADMIN_URL = acquired.adminUrl;
      console.log(acquired.description);
      return acquired;
    });
    shared = store[key] = { users: 0, server, previousAdminUrl };
    server.catch(() => {
      if (store[key] === shared) delete store[key];
    });
  }
  shared.users++;
  const current = shared;
  await current.server;
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    current.users--;
    if (current.users > 0) return;
    if (store[key] === current) delete store[key];
    if (current.previousAdminUrl === undefined) delete process.env.POSTGRES_ADMIN_URL;
    else process.env.POSTGRES_ADMIN_URL = current.previousAdminUrl;
    await (await current.server).release();
  };
}
