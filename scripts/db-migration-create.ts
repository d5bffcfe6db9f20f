/**
 * npm run db:migration:create -- <name>
 *
 * Writes the migration from the existing history to the current prisma/schema.prisma for BOTH
 * providers, under one shared folder name:
 *   prisma/migrations/sqlite/<timestamp>_<name>/migration.sql
 *   prisma/migrations/postgresql/<timestamp>_<name>/migration.sql
 * For each provider the existing migrations are applied to a scratch database (temp SQLite file;
 * temporary PostgreSQL database, created and dropped, on POSTGRES_ADMIN_URL's server, else the one at
 * postgres://postgres@127.0.0.1:5432/postgres when it lets us in, else (or with TEST_POSTGRES=embedded) an
 * embedded one started for the command and stopped after it: tools/db/postgres-server.ts) and the engine diffs it against the schema. The status table
 * (src/shipments/status-table.ts) is compared with the StatusClass rows the history left: a change appends
 * the rows' rewrite and the re-classification of the trackers holding the changed codes (docs/development.md: "Add or
 * regroup a status code"). Prints "no changes" when the migrations already match the schema and the
 * status table. Nothing is applied to DATABASE_URL: run `npm run db:migrate`.
 *
 * Reset the history (e.g. to regenerate the initial migration while the models are being designed,
 * before anything is deployed):
 *   rm -rf prisma/migrations/sqlite prisma/migrations/postgresql data/
 *   npm run db:migration:create -- init
 *   npm run db:migrate
 */

import path from 'node:path';
import { createMigrations } from '../tools/db/create-migration.js';
import { acquireTestPostgres, type TestPostgres } from '../tools/db/postgres-server.js';
import { PROJECT_ROOT } from '../src/db/paths.js';
import { DATABASE_PROVIDERS } from '../src/db/provider.js';
import { statusClassChanges } from '../src/shipments/status-classes.js';

const name = process.argv.slice(2).join(' ').trim();
if (name === '' || name.startsWith('-')) {
  console.error('Usage: npm run db:migration:create -- <name>');
  process.exit(2);
}

let postgres: TestPostgres | undefined;
try {
  postgres = await acquireTestPostgres(process.env);
  console.log(postgres.description);
  const results = await createMigrations(name, DATABASE_PROVIDERS, {
    postgresAdminUrl: postgres.adminUrl,
    // A change to src/shipments/status-table.ts: its rows rewritten, the trackers it moves re-classified.
    generated: statusClassChanges(),
  });
  for (const result of results) {
    if (result.status === 'created') {
      console.log(
        `${result.provider}: created ${path.relative(PROJECT_ROOT, result.directory)}/migration.sql`,
      );
    } else {
      console.log(
        `${result.provider}: no changes, the migrations already match prisma/schema.prisma and the status table`,
      );
    }
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await postgres?.release();
}
