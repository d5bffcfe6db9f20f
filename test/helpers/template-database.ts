/**
 * vitest globalSetup of the `sqlite` and `postgresql` projects: migrates one template database per run
 * and provider, so createTestDatabase() (test/helpers/database.ts) copies it instead of applying every
 * migration again through the schema engine. Dropped when the run ends.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import type { TestProject } from 'vitest/node';
import { migrationStatus } from '../../src/db/migrate.js';
import { PROJECT_ROOT } from '../../src/db/paths.js';
import type { DatabaseProvider } from '../../src/db/provider.js';
import { sqliteFilePath } from '../../src/db/provider.js';
import { createScratchDatabase } from '../../tools/db/scratch.js';
import { defaultTestProvider, testPostgresAdminUrl } from './database.js';

export interface TemplateDatabase {
  provider: DatabaseProvider;
  /** What createScratchDatabase takes as `template`: the SQLite file, or the PostgreSQL database name. */
  template: string;
  /** The migrations applied to it, in order. */
  migrations: string[];
}

declare module 'vitest' {
  interface ProvidedContext {
    templateDatabase?: TemplateDatabase;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const provider = defaultTestProvider(project.config.env);
  const scratch = await createScratchDatabase(provider, {
    prefix: 'tracksync_template',
    postgresAdminUrl: testPostgresAdminUrl(),
  });
  try {
    // `npm run db:migrate`'s script, in a process of its own: the schema engine's WebAssembly glue is
    // shared by the whole vitest process and does not survive a second instance (the other project's).
    // Once it has exited, nobody is connected to the template.
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/db-migrate.ts'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: scratch.url },
    });
    const { applied, pending } = await migrationStatus(scratch.url);
    if (pending.length > 0) throw new Error(`the template database still lacks ${pending.join(', ')}`);
    let template: string;
    if (provider === 'sqlite') {
      template = sqliteFilePath(scratch.url);
      // One file, nothing pending in a -wal next to it: a plain copy is then the whole database.
      const adapter = await new PrismaBetterSqlite3({ url: template }).connect();
      try {
        await adapter.executeScript('PRAGMA journal_mode = DELETE');
      } finally {
        await adapter.dispose();
      }
    } else {
      template = new URL(scratch.url).pathname.slice(1);
    }
    project.provide('templateDatabase', { provider, template, migrations: applied });
  } catch (error) {
    await scratch.drop();
    throw error;
  }
  return () => scratch.drop();
}
