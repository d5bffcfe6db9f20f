/**
 * npm run db:migrate:status
 *
 * Lists the applied, pending and failed migrations of DATABASE_URL (default file:./data/dev.db)
 * without changing anything. Exits with 1 when migrations are pending or failed.
 */
import { migrationStatus } from '../src/db/migrate.js';
import { DEFAULT_DATABASE_URL, redactUrl } from '../src/db/provider.js';

const databaseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;

try {
  const { applied, pending, failed } = await migrationStatus(databaseUrl);
  console.log(`Migrations for ${redactUrl(databaseUrl)}:`);
  for (const name of applied) console.log(`  applied  ${name}`);
  for (const name of failed) console.log(`  FAILED   ${name}`);
  for (const name of pending) console.log(`  pending  ${name}`);
  if (pending.length + failed.length > 0) process.exitCode = 1;
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
