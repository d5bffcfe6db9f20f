/**
 * `npm run bench:scale [-- --quick]`: the app at scale. Seeds, in SQL (PostgreSQL `generate_series`, SQLite
 * a recursive CTE) into the app's own migrated schema, one shop each of 10k, 100k and 1M tracking lines over
 * 90 days and 10 000 small shops (~1M trackers in all), with everything the app writes per fulfilment
 * (bench/scale-seed.ts); then measures through the app's real HTTP stack, one request at a time, p50/p95
 * and SQL statements per request and size (Shipments: first page, a deep page, every filter, a search by
 * number; Overview; Activity's failures; analytics over 90 days, checked against a direct SQL
 * count; Settings' carriers seen; the whole CSV export with the app's memory; the shoppers' page by number
 * and by order and email), a 10k shop's requests alone and beside the 1M shop, claim times with 3.6k and
 * 70k rows due, bytes per fulfilment; and on SQLite, /healthz and the event loop while the 100k shop's
 * Shipments page loads back to back. Ends with one `name: value` line per figure.
 *
 * Options: --quick (10k and 100k shops, 1 000 small shops, fewer samples), --sizes 10k,100k,1m,
 * --small-shops N, --sqlite-size 100k|none, --skip-pg, --database NAME (default tracksync_scale, dropped
 * and made again; dropped at the end unless --keep), --keep (keep the database, and record each finished
 * part in bench/.tmp/scale-<database>.json), --reuse (with --keep: use a database seeded by an earlier run
 * with the same sizes and skip the parts it finished, so an interrupted run goes on where it stopped),
 * --connections N (seeding connections, default 2), --out FILE (a copy of the output), --postgres-admin-url (default: POSTGRES_ADMIN_URL's server, the
 * default address's, or an embedded one started for the run, where --keep and --reuse keep nothing: bench/postgres.ts).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Cleanup } from './cleanup.js';
import { machineBusyNow } from './cpu.js';
import { startEmulatorProcess } from './emulator.js';
import { freePort, onUnexpectedExit, ROOT } from './processes.js';
import { machineFacts } from './report.js';
import {
  type AnalyticsCheck,
  type BytesPerFulfillment,
  bytesPerFulfillment,
  checkAnalytics,
  type ClaimTimes,
  measureClaims,
  type RetentionRun,
  runRetention,
  storageBench,
} from './scale-checks.js';
import {
  appTables,
  applyMigrationsThrough,
  dropPostgres,
  freshPostgres,
  postgresExists,
  readSeedPlan,
  seedPostgres,
  seedSchemaMigration,
  type SeedTiming,
  type UpgradeResult,
  upgradeSeeded,
  withPgClients,
} from './scale-db.js';
import { median, percentile, startScaleApp } from './scale-http.js';
import { LoadMonitor } from './scale-load.js';
import {
  type CsvResult,
  measureCsv,
  measureShop,
  measureSmallShopRatio,
  type RatioResult,
  type RequestContext,
  type Sampling,
  type ShopMeasurement,
  type ShopUnderTest,
} from './scale-requests.js';
import { measureSqlite, type SqliteResult, sqliteLines } from './scale-sqlite.js';
import { parseSize, plannedShops, type ScaleShop, scaleAccount } from './scale-seed.js';
import { withDatabaseName } from '../tools/db/scratch.js';
import { benchPostgres } from './postgres.js';

interface Params {
  mode: 'full' | 'quick';
  sizes: string[];
  smallShops: number;
  sqliteSize: string | null;
  sampling: Sampling;
  csvTimeoutMs: number;
  ratioRounds: number;
  sqliteLoopMs: number;
  sqliteMaxLoads: number;
  claimsPerStep: number;
  dueCounts: number[];
  pausedTrackers: number;
  upgradeDeadlineMs: number;
  retentionDeadlineMs: number;
  totalTimeoutMs: number;
}

function paramsOf(quick: boolean): Params {
  return quick
    ? {
        mode: 'quick',
        sizes: ['10k', '100k'],
        smallShops: 1000,
        sqliteSize: '100k',
        sampling: {
          samples: 6,
          budgetMs: 20_000,
          filterRounds: 1,
          filterBudgetMs: 60_000,
          proxySamples: 12,
          timeoutMs: 300_000,
        },
        csvTimeoutMs: 180_000,
        ratioRounds: 4,
        sqliteLoopMs: 20_000,
        sqliteMaxLoads: 400,
        claimsPerStep: 3,
        dueCounts: [3_600, 70_000],
        pausedTrackers: 30_000,
        upgradeDeadlineMs: 10 * 60_000,
        retentionDeadlineMs: 10 * 60_000,
        totalTimeoutMs: 3 * 3600_000,
      }
    : {
        mode: 'full',
        sizes: ['10k', '100k', '1m'],
        smallShops: 10_000,
        sqliteSize: '100k',
        sampling: {
          samples: 20,
          budgetMs: 60_000,
          filterRounds: 3,
          filterBudgetMs: 180_000,
          proxySamples: 50,
          timeoutMs: 600_000,
        },
        csvTimeoutMs: 15 * 60_000,
        ratioRounds: 10,
        sqliteLoopMs: 60_000,
        sqliteMaxLoads: 1000,
        claimsPerStep: 5,
        dueCounts: [3_600, 70_000],
        pausedTrackers: 100_000,
        upgradeDeadlineMs: 60 * 60_000,
        retentionDeadlineMs: 30 * 60_000,
        totalTimeoutMs: 8 * 3600_000,
      };
}

interface Figure {
  name: string;
  value: number;
  digits: number;
}

const required = [
  'scale_shipments_p95_ms_1m',
  'scale_search_p95_ms_1m',
  'scale_analytics_p95_ms_1m',
  'scale_analytics_exact',
  'scale_csv_seconds_1m',
  'scale_proxy_p95_ms_1m',
  'scale_poll_claim_ms_70k_due',
  'scale_small_shop_ratio',
  'scale_bytes_per_fulfillment',
  'scale_sqlite_healthz_p99_ms',
];

const out: string[] = [];
let tee: ((line: string) => void) | null = null;
const write = (line: string) => {
  process.stdout.write(`${line}\n`);
  out.push(line);
  tee?.(line);
};
const startedAt = performance.now();
const progress = (line: string) => {
  const lead = /^\n*/.exec(line)![0];
  write(
    `${lead}[${((performance.now() - startedAt) / 1000).toFixed(1).padStart(6)} s] ${line.slice(lead.length)}`,
  );
};
const fmt = (n: number | null | undefined, digits = 1) =>
  n === null || n === undefined || !Number.isFinite(n) ? '—' : n.toFixed(digits);

function checkout(): string {
  try {
    const commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
    }).trim();
    const changed = execFileSync('git', ['-C', ROOT, 'status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean).length;
    return `${commit}${changed ? ` + ${changed} changed tracked files` : ''} (${ROOT})`;
  } catch {
    return ROOT;
  }
}

interface SeedMeta {
  key: string;
  now: number;
  encryptionKey: string;
  shops: ScaleShop[];
  seed: SeedTiming;
  upgrade: UpgradeResult;
  /** Machine load during the seed and the upgrade. */
  load?: Record<string, string>;
}

async function readMeta(url: string): Promise<SeedMeta | null> {
  try {
    return await withPgClients(url, 1, async ([c]) => {
      const r = await c!.query<{ value: string }>(`SELECT value FROM scale_meta.info WHERE key = 'seed'`);
      return r.rows[0] ? (JSON.parse(r.rows[0].value) as SeedMeta) : null;
    });
  } catch {
    return null;
  }
}

async function writeMeta(url: string, meta: SeedMeta): Promise<void> {
  await withPgClients(url, 1, async ([c]) => {
    await c!.query(`CREATE SCHEMA IF NOT EXISTS scale_meta`);
    await c!.query(`CREATE TABLE IF NOT EXISTS scale_meta.info (key text PRIMARY KEY, value text NOT NULL)`);
    await c!.query(
      `INSERT INTO scale_meta.info VALUES ('seed', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
      [JSON.stringify(meta)],
    );
  });
}

async function shopsUnderTest(url: string, shops: ScaleShop[]): Promise<ShopUnderTest[]> {
  return withPgClients(url, 1, async ([c]) => {
    const list: ShopUnderTest[] = [];
    for (const shop of shops) {
      const numbers = await c!.query<{ n: string }>(
        `SELECT "trackingNumber" AS n FROM "TrackingLine" WHERE "shopId" = $1 AND "trackerId" IS NOT NULL ORDER BY random() LIMIT 60`,
        [shop.id],
      );
      const orders = await c!.query<{ name: string }>(
        `SELECT "orderName" AS name FROM "Fulfillment" WHERE "shopId" = $1 AND "status" = 'success' ORDER BY random() LIMIT 60`,
        [shop.id],
      );
      const lines = await c!.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM "TrackingLine" WHERE "shopId" = $1`,
        [shop.id],
      );
      list.push({
        label: shop.label,
        domain: shop.domain,
        id: shop.id!,
        lines: Number(lines.rows[0]!.n),
        numbers: numbers.rows.map((r) => r.n),
        orders: orders.rows.map((r) => ({ name: r.name, email: `buyer${r.name.slice(1)}@example.com` })),
      });
    }
    return list;
  });
}

interface PgResults {
  url: string;
  seed: SeedTiming;
  seedReused: boolean;
  migrateToSeedSchemaMs: number;
  upgrade: UpgradeResult;
  /** As written: everything seeded, nothing deleted. */
  bytes: BytesPerFulfillment;
  retention: RetentionRun | { error: string };
  storage: Record<string, number> | null;
  shops: ShopUnderTest[];
  measured: ShopMeasurement[];
  csv: Map<string, CsvResult>;
  analytics: Map<string, AnalyticsCheck | { error: string }>;
  ratio: RatioResult | null;
  claims: ClaimTimes | { error: string };
  load: Map<string, string>;
}

/**
 * Finished units of a run against one seeded database (--keep), in bench/.tmp/scale-<database>.json: a
 * run with --reuse on the same seed skips them, so an interrupted run goes on where it stopped.
 */
class Checkpoint {
  private units: Record<string, unknown> = {};
  constructor(
    private readonly file: string | null,
    private readonly seedNow: number,
  ) {}

  static async open(file: string | null, seedNow: number, resume: boolean): Promise<Checkpoint> {
    const checkpoint = new Checkpoint(file, seedNow);
    if (file && resume) {
      try {
        const saved = JSON.parse(await readFile(file, 'utf8')) as {
          seedNow: number;
          units: Record<string, unknown>;
        };
        if (saved.seedNow === seedNow) checkpoint.units = saved.units;
      } catch {
        // none yet
      }
    }
    return checkpoint;
  }

  get<T>(unit: string): T | undefined {
    return this.units[unit] as T | undefined;
  }

  async set(unit: string, value: unknown): Promise<void> {
    this.units[unit] = value;
    if (!this.file) return;
    await mkdir(path.dirname(this.file), { recursive: true });
    await writeFile(this.file, JSON.stringify({ seedNow: this.seedNow, units: this.units }));
  }

  list(): string[] {
    return Object.keys(this.units);
  }
}

interface ShopUnit {
  measurement: ShopMeasurement;
  csv: CsvResult;
  analytics: AnalyticsCheck | { error: string };
  load: string;
}

async function postgresPhase(
  params: Params,
  options: { adminUrl: string; database: string; keep: boolean; reuse: boolean; connections: number },
  secret: string,
  cleanup: Cleanup,
  monitor: LoadMonitor,
): Promise<{ results: PgResults; checkpoint: Checkpoint }> {
  const load = new Map<string, string>();
  const key = JSON.stringify({ sizes: params.sizes, small: params.smallShops, schema: seedSchemaMigration });
  const url = withDatabaseName(options.adminUrl, options.database);
  monitor.database = options.database;
  let meta: SeedMeta | null = null;
  if (options.reuse && (await postgresExists(options.adminUrl, options.database))) {
    meta = await readMeta(url);
    if (meta && meta.key !== key) {
      progress(`--reuse: ${options.database} was seeded for ${meta.key}, not ${key}: seeding again`);
      meta = null;
    } else if (meta)
      progress(`--reuse: ${options.database} already seeded (${new Date(meta.now * 1000).toISOString()})`);
  }
  if (!options.keep)
    cleanup.add(`drop the database ${options.database}`, () =>
      dropPostgres(options.adminUrl, options.database),
    );
  let migrateToSeedSchemaMs = 0;
  let seedReused = true;
  if (!meta) {
    seedReused = false;
    const t0 = performance.now();
    const planned = plannedShops(params.sizes, params.smallShops);
    const sameShops = (a: ScaleShop[], b: ScaleShop[]) =>
      a.length === b.length &&
      a.every((x, i) => x.domain === b[i]!.domain && x.fulfillments === b[i]!.fulfillments);
    let plan =
      options.reuse && (await postgresExists(options.adminUrl, options.database))
        ? await readSeedPlan(url)
        : null;
    if (plan && !sameShops(plan.shops, planned)) plan = null;
    let t = performance.now();
    if (plan)
      progress(
        `--reuse: going on with the seed begun on ${options.database} (${new Date(plan.now * 1000).toISOString()})`,
      );
    else {
      progress(`== PostgreSQL: a fresh database ${options.database} ==`);
      await freshPostgres(options.adminUrl, options.database);
      await applyMigrationsThrough(url, 'postgresql', seedSchemaMigration);
      migrateToSeedSchemaMs = performance.now() - t;
      plan = {
        provider: 'postgresql',
        now: Math.floor(Date.now() / 1000) - 60,
        shops: planned,
        slices: 24,
        encryptionKey: `k1:${randomBytes(32).toString('base64')}`,
      };
    }
    const { now, encryptionKey, shops } = plan;
    const fulfillments = shops.reduce((n, s) => n + s.fulfillments, 0);
    progress(
      `seeding ${shops.length} shops, ${fulfillments} fulfilments over 89.9 days (${params.sizes.join(', ')} lines + ` +
        `${params.smallShops} small shops) on ${options.connections} connections, indexes and foreign keys in place…`,
    );
    t = performance.now();
    const seed = await seedPostgres(url, plan, { connections: options.connections, log: progress });
    seed.migrateMs = migrateToSeedSchemaMs;
    load.set('seed', monitor.describe(t));
    progress(`seeded in ${(seed.totalMs / 1000).toFixed(1)} s (${load.get('seed')})`);
    progress(
      'upgrading the seeded database to this checkout (migrations after the seed schema, upgrade work)…',
    );
    t = performance.now();
    const upgrade = await upgradeSeeded(url, { deadlineMs: params.upgradeDeadlineMs, log: progress });
    load.set('upgrade', monitor.describe(t));
    meta = { key, now, encryptionKey, shops, seed, upgrade, load: Object.fromEntries(load) };
    await writeMeta(url, meta);
    progress(`database ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  const { seed, upgrade, encryptionKey, shops } = meta;
  for (const [phase, text] of Object.entries(meta.load ?? {})) if (!load.has(phase)) load.set(phase, text);
  const checkpoint = await Checkpoint.open(
    options.keep ? path.join(ROOT, 'bench', '.tmp', `scale-${options.database}.json`) : null,
    meta.now,
    options.reuse && seedReused,
  );
  if (checkpoint.list().length)
    progress(`--reuse: done in an earlier run (skipped now): ${checkpoint.list().join(', ')}`);
  for (const unit of checkpoint.list()) {
    const saved = checkpoint.get<{ load?: string }>(unit);
    if (saved?.load) load.set(unit.replace(/^shop:/, ''), saved.load);
  }

  let bytes = checkpoint.get<BytesPerFulfillment>('bytesWritten');
  if (!bytes) {
    progress('== bytes per fulfilment, as written ==');
    bytes = await bytesPerFulfillment(url);
    await checkpoint.set('bytesWritten', bytes);
    progress(`${fmt(bytes.bytesPerFulfillment, 0)} B per fulfilment (every row seeded, nothing deleted yet)`);
  }

  const sized = shops.filter((s) => s.label !== 'small');
  const under = await shopsUnderTest(url, sized);
  const shopUnits = new Map<string, ShopUnit>();
  for (const shop of under) {
    const saved = checkpoint.get<ShopUnit>(`shop:${shop.label}`);
    if (saved) shopUnits.set(shop.label, saved);
  }
  let ratio = checkpoint.get<{ ratio: RatioResult; load: string }>('ratio')?.ratio ?? null;
  const needsRequests = under.some((s) => !shopUnits.has(s.label)) || (under.length >= 2 && !ratio);
  if (needsRequests) {
    const emulatorPort = await freePort();
    const emulator = await startEmulatorProcess({
      port: emulatorPort,
      latencyMs: 0,
      accounts: [
        { apiKey: scaleAccount.apiKey, appName: scaleAccount.appName, plan: 'Pro', balance: 1_000_000_000 },
      ],
    });
    const app = await startScaleApp('app-pg', {
      role: 'web',
      databaseUrl: url,
      trackingApiBaseUrl: emulator.baseUrl,
      secret,
      encryptionKey,
    });
    const ctx: RequestContext = { app, secret, sampling: params.sampling, log: progress };
    try {
      for (const shop of under) {
        if (shopUnits.has(shop.label)) continue;
        progress(`== requests: the ${shop.label} shop (${shop.lines} lines), one at a time ==`);
        const t = performance.now();
        const m = await measureShop(ctx, shop);
        progress(`CSV export of the whole ${shop.label} shop…`);
        const c = await measureCsv(ctx, shop, m.listTotal ?? shop.lines, params.csvTimeoutMs);
        progress(
          `  CSV: ${c.rows} rows, ${(c.bytes / 2 ** 20).toFixed(1)} MiB in ${c.seconds.toFixed(1)} s` +
            (c.complete ? '' : ` — cut at the deadline: all rows ≈ ${fmt(c.secondsAll)} s at that rate`) +
            `; RSS ${fmt(c.rssBeforeMb, 0)} → peak ${fmt(c.rssPeakMb, 0)} MiB; ${c.statements} statements` +
            (c.error ? `; ERROR ${c.error}` : ''),
        );
        load.set(shop.label, monitor.describe(t));
        progress(`  ${load.get(shop.label)}`);
        let analytics: AnalyticsCheck | { error: string } = { error: 'no analytics answer' };
        if (m.analyticsBody) {
          try {
            const check = await checkAnalytics(url, shop.id, m.analyticsBody);
            analytics = check;
            const wrong = check.fields.filter((f) => !f.ok);
            progress(
              `  analytics ${check.exact ? 'EXACT' : 'NOT exact'} against SQL (${(check.sqlMs / 1000).toFixed(1)} s)` +
                (wrong.length
                  ? `: ${wrong
                      .slice(0, 6)
                      .map((f) => `${f.field} ${JSON.stringify(f.answered)} ≠ ${JSON.stringify(f.expected)}`)
                      .join('; ')}`
                  : ''),
            );
          } catch (error) {
            analytics = { error: error instanceof Error ? error.message : String(error) };
          }
        }
        const unit: ShopUnit = { measurement: m, csv: c, analytics, load: load.get(shop.label)! };
        shopUnits.set(shop.label, unit);
        await checkpoint.set(`shop:${shop.label}`, unit);
      }
      if (under.length >= 2 && !ratio) {
        const small = under[0]!;
        const big = under[under.length - 1]!;
        progress(`== the ${small.label} shop alone, then beside the ${big.label} shop's merchant ==`);
        const t = performance.now();
        ratio = await measureSmallShopRatio(ctx, small, big, params.ratioRounds);
        load.set('ratio', monitor.describe(t));
        await checkpoint.set('ratio', { ratio, load: load.get('ratio') });
        progress(
          `  ratio ${ratio.ratio.toFixed(2)} (sum of p50 beside ÷ alone; ${ratio.bigRequests} requests of the ${big.label} shop meanwhile)`,
        );
      }
    } finally {
      await app.stop();
      await emulator.child.stop();
    }
  }

  type RetentionUnit = {
    retention: RetentionRun | { error: string };
    storage: Record<string, number> | null;
    load: string;
  };
  let retentionUnit = checkpoint.get<RetentionUnit>('retention');
  if (!retentionUnit) {
    progress('== retention, then bytes per fulfilment again ==');
    const tr = performance.now();
    const retention = await runRetention(url, { deadlineMs: params.retentionDeadlineMs, log: progress });
    load.set('retention', monitor.describe(tr));
    if ('error' in retention) progress(`  retention not run: ${retention.error}`);
    else
      progress(
        `  ${fmt(retention.after.bytesPerFulfillment, 0)} B per fulfilment after retention (${fmt(bytes.bytesPerFulfillment, 0)} as written)`,
      );
    const storage = await storageBench(progress);
    retentionUnit = { retention, storage, load: load.get('retention')! };
    await checkpoint.set('retention', retentionUnit);
  }

  let claims = checkpoint.get<{ claims: ClaimTimes | { error: string }; load: string }>('claims')?.claims;
  if (!claims) {
    progress('== claims (rolled back) ==');
    const t = performance.now();
    claims = await measureClaims(url, {
      dueCounts: params.dueCounts,
      claimsPerStep: params.claimsPerStep,
      pausedTrackers: params.pausedTrackers,
      log: progress,
    });
    load.set('claims', monitor.describe(t));
    if ('error' in claims) progress(`  claims not measured: ${claims.error}`);
    await checkpoint.set('claims', { claims, load: load.get('claims') });
  }
  const measured = under.flatMap((s) =>
    shopUnits.has(s.label) ? [shopUnits.get(s.label)!.measurement] : [],
  );
  return {
    checkpoint,
    results: {
      url,
      seed,
      seedReused,
      migrateToSeedSchemaMs,
      upgrade,
      bytes,
      retention: retentionUnit.retention,
      storage: retentionUnit.storage,
      shops: under,
      measured,
      csv: new Map(
        under.flatMap((s) => (shopUnits.has(s.label) ? [[s.label, shopUnits.get(s.label)!.csv]] : [])),
      ),
      analytics: new Map(
        under.flatMap((s) => (shopUnits.has(s.label) ? [[s.label, shopUnits.get(s.label)!.analytics]] : [])),
      ),
      ratio,
      claims,
      load,
    },
  };
}

/* ------------------------------------------------------------------ report */

const kindNames = [
  'shipments',
  'shipments_deep',
  'shipments_filter',
  'search',
  'overview',
  'failed',
  'analytics',
  'carriers_seen',
  'proxy_number',
  'proxy_order',
  'proxy',
];

function requestTable(measured: ShopMeasurement[]): string[] {
  const lines = [
    '| request | size | n | p50 ms | p95 ms | max ms | statements | bytes | note |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const kind of kindNames)
    for (const m of measured) {
      const k = m.kinds.find((x) => x.kind === kind);
      if (!k) continue;
      lines.push(
        `| ${kind} | ${m.shop.label} | ${k.n} | ${fmt(k.p50)} | ${fmt(k.p95)} | ${fmt(k.max)} | ` +
          `${k.statements ?? '?'}${k.statementsMax !== null && k.statementsMax !== k.statements ? ` (max ${k.statementsMax})` : ''} | ` +
          `${k.bytes} | ${[k.note, k.errors.length ? `errors: ${k.errors.join(' | ').slice(0, 120)}` : ''].filter(Boolean).join('; ')} |`,
      );
    }
  return lines;
}

function filterLines(measured: ShopMeasurement[]): string[] {
  const lines: string[] = [];
  for (const m of measured) {
    const k = m.kinds.find((x) => x.kind === 'shipments_filter');
    if (!k?.details) continue;
    lines.push(
      `  ${m.shop.label}: ${k.details.map((d) => `${d.name} ${fmt(d.p50, 0)} ms/${d.statements ?? '?'} st`).join(', ')}`,
    );
  }
  return lines;
}

function figuresOf(
  pg: PgResults | null,
  sqlite: SqliteResult | null,
  busyBefore: number | null,
  othersPct: number | null,
): Figure[] {
  const figures: Figure[] = [];
  const f = (name: string, value: number | null | undefined, digits = 1) =>
    figures.push({ name, value: value ?? Number.NaN, digits });
  if (pg) {
    for (const m of pg.measured) {
      const L = m.shop.label;
      for (const k of m.kinds) {
        f(`scale_${k.kind}_p50_ms_${L}`, k.p50);
        f(`scale_${k.kind}_p95_ms_${L}`, k.p95);
        f(`scale_${k.kind}_statements_${L}`, k.statements, 0);
      }
      const c = pg.csv.get(L);
      if (c) {
        f(`scale_csv_seconds_${L}`, c.secondsAll, 1);
        f(`scale_csv_complete_${L}`, c.complete ? 1 : 0, 0);
        f(
          `scale_csv_rss_growth_mb_${L}`,
          c.rssPeakMb !== null && c.rssBeforeMb !== null ? c.rssPeakMb - c.rssBeforeMb : null,
          0,
        );
        f(`scale_csv_statements_${L}`, c.statements, 0);
      }
      const a = pg.analytics.get(L);
      f(`scale_analytics_exact_${L}`, a && 'exact' in a ? (a.exact ? 1 : 0) : null, 0);
    }
    const largest = pg.measured.at(-1);
    const a = largest ? pg.analytics.get(largest.shop.label) : undefined;
    f('scale_analytics_exact', a && 'exact' in a ? (a.exact ? 1 : 0) : null, 0);
    if (!('error' in pg.claims)) {
      const dueName = (due: number) => (due >= 1000 && due % 1000 === 0 ? `${due / 1000}k` : String(due));
      const queueName = (queue: string) => (queue === 'status-polls' ? 'poll' : 'tracker');
      // bench/claims.ts's timing when the checkout has it; this bench's own claimDue loop otherwise.
      if (pg.claims.hook.length > 0)
        for (const h of pg.claims.hook)
          f(`scale_${queueName(h.queue)}_claim_ms_${dueName(h.due)}_due`, h.p50Ms, 1);
      else
        for (const row of pg.claims.rows)
          f(`scale_${queueName(row.queue)}_claim_ms_${dueName(row.due)}_due`, median(row.claimsMs), 1);
    }
    f('scale_small_shop_ratio', pg.ratio?.ratio, 2);
    f(
      'scale_bytes_per_fulfillment',
      'error' in pg.retention ? pg.bytes.bytesPerFulfillment : pg.retention.after.bytesPerFulfillment,
      0,
    );
    f('scale_bytes_per_fulfillment_written', pg.bytes.bytesPerFulfillment, 0);
    if (!('error' in pg.retention)) {
      f('scale_retention_seconds', pg.retention.ms / 1000, 1);
      f('scale_retention_finished', pg.retention.finished ? 1 : 0, 0);
    }
    for (const [key, value] of Object.entries(pg.storage ?? {}))
      f(
        `scale_storage_bench_bytes_per_fulfillment_${key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`,
        value,
        0,
      );
    const rows = Object.values(pg.seed.rows).reduce((n, x) => n + x, 0);
    // A seed resumed after an interruption: its jobs' own times over the connections they ran on.
    const jobsMs = pg.seed.resumedJobs
      ? Object.values(pg.seed.perTableMs).reduce((n, ms) => n + ms, 0) / (pg.seed.connections ?? 2)
      : pg.seed.jobsMs;
    const seedMs = pg.seed.resumedJobs
      ? pg.seed.setupMs + jobsMs + pg.seed.teardownMs + pg.seed.vacuumMs
      : pg.seed.totalMs;
    f('scale_seed_seconds', seedMs / 1000, 1);
    f('scale_seed_rows', rows, 0);
    f('scale_seed_rows_per_s', rows / (jobsMs / 1000), 0);
    f('scale_seed_resumed', pg.seed.resumedJobs ? 1 : 0, 0);
    f(
      'scale_upgrade_seconds',
      (pg.upgrade.migrateMs + pg.upgrade.hooks.reduce((n, h) => n + h.ms, 0)) / 1000,
      1,
    );
  }
  if (sqlite) {
    f('scale_sqlite_healthz_p99_ms', percentile(sqlite.healthzMs, 99), 1);
    f('scale_sqlite_healthz_max_ms', percentile(sqlite.healthzMs, 100), 1);
    f('scale_sqlite_healthz_idle_p99_ms', percentile(sqlite.healthzIdleMs, 99), 1);
    f('scale_sqlite_event_loop_max_ms', sqlite.eventLoopMaxMs, 1);
    f('scale_sqlite_list_p50_ms', median(sqlite.listMs), 1);
    f('scale_sqlite_list_p95_ms', percentile(sqlite.listMs, 95), 1);
    f('scale_sqlite_seed_seconds', sqlite.seed.totalMs / 1000, 1);
  }
  f('scale_machine_busy_before_pct', busyBefore, 0);
  f('scale_others_busy_pct', othersPct, 0);
  f('machine_idle', busyBefore !== null && busyBefore <= 10 ? 1 : 0, 0);
  // The issue's figures first, then the rest in order.
  const rank = (name: string) => {
    const i = required.indexOf(name);
    return i === -1 ? required.length : i;
  };
  return figures
    .map((x, i) => ({ x, i }))
    .sort((a, b) => rank(a.x.name) - rank(b.x.name) || a.i - b.i)
    .map((e) => e.x);
}

async function main(cleanup: Cleanup): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      sizes: { type: 'string' },
      'small-shops': { type: 'string' },
      'sqlite-size': { type: 'string' },
      'skip-pg': { type: 'boolean', default: false },
      database: { type: 'string', default: 'tracksync_scale' },
      keep: { type: 'boolean', default: false },
      reuse: { type: 'boolean', default: false },
      connections: { type: 'string', default: '2' },
      out: { type: 'string' },
      'postgres-admin-url': { type: 'string' },
    },
    strict: true,
  });
  const params = paramsOf(values.quick);
  if (values.sizes) params.sizes = values.sizes.split(',').map((s) => s.trim().toLowerCase());
  params.sizes.sort((a, b) => parseSize(a) - parseSize(b));
  if (values['small-shops'] !== undefined) params.smallShops = Number(values['small-shops']);
  if (values['sqlite-size'] !== undefined)
    params.sqliteSize = values['sqlite-size'] === 'none' ? null : values['sqlite-size'].toLowerCase();
  const connections = Number(values.connections);
  if (!Number.isInteger(params.smallShops) || params.smallShops < 0)
    throw new Error('--small-shops must be ≥ 0');
  if (!Number.isInteger(connections) || connections < 1) throw new Error('--connections must be ≥ 1');
  if (values.out) {
    const stream = createWriteStream(values.out);
    for (const line of out) stream.write(`${line}\n`);
    tee = (line) => stream.write(`${line}\n`);
    cleanup.add('close the output file', () => new Promise((resolve) => stream.end(resolve)));
  }
  const watchdog = setTimeout(() => {
    write(`\nbench:scale: the whole run exceeded ${params.totalTimeoutMs / 60_000} min; stopping`);
    void cleanup.runAll(write).finally(() => process.exit(1));
  }, params.totalTimeoutMs);
  watchdog.unref();

  const busyBefore = await machineBusyNow(1_000);
  const monitor = new LoadMonitor();
  monitor.start();
  cleanup.add('stop the load monitor', async () => monitor.stop());
  write(`tracksync bench:scale (${params.mode}) — ${new Date().toISOString()}`);
  write(`  checkout: ${checkout()}`);
  for (const line of machineFacts()) write(`  ${line}`);
  write(
    `  machine busy before the run (other processes): ${busyBefore === null ? '?' : Math.round(busyBefore)} % of all cores` +
      ` → machine_idle ${busyBefore !== null && busyBefore <= 10 ? 1 : 0}`,
  );
  write(
    `  sizes: ${params.sizes.join(', ')} lines + ${params.smallShops} small shops on PostgreSQL${values['skip-pg'] ? ' (skipped)' : ''}; ` +
      `SQLite: ${params.sqliteSize ?? 'none'}; seed schema ${seedSchemaMigration}, later migrations applied over the seeded rows`,
  );
  write(
    `  sampling: ${params.sampling.samples} requests per kind (or ${params.sampling.budgetMs / 1000} s), ` +
      `${params.sampling.filterRounds} round(s) of every filter, ${params.sampling.proxySamples} lookups per kind, ` +
      `CSV cut at ${params.csvTimeoutMs / 60_000} min, ${params.ratioRounds} rounds alone/beside`,
  );
  write('');

  const secret = randomBytes(24).toString('hex');
  let pg: PgResults | null = null;
  let checkpoint: Checkpoint | null = null;
  if (!values['skip-pg'])
    ({ results: pg, checkpoint } = await postgresPhase(
      params,
      {
        adminUrl: await benchPostgres(cleanup, write, values['postgres-admin-url']),
        database: values.database,
        keep: values.keep,
        reuse: values.reuse,
        connections,
      },
      secret,
      cleanup,
      monitor,
    ));

  let sqlite: SqliteResult | null = checkpoint?.get<SqliteResult>('sqlite') ?? null;
  if (params.sqliteSize && !sqlite) {
    progress(`== SQLite: the ${params.sqliteSize} shop ==`);
    const t = performance.now();
    const emulatorPort = await freePort();
    const emulator = await startEmulatorProcess({
      port: emulatorPort,
      latencyMs: 0,
      accounts: [
        { apiKey: scaleAccount.apiKey, appName: scaleAccount.appName, plan: 'Pro', balance: 1_000_000_000 },
      ],
    });
    try {
      sqlite = await measureSqlite({
        size: params.sqliteSize,
        secret,
        encryptionKey: `k1:${randomBytes(32).toString('base64')}`,
        trackingApiBaseUrl: emulator.baseUrl,
        loopMs: params.sqliteLoopMs,
        maxLoads: params.sqliteMaxLoads,
        upgradeDeadlineMs: params.upgradeDeadlineMs,
        cleanup,
        log: progress,
      });
    } finally {
      await emulator.child.stop();
    }
    if (sqlite) await checkpoint?.set('sqlite', sqlite);
    progress(`SQLite phase: ${monitor.describe(t)}`);
  }
  const whole = monitor.since(0);
  monitor.stop();

  /* -------------------------------------------------------------- the report */
  write('');
  write(`== results (${params.mode}) ==`);
  write(
    `machine: ${busyBefore === null ? '?' : Math.round(busyBefore)} % busy before the run (machine_idle ${busyBefore !== null && busyBefore <= 10 ? 1 : 0}); ` +
      `over the run ${fmt(whole?.busyPct, 0)} % busy, other work (not this bench, its children or its database backends) ${fmt(whole?.othersPct, 0)} %`,
  );
  if (pg) {
    for (const [phase, text] of pg.load) write(`  ${phase}: ${text}`);
    write('');
    const rows = pg.seed.rows;
    const f = rows.Fulfillment || 1;
    write(
      `PostgreSQL seed${pg.seedReused ? ' (reused from an earlier run)' : ''}: ${Object.values(rows).reduce((a, b) => a + b, 0)} rows in ` +
        `${(pg.seed.totalMs / 1000).toFixed(1)} s${pg.seed.resumedJobs ? ` (this run; ${pg.seed.resumedJobs} jobs were done by an interrupted earlier run)` : ''} (migrate ${fmt(pg.seed.migrateMs / 1000)} s, setup ${fmt(pg.seed.setupMs / 1000)} s, ` +
        `rows ${fmt(pg.seed.jobsMs / 1000)} s, VACUUM ANALYZE ${fmt(pg.seed.vacuumMs / 1000)} s)`,
    );
    write(
      `  rows per fulfilment: ${appTables
        .filter((t) => t !== 'Shop')
        .map((t) => `${t} ${((rows[t] ?? 0) / f).toFixed(2)}`)
        .join(', ')}; ${rows.Shop} shops`,
    );
    write(
      `  busy time per table (all slices, summed over connections): ${Object.entries(pg.seed.perTableMs)
        .map(([t, ms]) => `${t} ${(ms / 1000).toFixed(0)} s`)
        .join(', ')}`,
    );
    write(
      `  upgrade to this checkout: ${pg.upgrade.migrations.length ? `${pg.upgrade.migrations.join(', ')} in ${fmt(pg.upgrade.migrateMs / 1000)} s` : 'no later migration'}` +
        pg.upgrade.hooks
          .map(
            (h) =>
              `; ${h.name}: ${h.rows} rows in ${fmt(h.ms / 1000)} s${h.finished ? '' : ' (NOT finished)'}`,
          )
          .join('') +
        (pg.upgrade.vacuumMs ? `; VACUUM (ANALYZE) ${fmt(pg.upgrade.vacuumMs / 1000)} s` : ''),
    );
    write('');
    const bytesLines = (label: string, b: BytesPerFulfillment) => {
      write(
        `bytes per fulfilment ${label}: ${fmt(b.bytesPerFulfillment, 0)} (${b.fulfillments} fulfilments, ${(b.totalBytes / 2 ** 30).toFixed(2)} GiB; ` +
          `pg_total_relation_size of every app table ÷ fulfilments)`,
      );
      for (const t of b.tables.filter((x) => x.bytes > 1 << 20))
        write(
          `  ${t.table}: ${(t.bytes / Math.max(1, b.fulfillments)).toFixed(0)} B/fulfilment, ${b.rows[t.table] ?? '?'} rows ` +
            `(heap ${(t.heapBytes / 2 ** 20).toFixed(0)} MiB, TOAST ${(t.toastBytes / 2 ** 20).toFixed(0)} MiB, indexes ${(t.indexBytes / 2 ** 20).toFixed(0)} MiB)`,
        );
    };
    bytesLines('as written (after seeding and VACUUM ANALYZE, nothing deleted)', pg.bytes);
    if ('error' in pg.retention) write(`retention: not run (${pg.retention.error})`);
    else {
      write(
        `retention: ${pg.retention.what}: ${pg.retention.rowsDeleted} rows deleted in ${pg.retention.passes} pass(es), ` +
          `${fmt(pg.retention.ms / 1000)} s${pg.retention.finished ? '' : ' (NOT finished)'}; VACUUM FULL of ` +
          `${pg.retention.compacted.join(', ') || 'nothing'} ${fmt(pg.retention.compactMs / 1000)} s`,
      );
      bytesLines('after retention', pg.retention.after);
    }
    if (pg.storage)
      write(
        `bench/storage.ts (its own steady state): ${Object.entries(pg.storage)
          .map(([k, v]) => `${k} ${v.toFixed(0)} B`)
          .join(', ')}`,
      );
    write('');
    write(
      `requests (PostgreSQL, the app as --role web, one request at a time; paging: ${pg.measured.map((m) => `${m.shop.label} ${m.paging}`).join(', ')}):`,
    );
    for (const line of requestTable(pg.measured)) write(line);
    write('each filter (p50 ms / statements):');
    for (const line of filterLines(pg.measured)) write(line);
    write('');
    write('CSV export of the whole shop:');
    for (const [label, c] of pg.csv)
      write(
        `  ${label}: ${c.rows}${c.expectedRows ? ` of ${c.expectedRows}` : ''} rows in ${c.seconds.toFixed(1)} s` +
          `${c.complete ? '' : ` (cut; all ≈ ${fmt(c.secondsAll)} s at that rate)`}, ${(c.bytes / 2 ** 20).toFixed(1)} MiB, ` +
          `RSS ${fmt(c.rssBeforeMb, 0)} → peak ${fmt(c.rssPeakMb, 0)} MiB, ${c.statements} statements${c.error ? `, ERROR ${c.error}` : ''}`,
      );
    write('analytics (days=90) against a direct SQL count:');
    for (const [label, a] of pg.analytics) {
      if ('error' in a) write(`  ${label}: not checked (${a.error})`);
      else {
        const wrong = a.fields.filter((x) => !x.ok);
        write(
          `  ${label}: ${a.exact ? 'exact' : 'NOT exact'} (${a.fields.length} fields)` +
            (wrong.length
              ? `: ${wrong.map((x) => `${x.field} answered ${JSON.stringify(x.answered)}, SQL ${JSON.stringify(x.expected)}`).join('; ')}`
              : ''),
        );
      }
    }
    if (pg.ratio) {
      write(
        `small shop alone vs beside the big shop (${pg.ratio.rounds} rounds; ratio ${pg.ratio.ratio.toFixed(2)}):`,
      );
      for (let i = 0; i < pg.ratio.alone.length; i++) {
        const a = pg.ratio.alone[i]!;
        const b = pg.ratio.beside[i]!;
        write(`  ${a.kind}: p50 ${fmt(a.p50)} → ${fmt(b.p50)} ms, p95 ${fmt(a.p95)} → ${fmt(b.p95)} ms`);
      }
      if (pg.ratio.bigErrors.length) write(`  big shop errors meanwhile: ${pg.ratio.bigErrors.join(' | ')}`);
    }
    write('claims:');
    if ('error' in pg.claims) write(`  not measured: ${pg.claims.error}`);
    else {
      write(`  ${pg.claims.note}`);
      for (const h of pg.claims.hook)
        write(
          `  bench/claims.ts, ${h.due} due: ${h.queue} (limit ${h.limit}) first ${h.firstMs.toFixed(1)} ms, p50 ${h.p50Ms.toFixed(1)} ms, max ${h.maxMs.toFixed(1)} ms, ${h.rows} rows a claim`,
        );
      for (const row of pg.claims.rows)
        write(
          `  ${row.queue}, ${row.due} due, limit ${row.limit}: ${row.claimsMs.map((ms) => ms.toFixed(1)).join(', ')} ms (p50 ${median(row.claimsMs).toFixed(1)}), claimed ${row.claimed.join('/')}`,
        );
    }
  }
  if (sqlite) {
    write('');
    for (const line of sqliteLines(sqlite)) write(line);
    if (sqlite.upgrade.migrations.length || sqlite.upgrade.hooks.length)
      write(
        `  upgrade: ${sqlite.upgrade.migrations.join(', ') || 'no later migration'} in ${fmt(sqlite.upgrade.migrateMs / 1000)} s` +
          sqlite.upgrade.hooks.map((h) => `; ${h.name}: ${h.rows} rows in ${fmt(h.ms / 1000)} s`).join(''),
      );
  }
  const figures = figuresOf(pg, sqlite, busyBefore, whole?.othersPct ?? null);
  const missing = required.filter((name) => !figures.some((x) => x.name === name));
  write('');
  write(
    `${((performance.now() - startedAt) / 60_000).toFixed(1)} min wall time${missing.length ? `; not measured in this run: ${missing.join(', ')}` : ''}`,
  );
  write('');
  for (const x of figures)
    write(`${x.name}: ${Number.isFinite(x.value) ? x.value.toFixed(x.digits) : 'NaN'}`);
  return 0;
}

const cleanup = new Cleanup();
cleanup.installSignalHandlers(write);
onUnexpectedExit((child, code, signal) => {
  if (cleanup.interrupted) return;
  write(`\n${child.name} (pid ${child.pid}) exited unexpectedly (${code ?? signal}); its last output:`);
  write(child.output().trim().slice(-3000) || '(none)');
});
main(cleanup).then(
  async (code) => {
    if (cleanup.interrupted) return;
    await cleanup.runAll(write);
    process.exit(code);
  },
  async (error: unknown) => {
    if (cleanup.interrupted) return;
    write(`\nbench:scale failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await cleanup.runAll(write);
    process.exit(1);
  },
);
