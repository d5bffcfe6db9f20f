/**
 * npm run db:generate [-- --force]
 *
 * Derives the PostgreSQL schema (src/generated/schema.postgresql.prisma) from prisma/schema.prisma
 * and generates both Prisma clients into src/generated/{sqlite,postgresql}. Skips the work when the
 * schema and Prisma version are unchanged since the last run (`--force` regenerates anyway).
 * Runs on postinstall and before `npm test` / `npm run typecheck`.
 */
import { generateClients } from '../tools/db/generate.js';

try {
  await generateClients({ force: process.argv.includes('--force'), log: (message) => console.log(message) });
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
