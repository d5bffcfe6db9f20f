import type { DatabaseClient } from '../db/client.js';
import { readMigrationsList } from '../db/migrate.js';
import { migrationsDirFor } from '../db/paths.js';
import type { DatabaseProvider } from '../db/provider.js';
import { finishedMigrationNames } from './health-queries.js';

export type Readiness = { ready: true } | { ready: false; reason: string };

/**
 * Ready when the database answers and every migration in prisma/migrations/<provider> is recorded as
 * finished. Reads `_prisma_migrations` directly (cheap), not through the schema engine.
 */
export function createReadinessCheck(prisma: DatabaseClient, provider: DatabaseProvider) {
  let expected: Promise<string[]> | null = null;
  return async (): Promise<Readiness> => {
    expected ??= readMigrationsList(migrationsDirFor(provider), provider).then((list) =>
      list.migrationDirectories.map((d) => d.path),
    );
    let applied: Array<{ migration_name: string }>;
    try {
      applied = await finishedMigrationNames(prisma);
    } catch {
      return { ready: false, reason: 'database unreachable or not migrated' };
    }
    const done = new Set(applied.map((r) => r.migration_name));
    const pending = (await expected).filter((name) => !done.has(name));
    return pending.length === 0
      ? { ready: true }
      : { ready: false, reason: `pending migrations: ${pending.join(', ')}` };
  };
}
