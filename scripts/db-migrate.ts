/**
 * npm run db:migrate
 *
 * Applies the pending migrations of prisma/migrations/<provider> to DATABASE_URL
 * (default file:./data/dev.db; postgres:// URLs use prisma/migrations/postgresql) and records them in
 * `_prisma_migrations`, like `prisma migrate deploy` but through the app's driver adapters.
 */
import { applyMigrations } from '../src/db/migrate.js';
import { DEFAULT_DATABASE_URL, redactUrl } from '../src/db/provider.js';

const databaseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;

try {
  const { applied } = await applyMigrations(databaseUrl);
  if (applied.length === 0) {
    console.log(`No pending migrations for ${redactUrl(databaseUrl)}.`);
  } else {
    console.log(`Applied ${applied.length} migration(s) to ${redactUrl(databaseUrl)}:`);
    for (const name of applied) console.log(`  ${name}`);
  }
} catch (error) {
  console.error(`Migrating ${redactUrl(databaseUrl)} failed:`);
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
