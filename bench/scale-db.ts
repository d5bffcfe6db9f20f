/**
 * The scale bench's databases: a fresh PostgreSQL database (or SQLite file) migrated with the app's own
 * migrations, seeded by bench/scale-seed.ts on raw driver connections (node-postgres, better-sqlite3: no
 * Prisma in the way of multi-million-row statements), then vacuumed and analysed; table sizes.
 */
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { createDatabase } from '../src/db/client.js';
import { applyMigrations } from '../src/db/migrate.js';
import { withDatabaseName } from '../tools/db/scratch.js';
import { ROOT } from './processes.js';
import { runSeedJobs, type SeedJob, type SeedPlan, seedStatements } from './scale-seed.js';

const require = createRequire(import.meta.url);

export interface SeedTiming {
  migrateMs: number;
  setupMs: number;
  /** Wall time of the slices, all tables. */
  jobsMs: number;
  /** Busy time per table (summed over slices and connections). */
  perTableMs: Record<string, number>;
  teardownMs: number;
  vacuumMs: number;
  totalMs: number;
  rows: Record<string, number>;
  /** Jobs an interrupted earlier run had finished (this run did the rest). */
  resumedJobs?: number;
  /** Connections the jobs ran on. */
  connections?: number;
}

function assertIdentifier(name: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`Refusing unsafe database name "${name}"`);
}

async function onServer<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function dropPostgres(adminUrl: string, name: string): Promise<void> {
  assertIdentifier(name);
  await onServer(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

export async function postgresExists(adminUrl: string, name: string): Promise<boolean> {
  const r = await onServer(adminUrl, (c) => c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]));
  return r.rowCount === 1;
}

/** Drops and re-creates `name` (empty). */
export async function freshPostgres(adminUrl: string, name: string): Promise<string> {
  assertIdentifier(name);
  await dropPostgres(adminUrl, name);
  await onServer(adminUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
  return withDatabaseName(adminUrl, name);
}

/**
 * The last migration whose schema the seed writes rows for. The seed runs on the schema as of this one;
 * every later migration of the checkout is then applied over the seeded rows, as it would be over a real
 * shop's data when that version is deployed (columns, triggers, backfills: whatever it does to rows the
 * app wrote before).
 */
export const seedSchemaMigration = '20261124193930_status_pushes';

/** Applies the checkout's migrations up to and including `last` (the ones after it stay pending). */
export async function applyMigrationsThrough(
  url: string,
  provider: 'postgresql' | 'sqlite',
  last: string,
): Promise<string[]> {
  const source = path.join(ROOT, 'prisma', 'migrations', provider);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tracksync-scale-migrations-'));
  try {
    await copyFile(path.join(source, 'migration_lock.toml'), path.join(dir, 'migration_lock.toml'));
    const names = (await readdir(source, { withFileTypes: true }))
      .filter((e) => e.isDirectory() && e.name <= last)
      .map((e) => e.name);
    for (const name of names) await cp(path.join(source, name), path.join(dir, name), { recursive: true });
    return (await applyMigrations(url, { migrationsDir: dir })).applied;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface UpgradeResult {
  /** Migrations applied over the seeded rows. */
  migrations: string[];
  migrateMs: number;
  /** Background upgrade work of the version (backfills its worker runs), run to the end or the deadline. */
  hooks: Array<{ name: string; rows: number; ms: number; finished: boolean }>;
  /** VACUUM (ANALYZE) after it (PostgreSQL). */
  vacuumMs: number;
}

/**
 * Background work a version's worker does once after an upgrade, over rows written before it (found by
 * module and function name; absent in older checkouts): called until it reports 0 rows, or the deadline.
 */
const upgradeHooks = [
  {
    module: 'src/jobs/backfill-delivery-facts.ts',
    fn: 'backfillDeliveryFacts',
    what: 'delivery facts of trackers read before the upgrade',
  },
  {
    // The worker folds the rollups' deltas as they come; the bench's app runs as --role web.
    module: 'src/shipments/rollups.ts',
    fn: 'compactRollups',
    what: "the rollups' pending deltas folded in, as the worker does",
  },
];

/** Applies the migrations after the seed's schema, then the version's upgrade backfills. */
export async function upgradeSeeded(
  url: string,
  options: { deadlineMs: number; log: (line: string) => void },
): Promise<UpgradeResult> {
  let t = performance.now();
  const { applied } = await applyMigrations(url);
  const result: UpgradeResult = {
    migrations: applied,
    migrateMs: performance.now() - t,
    hooks: [],
    vacuumMs: 0,
  };
  if (applied.length > 0)
    options.log(
      `  migrations after the seed's schema: ${applied.join(', ')} (${(result.migrateMs / 1000).toFixed(1)} s)`,
    );
  for (const hook of upgradeHooks) {
    const file = path.join(ROOT, hook.module);
    if (!existsSync(file)) continue;
    const fn = ((await import(pathToFileURL(file).href)) as Record<string, unknown>)[hook.fn];
    if (typeof fn !== 'function') continue;
    options.log(`  upgrade work: ${hook.fn} (${hook.what})…`);
    const db = await createDatabase(url);
    t = performance.now();
    let rows = 0;
    let finished = false;
    let lastLog = t;
    try {
      while (performance.now() - t < options.deadlineMs) {
        const n = Number(await (fn as (prisma: unknown) => Promise<unknown>)(db.prisma));
        if (!(n > 0)) {
          finished = true;
          break;
        }
        rows += n;
        if (performance.now() - lastLog > 30_000) {
          lastLog = performance.now();
          options.log(`    ${rows} rows so far, ${((rows / (lastLog - t)) * 1000).toFixed(0)}/s`);
        }
      }
    } finally {
      await db.close();
    }
    const ms = performance.now() - t;
    result.hooks.push({ name: hook.fn, rows, ms, finished });
    options.log(
      `  ${hook.fn}: ${rows} rows in ${(ms / 1000).toFixed(1)} s` +
        (finished ? '' : ' — NOT finished by the deadline: figures that need it are off'),
    );
  }
  // Statistics for what the upgrade added or rewrote (autovacuum would get there; the requests come next).
  if ((applied.length > 0 || result.hooks.length > 0) && url.startsWith('postgres')) {
    t = performance.now();
    await withPgClients(url, 2, async (clients) => {
      const tables = (
        await clients[0]!.query<{ name: string }>(
          `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
        )
      ).rows.map((r) => r.name);
      await Promise.all(
        clients.map(async (c) => {
          for (let name = tables.shift(); name !== undefined; name = tables.shift())
            await c.query(`VACUUM (ANALYZE) "${name}"`);
        }),
      );
    });
    result.vacuumMs = performance.now() - t;
    options.log(`  VACUUM (ANALYZE) after the upgrade: ${(result.vacuumMs / 1000).toFixed(1)} s`);
  }
  return result;
}

/** Opens `n` connections to `url` for the duration of `fn`. */
export async function withPgClients<T>(
  url: string,
  n: number,
  fn: (clients: pg.Client[]) => Promise<T>,
): Promise<T> {
  const clients = Array.from({ length: n }, () => new pg.Client({ connectionString: url }));
  try {
    await Promise.all(clients.map((c) => c.connect()));
    return await fn(clients);
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => {})));
  }
}

export const appTables = [
  'Shop',
  'Fulfillment',
  'TrackingLine',
  'Tracker',
  'StoreFulfillmentEvent',
  'StatusPush',
  'WebhookDelivery',
];

function jobProgress(
  jobs: SeedJob[],
  log: (line: string) => void,
  perTableMs: Record<string, number>,
  doneBefore = 0,
): (job: SeedJob, ms: number) => void {
  const slices = new Set(jobs.map((j) => j.name.replace(/^.*-(\d+)$/, '$1')));
  const jobsPerSlice = jobs.length / slices.size;
  const started = performance.now();
  let jobsDone = doneBefore;
  return (job, ms) => {
    jobsDone++;
    perTableMs[job.table] = (perTableMs[job.table] ?? 0) + ms;
    if (jobsDone % jobsPerSlice === 0)
      log(
        `  ${jobsDone / jobsPerSlice}/${slices.size} slices' worth seeded (${((performance.now() - started) / 1000).toFixed(0)} s so far)`,
      );
  };
}

/** The plan of a seed begun on this database (kept with it, so an interrupted seed can go on). */
export async function readSeedPlan(url: string): Promise<SeedPlan | null> {
  try {
    return await withPgClients(url, 1, async ([c]) => {
      const r = await c!.query<{ value: string }>(`SELECT value FROM scale_meta.info WHERE key = 'plan'`);
      return r.rows[0] ? (JSON.parse(r.rows[0].value) as SeedPlan) : null;
    });
  } catch {
    return null;
  }
}

/**
 * Seeds PostgreSQL over `connections` connections at once, then VACUUM (ANALYZE) every table. Resumable:
 * the setup is one transaction that also records the plan (scale_meta.info 'plan'); each job commits with
 * its own done mark (scale_seed.done); the staging tables go in one transaction that records the jobs as
 * finished. Run again with the same plan, it does only what is missing.
 */
export async function seedPostgres(
  url: string,
  plan: SeedPlan,
  options: { connections: number; log: (line: string) => void },
): Promise<SeedTiming> {
  const started = performance.now();
  const { setup, jobs, teardown } = seedStatements(plan);
  const perTableMs: Record<string, number> = {};
  const timing: SeedTiming = {
    migrateMs: 0,
    setupMs: 0,
    jobsMs: 0,
    perTableMs,
    teardownMs: 0,
    vacuumMs: 0,
    totalMs: 0,
    rows: {},
    resumedJobs: 0,
    connections: options.connections,
  };
  await withPgClients(url, options.connections, async (clients) => {
    for (const c of clients) {
      // Per session only: big sorts and hashes in memory; commits need not wait for the WAL flush
      // (each job is one large transaction anyway).
      await c.query(`SET work_mem = '256MB'`);
      await c.query(`SET synchronous_commit = off`);
    }
    const first = clients[0]!;
    await first.query(`CREATE SCHEMA IF NOT EXISTS scale_meta`);
    await first.query(
      `CREATE TABLE IF NOT EXISTS scale_meta.info (key text PRIMARY KEY, value text NOT NULL)`,
    );
    const jobsFinished = await first.query<{ value: string }>(
      `SELECT value FROM scale_meta.info WHERE key = 'seedJobs'`,
    );
    if (jobsFinished.rows[0]) {
      Object.assign(timing, JSON.parse(jobsFinished.rows[0].value) as Partial<SeedTiming>);
      options.log('  the rows were all written by an earlier run');
    } else {
      let t = performance.now();
      const begun = await first.query<{ ok: boolean }>(
        `SELECT to_regclass('scale_seed.done') IS NOT NULL AS ok`,
      );
      const doneBefore = new Set<string>();
      if (begun.rows[0]!.ok) {
        const rows = await first.query<{ name: string; ms: number; tbl: string }>(
          `SELECT name, ms, tbl FROM scale_seed.done`,
        );
        for (const r of rows.rows) {
          doneBefore.add(r.name);
          perTableMs[r.tbl] = (perTableMs[r.tbl] ?? 0) + r.ms;
        }
        timing.resumedJobs = doneBefore.size;
        options.log(
          `  going on with a seed begun earlier: ${doneBefore.size} of ${jobs.length} jobs were done`,
        );
      } else {
        await first.query('BEGIN');
        for (const sql of setup) await first.query(sql);
        await first.query(
          `CREATE UNLOGGED TABLE scale_seed.done (name text PRIMARY KEY, tbl text NOT NULL, ms double precision NOT NULL)`,
        );
        await first.query(
          `INSERT INTO scale_meta.info VALUES ('plan', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
          [JSON.stringify(plan)],
        );
        await first.query('COMMIT');
      }
      timing.setupMs = performance.now() - t;
      t = performance.now();
      const runners = clients.map((c) => async (job: SeedJob) => {
        const jobStarted = performance.now();
        await c.query('BEGIN');
        try {
          for (const sql of job.sql) await c.query(sql);
          await c.query(`INSERT INTO scale_seed.done VALUES ($1, $2, $3)`, [
            job.name,
            job.table,
            performance.now() - jobStarted,
          ]);
          await c.query('COMMIT');
        } catch (error) {
          await c.query('ROLLBACK').catch(() => {});
          throw error;
        }
      });
      await runSeedJobs(
        jobs,
        runners,
        jobProgress(jobs, options.log, perTableMs, doneBefore.size),
        doneBefore,
      );
      timing.jobsMs = performance.now() - t;
      t = performance.now();
      await first.query('BEGIN');
      for (const sql of teardown) await first.query(sql);
      timing.teardownMs = performance.now() - t;
      await first.query(`INSERT INTO scale_meta.info VALUES ('seedJobs', $1)`, [
        JSON.stringify({
          setupMs: timing.setupMs,
          jobsMs: timing.jobsMs,
          perTableMs,
          teardownMs: timing.teardownMs,
          resumedJobs: timing.resumedJobs,
        }),
      ]);
      await first.query('COMMIT');
    }
    options.log('  VACUUM (ANALYZE) of every table (as autovacuum would after a bulk load)…');
    const t = performance.now();
    const tables = (
      await first.query<{ name: string }>(
        `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
      )
    ).rows.map((r) => r.name);
    const queue = [...tables];
    await Promise.all(
      clients.map(async (c) => {
        await c.query(`SET maintenance_work_mem = '512MB'`);
        for (let name = queue.shift(); name !== undefined; name = queue.shift())
          await c.query(`VACUUM (ANALYZE) "${name}"`);
      }),
    );
    timing.vacuumMs = performance.now() - t;
    for (const table of appTables) {
      const r = await first.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${table}"`);
      timing.rows[table] = Number(r.rows[0]!.n);
    }
  });
  timing.totalMs = performance.now() - started;
  return timing;
}

export interface TableSize {
  table: string;
  bytes: number;
  heapBytes: number;
  toastBytes: number;
  indexBytes: number;
}

/** pg_total_relation_size of every app table (heap, TOAST, indexes, free space and visibility maps). */
export async function postgresTableSizes(url: string): Promise<TableSize[]> {
  return withPgClients(url, 1, async ([c]) => {
    const r = await c!.query<{ table: string; total: string; heap: string; toast: string; indexes: string }>(
      `SELECT c.relname AS table, pg_total_relation_size(c.oid)::text AS total, pg_relation_size(c.oid)::text AS heap,
              COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0)::text AS toast,
              pg_indexes_size(c.oid)::text AS indexes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> '_prisma_migrations'
        ORDER BY pg_total_relation_size(c.oid) DESC`,
    );
    return r.rows.map((row) => ({
      table: row.table,
      bytes: Number(row.total),
      heapBytes: Number(row.heap),
      toastBytes: Number(row.toast),
      indexBytes: Number(row.indexes),
    }));
  });
}

/* ------------------------------------------------------------------ SQLite */

/** The few better-sqlite3 calls used here (the package ships no types in this repository). */
export interface SqliteDb {
  exec(sql: string): void;
  prepare(sql: string): { get(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] };
  close(): void;
}

export function openSqlite(file: string): SqliteDb {
  const Database = require('better-sqlite3') as new (file: string) => SqliteDb;
  return new Database(file);
}

/** Migrates the file with the app's migrations and seeds it on one connection (SQLite: one writer). */
export async function seedSqlite(
  file: string,
  plan: SeedPlan,
  log: (line: string) => void,
): Promise<SeedTiming> {
  const started = performance.now();
  let t = performance.now();
  await applyMigrationsThrough(`file:${file}`, 'sqlite', seedSchemaMigration);
  const migrateMs = performance.now() - t;
  const { setup, jobs, teardown } = seedStatements(plan);
  const perTableMs: Record<string, number> = {};
  const db = openSqlite(file);
  const timing: SeedTiming = {
    migrateMs,
    setupMs: 0,
    jobsMs: 0,
    perTableMs,
    teardownMs: 0,
    vacuumMs: 0,
    totalMs: 0,
    rows: {},
  };
  try {
    // As the app opens it (WAL), with foreign keys checked; the seed's own writes need not be durable.
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA foreign_keys = ON');
    db.exec('PRAGMA synchronous = OFF');
    db.exec('PRAGMA cache_size = -262144');
    db.exec('PRAGMA temp_store = MEMORY');
    t = performance.now();
    db.exec('BEGIN');
    for (const sql of setup) db.exec(sql);
    db.exec('COMMIT');
    timing.setupMs = performance.now() - t;
    t = performance.now();
    await runSeedJobs(
      jobs,
      [
        async (job) => {
          for (const sql of job.sql) db.exec(sql);
        },
      ],
      jobProgress(jobs, log, perTableMs),
    );
    timing.jobsMs = performance.now() - t;
    t = performance.now();
    for (const sql of teardown) db.exec(sql);
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    timing.teardownMs = performance.now() - t;
    for (const table of appTables) {
      const row = db.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number };
      timing.rows[table] = Number(row.n);
    }
  } finally {
    db.close();
  }
  timing.totalMs = performance.now() - started;
  return timing;
}
