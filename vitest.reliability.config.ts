import { defineConfig } from 'vitest/config';

/**
 * `npm run test:reliability`: the long end-to-end reliability suite (kill -9 mid-burst, duplicate storms
 * with several processes, service faults). Kept out of `npm test`; sized by RELIABILITY_SCALE (see
 * test/reliability/config.ts). One file at a time, tests of a file one after another: each test drives
 * real app processes and a full database, and its figures mean more when nothing else competes.
 * PostgreSQL: as under `npm test` (test/helpers/postgres-server.ts), POSTGRES_ADMIN_URL's server, the one
 * at the default address, or one started for the run (TEST_POSTGRES=embedded, or nothing answers there).
 */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['test/helpers/postgres-server.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    sequence: { concurrent: false },
    // Generous: every wait inside the tests has its own, tighter deadline that names what it waited for.
    testTimeout: 30 * 60_000,
    hookTimeout: 5 * 60_000,
    teardownTimeout: 60_000,
  },
});
