import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseProvider } from './provider.js';

/** Repository root, found from this file's location (src/db/) so it works from any working directory. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The single source of truth for the models (provider sqlite). */
export const SCHEMA_PATH = path.join(PROJECT_ROOT, 'prisma', 'schema.prisma');

export const MIGRATIONS_ROOT = path.join(PROJECT_ROOT, 'prisma', 'migrations');

export const GENERATED_DIR = path.join(PROJECT_ROOT, 'src', 'generated');

/** The PostgreSQL schema derived from SCHEMA_PATH by `npm run db:generate` (git-ignored). */
export const POSTGRES_SCHEMA_PATH = path.join(GENERATED_DIR, 'schema.postgresql.prisma');

/** `prisma/migrations/<provider>`: each provider keeps its own migration history. */
export function migrationsDirFor(provider: DatabaseProvider): string {
  return path.join(MIGRATIONS_ROOT, provider);
}

/** Where the Prisma client for a provider is generated (`src/generated/<provider>`). */
export function generatedClientDir(provider: DatabaseProvider): string {
  return path.join(GENERATED_DIR, provider);
}
