import { defineConfig } from 'vitest/config';

/**
 * `npm test` runs the whole suite twice, once per database: the `sqlite` project (the embedded default)
 * and the `postgresql` project (a fresh database per test file on the server at POSTGRES_ADMIN_URL,
 * default postgresql://postgres@127.0.0.1:5432/postgres, dropped afterwards). Tests that do not touch a
 * database simply run twice. `npx vitest run --project sqlite` runs one of them.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The long reliability suite runs on its own: npm run test:reliability (vitest.reliability.config.ts).
    exclude: ['**/node_modules/**', '**/.git/**', 'test/reliability/**'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'sqlite', env: { TEST_DATABASE_PROVIDER: 'sqlite' } } },
      { extends: true, test: { name: 'postgresql', env: { TEST_DATABASE_PROVIDER: 'postgresql' } } },
    ],
  },
});
