/**
 * The scale bench's checks on PostgreSQL: are the analytics exact (the answer against a direct SQL count
 * of the seeded rows), how long a claim takes with many rows due, and how many bytes a fulfilment costs.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parcelGroupOf } from '../src/ui/vocabulary.js';
import { createDatabase } from '../src/db/client.js';
import { median, percentile } from './scale-http.js';
import { postgresTableSizes, type TableSize, withPgClients } from './scale-db.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

/** Imports a module of this checkout by path if it exists (it may not, in an older or newer checkout). */
export async function optionalModule(relative: string): Promise<Record<string, unknown> | null> {
  const file = path.join(root, relative);
  if (!existsSync(file)) return null;
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}

/* ------------------------------------------------------------------ analytics */

interface Figures {
  shipments: number;
  delivered: number;
  avgTransitDays: number | null;
  p90TransitDays: number | null;
  onTime: { measured: number; onTime: number };
  exceptions: number;
  failedAttempts: number;
}

export interface AnalyticsCheck {
  exact: boolean;
  /** Every field compared: expected (SQL) vs answered. */
  fields: Array<{ field: string; expected: unknown; answered: unknown; ok: boolean }>;
  sqlMs: number;
}

interface AnalyticsAnswer {
  from?: string;
  to?: string;
  byStatus?: Record<string, number>;
  total?: Figures;
  carriers?: Array<{ provider: string; shipments: number }>;
  truncated?: boolean;
}

/**
 * The shop's analytics over the answer's own window (from..to), counted in SQL from the trackers and their
 * stored histories, with statuses grouped by this checkout's own parcelGroupOf (the pairs seen are
 * classified in TypeScript and joined as a table). Transit times as the app defines them: from the first
 * event with a time (else the tracker's creation) to the last delivered event (else the last event); on
 * time when delivered before the end of the estimated day (UTC). Counts must match exactly; the average
 * and 90th percentile transit within 0.05 / 0.1 day (rounding to tenths may be done before or after).
 */
export async function checkAnalytics(
  url: string,
  shopId: string,
  answerText: string,
): Promise<AnalyticsCheck> {
  const answer = JSON.parse(answerText) as AnalyticsAnswer;
  const from = answer.from ?? new Date(Date.now() - 90 * 86_400_000).toISOString();
  const to = answer.to ?? new Date().toISOString();
  const started = performance.now();
  const result = await withPgClients(url, 1, async ([c]) => {
    const client = c!;
    await client.query(`SET work_mem = '256MB'`);
    const windowOf = (a: string) =>
      `${a}"shopId" = $1 AND ${a}"desired" = 'active' AND ${a}"createdAt" >= $2::timestamptz AT TIME ZONE 'UTC' AND ${a}"createdAt" <= $3::timestamptz AT TIME ZONE 'UTC'`;
    const window = windowOf('');
    const pairs = await client.query<{ s: string; d: string }>(
      `SELECT DISTINCT COALESCE("status", '') AS s, COALESCE("statusDetail", '') AS d FROM "Tracker" WHERE ${window}
       UNION SELECT DISTINCT COALESCE(e->>'status', 'unknown'), COALESCE(e->>'statusDetail', '')
         FROM "Tracker" t, jsonb_array_elements(CASE WHEN t.events IS NULL OR t.events = '' THEN '[]'::jsonb ELSE t.events::jsonb END) e
        WHERE ${windowOf('t.')}`,
      [shopId, from, to],
    );
    const cls = pairs.rows.map((p) => [p.s, p.d, parcelGroupOf(p.s || null, p.d || null)]);
    const values = cls.map((_, i) => `($${4 + i * 3}, $${5 + i * 3}, $${6 + i * 3})`).join(', ');
    const params = [shopId, from, to, ...cls.flat()];
    const per = `
      WITH cls(s, d, grp) AS (VALUES ${values}),
      t AS (SELECT id, provider, COALESCE(status, '') AS s, COALESCE("statusDetail", '') AS d, events,
                   "estimatedDelivery" AS est, extract(epoch FROM "lastEventAt") AS last_at, extract(epoch FROM "createdAt") AS created
              FROM "Tracker" WHERE ${window}),
      ev AS (SELECT t.id, x.ord, x.e->>'at' AS at, c.grp AS egrp
               FROM t CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN t.events IS NULL OR t.events = '' THEN '[]'::jsonb ELSE t.events::jsonb END) WITH ORDINALITY AS x(e, ord)
               LEFT JOIN cls c ON c.s = COALESCE(x.e->>'status', 'unknown') AND c.d = COALESCE(x.e->>'statusDetail', '')),
      agg AS (SELECT ev.id, bool_or(ev.egrp = 'exception') AS any_exc, bool_or(ev.egrp = 'failed_attempt') AS any_fa,
                     (array_agg(extract(epoch FROM (ev.at)::timestamptz) ORDER BY ev.ord) FILTER (WHERE ev.at IS NOT NULL))[1] AS first_at,
                     (array_agg(ev.at ORDER BY ev.ord DESC) FILTER (WHERE ev.egrp = 'delivered'))[1] AS del_at
                FROM ev GROUP BY ev.id),
      p AS (SELECT t.id, t.provider, c.grp, t.est, t.created, t.last_at, a.any_exc, a.any_fa, a.first_at,
                   CASE WHEN c.grp = 'delivered' THEN COALESCE(extract(epoch FROM (a.del_at)::timestamptz), t.last_at) END AS delivered_at
              FROM t JOIN cls c ON c.s = t.s AND c.d = t.d LEFT JOIN agg a ON a.id = t.id),
      q AS (SELECT p.*,
                   CASE WHEN p.delivered_at IS NOT NULL THEN greatest(0, (p.delivered_at - least(COALESCE(p.first_at, p.created), p.delivered_at)) / 86400.0) END AS transit,
                   CASE WHEN p.delivered_at IS NOT NULL AND p.est ~ '^\\d{4}-\\d{2}-\\d{2}'
                        THEN p.delivered_at < extract(epoch FROM (substr(p.est, 1, 10) || 'T00:00:00Z')::timestamptz) + 86400 END AS on_time
              FROM p)`;
    const totals = await client.query<{
      shipments: string;
      delivered: string;
      avg: number | null;
      p90: number | null;
      measured: string;
      on_time: string;
      exceptions: string;
      failed: string;
    }>(
      `${per} SELECT count(*)::text AS shipments, count(*) FILTER (WHERE grp = 'delivered')::text AS delivered,
              avg(transit)::float8 AS avg, (percentile_disc(0.9) WITHIN GROUP (ORDER BY transit))::float8 AS p90,
              count(on_time)::text AS measured, count(*) FILTER (WHERE on_time)::text AS on_time,
              count(*) FILTER (WHERE grp = 'exception' OR any_exc)::text AS exceptions,
              count(*) FILTER (WHERE grp = 'failed_attempt' OR any_fa)::text AS failed
         FROM q`,
      params,
    );
    const byGroup = await client.query<{ grp: string; n: string }>(
      `${per} SELECT grp, count(*)::text AS n FROM q GROUP BY grp`,
      params,
    );
    const byCarrier = await client.query<{ provider: string; n: string }>(
      `${per} SELECT provider, count(*)::text AS n FROM q GROUP BY provider`,
      params,
    );
    return { totals: totals.rows[0]!, byGroup: byGroup.rows, byCarrier: byCarrier.rows };
  });
  const sqlMs = performance.now() - started;

  const fields: AnalyticsCheck['fields'] = [];
  const same = (field: string, expected: unknown, answered: unknown, tolerance = 0) => {
    const ok =
      typeof expected === 'number' && typeof answered === 'number'
        ? Math.abs(expected - answered) <= tolerance + 1e-9
        : expected === answered;
    fields.push({ field, expected, answered, ok });
  };
  const t = result.totals;
  const total = answer.total;
  same('truncated', false, answer.truncated ?? false);
  same('total.shipments', Number(t.shipments), total?.shipments);
  same('total.delivered', Number(t.delivered), total?.delivered);
  same('total.exceptions', Number(t.exceptions), total?.exceptions);
  same('total.failedAttempts', Number(t.failed), total?.failedAttempts);
  same('total.onTime.measured', Number(t.measured), total?.onTime?.measured);
  same('total.onTime.onTime', Number(t.on_time), total?.onTime?.onTime);
  same(
    'total.avgTransitDays',
    t.avg === null ? null : Math.round(t.avg * 10) / 10,
    total?.avgTransitDays,
    0.05,
  );
  same(
    'total.p90TransitDays',
    t.p90 === null ? null : Math.round(t.p90 * 10) / 10,
    total?.p90TransitDays,
    0.1,
  );
  const groups = new Map(result.byGroup.map((g) => [g.grp, Number(g.n)]));
  for (const key of new Set([...groups.keys(), ...Object.keys(answer.byStatus ?? {})]))
    same(`byStatus.${key}`, groups.get(key) ?? 0, answer.byStatus?.[key] ?? 0);
  const carriers = new Map(result.byCarrier.map((c) => [c.provider, Number(c.n)]));
  const answered = new Map((answer.carriers ?? []).map((c) => [c.provider, c.shipments]));
  for (const key of new Set([...carriers.keys(), ...answered.keys()]))
    same(`carriers.${key}.shipments`, carriers.get(key) ?? 0, answered.get(key) ?? 0);
  return { exact: fields.every((f) => f.ok), fields, sqlMs };
}

/* ------------------------------------------------------------------ claims */

export interface ClaimTimes {
  /** Claim statements timed per queue and due count (this bench's own loop over claimDue). */
  rows: Array<{ queue: string; due: number; limit: number; claimsMs: number[]; claimed: number[] }>;
  /** bench/claims.ts measureClaims on the same due rows, when this checkout has it. */
  hook: Array<{
    due: number;
    queue: string;
    limit: number;
    rows: number;
    firstMs: number;
    p50Ms: number;
    maxMs: number;
  }>;
  pausedShops: number;
  pausedTrackers: number;
  note: string;
}

interface HookTiming {
  queue: string;
  limit: number;
  rows: number;
  firstMs: number;
  p50Ms: number;
  maxMs: number;
}

type ClaimDue = (
  db: unknown,
  queue: unknown,
  request: { token: string; now: Date; leaseMs: number; limit: number; perGroupMax?: number },
) => Promise<string[]>;

class Rollback extends Error {}

/**
 * Claim times as the worker claims (src/db/lease-queue.ts claimDue with the status-poll and tracker
 * queues of src/db/queues.ts, at the worker's default limits), with `dueCounts` rows due in each queue
 * across the non-paused shops and ~100k pending trackers in paused shops (which a claim must skip), all in
 * one transaction that is rolled back. Statistics are refreshed inside it (ANALYZE sees the transaction's
 * own rows), as autovacuum would have done for rows due that long. Each claim takes the next rows (the ones
 * before are leased), as successive passes would.
 */
export async function measureClaims(
  url: string,
  options: {
    dueCounts: number[];
    claimsPerStep: number;
    pausedTrackers: number;
    log: (line: string) => void;
  },
): Promise<ClaimTimes | { error: string }> {
  const leaseQueue = await optionalModule('src/db/lease-queue.ts');
  const queues = await optionalModule('src/db/queues.ts');
  const claimDue = leaseQueue?.claimDue as ClaimDue | undefined;
  const pollQueue = queues?.statusPollQueue;
  const trackerQueue = queues?.trackerQueue;
  if (typeof claimDue !== 'function' || !pollQueue || !trackerQueue)
    return { error: 'claimDue, statusPollQueue or trackerQueue not found in this checkout' };
  const claimsBench = await optionalModule('bench/claims.ts');
  const hook = claimsBench?.measureClaims as
    | ((prisma: unknown, options: { repeats?: number; now?: Date }) => Promise<Record<string, HookTiming>>)
    | undefined;
  const db = await createDatabase(url);
  const out: ClaimTimes = { rows: [], hook: [], pausedShops: 0, pausedTrackers: 0, note: '' };
  const now = new Date();
  try {
    await db.prisma
      .$transaction(
        async (tx) => {
          // Small shops paused (balance exhausted) until ~100k of their trackers wait: due, but skipped.
          const paused = await tx.$queryRawUnsafe<{ id: string; n: number }[]>(
            `SELECT s."id", count(t."id")::int AS n FROM "Shop" s JOIN "Tracker" t ON t."shopId" = s."id"
              WHERE s."domain" LIKE 'small-%' GROUP BY s."id" ORDER BY s."domain"`,
          );
          const pausedIds: string[] = [];
          let sum = 0;
          for (const p of paused) {
            if (sum >= options.pausedTrackers) break;
            pausedIds.push(p.id);
            sum += p.n;
          }
          out.pausedShops = pausedIds.length;
          if (pausedIds.length > 0) {
            await tx.$executeRawUnsafe(
              `UPDATE "Shop" SET "pausedAt" = $1::timestamp, "pausedReason" = 'balance_exhausted', "probeAt" = $2::timestamp WHERE "id" = ANY($3::text[])`,
              now.toISOString(),
              new Date(now.getTime() + 600_000).toISOString(),
              pausedIds,
            );
            out.pausedTrackers = await tx.$executeRawUnsafe(
              `UPDATE "Tracker" SET "syncState" = 'pending', "remote" = 'absent', "nextAttemptAt" = $1::timestamp - (random() * interval '1 hour')
                WHERE "shopId" = ANY($2::text[]) AND "desired" = 'active'`,
              now.toISOString(),
              pausedIds,
            );
          }
          // Two random sets of trackers of the other shops: one due a status read, one due a sync.
          const max = Math.max(...options.dueCounts);
          const candidates = await tx.$queryRawUnsafe<{ id: string }[]>(
            `SELECT t."id" FROM "Tracker" t JOIN "Shop" s ON s."id" = t."shopId"
              WHERE s."pausedAt" IS NULL AND t."desired" = 'active' AND t."remote" = 'present'
              ORDER BY random() LIMIT ${2 * max}`,
          );
          const pollSet = candidates.slice(0, max).map((r) => r.id);
          const syncSet = candidates.slice(max).map((r) => r.id);
          let done = 0;
          for (const due of [...options.dueCounts].sort((a, b) => a - b)) {
            await tx.$executeRawUnsafe(
              `UPDATE "Tracker" SET "nextPollAt" = $1::timestamp - (random() * interval '3 hours') WHERE "id" = ANY($2::text[])`,
              now.toISOString(),
              pollSet.slice(done, due),
            );
            await tx.$executeRawUnsafe(
              `UPDATE "Tracker" SET "syncState" = 'pending', "remote" = 'absent', "nextAttemptAt" = $1::timestamp - (random() * interval '1 hour') WHERE "id" = ANY($2::text[])`,
              now.toISOString(),
              syncSet.slice(done, due),
            );
            done = due;
            await tx.$executeRawUnsafe(`ANALYZE "Tracker"`);
            await tx.$executeRawUnsafe(`ANALYZE "Shop"`);
            if (typeof hook === 'function') {
              // The claims bench's own timing (each claim given back: the same due rows every time).
              const measured = await hook(tx, { repeats: options.claimsPerStep, now });
              for (const timing of Object.values(measured)) {
                out.hook.push({ due, ...timing });
                options.log(
                  `  bench/claims.ts measureClaims, ${due} due: ${timing.queue} (limit ${timing.limit}) first ${timing.firstMs.toFixed(1)} ms, ` +
                    `p50 ${timing.p50Ms.toFixed(1)} ms, max ${timing.maxMs.toFixed(1)} ms, ${timing.rows} rows a claim`,
                );
              }
            }
            for (const [name, queue, limit, perGroupMax] of [
              ['status-polls', pollQueue, 64, 10],
              ['trackers', trackerQueue, 32, undefined],
            ] as const) {
              const row = { queue: name, due, limit, claimsMs: [] as number[], claimed: [] as number[] };
              for (let i = 0; i < options.claimsPerStep; i++) {
                const t = performance.now();
                const ids = await claimDue(tx, queue, {
                  token: `scale-bench:${name}:${due}:${i}`,
                  now,
                  leaseMs: 15_000,
                  limit,
                  ...(perGroupMax === undefined ? {} : { perGroupMax }),
                });
                row.claimsMs.push(performance.now() - t);
                row.claimed.push(ids.length);
              }
              out.rows.push(row);
              options.log(
                `  ${name}, ${due} due: claim of ${limit} p50 ${median(row.claimsMs).toFixed(1)} ms, max ${percentile(row.claimsMs, 100).toFixed(1)} ms (got ${row.claimed.join('/')})` +
                  (row.claimed.every((n) => n === 0)
                    ? ' — NOTHING CLAIMED: these rows are not due to this version'
                    : ''),
              );
            }
          }
          throw new Rollback('done');
        },
        { timeout: 30 * 60_000, maxWait: 60_000 },
      )
      .catch((error: unknown) => {
        if (!(error instanceof Rollback)) throw error;
      });
  } catch (error) {
    return { error: error instanceof Error ? error.message.split('\n')[0]!.slice(0, 300) : String(error) };
  } finally {
    await db.close();
  }
  out.note = `claimDue in one rolled-back transaction; ${out.pausedTrackers} pending trackers in ${out.pausedShops} paused shops`;
  return out;
}

/* ------------------------------------------------------------------ bytes */

export interface BytesPerFulfillment {
  bytesPerFulfillment: number;
  fulfillments: number;
  totalBytes: number;
  tables: TableSize[];
  rows: Record<string, number>;
}

async function rowCounts(url: string): Promise<Record<string, number>> {
  return withPgClients(url, 1, async ([c]) => {
    const out: Record<string, number> = {};
    const tables = (
      await c!.query<{ name: string }>(
        `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`,
      )
    ).rows.map((r) => r.name);
    for (const t of tables)
      out[t] = Number((await c!.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${t}"`)).rows[0]!.n);
    return out;
  });
}

/** Bytes on disk per fulfilment: every app table (heap, TOAST, indexes) over the fulfilments kept. */
export async function bytesPerFulfillment(url: string): Promise<BytesPerFulfillment> {
  const tables = await postgresTableSizes(url);
  const rows = await rowCounts(url);
  const fulfillments = rows.Fulfillment ?? 0;
  const totalBytes = tables.reduce((n, t) => n + t.bytes, 0);
  return {
    bytesPerFulfillment: totalBytes / Math.max(1, fulfillments),
    fulfillments,
    totalBytes,
    tables,
    rows,
  };
}

export interface RetentionRun {
  /** What ran: this version's retention (src/jobs/retention.ts), or the status-push prune it replaced. */
  what: string;
  passes: number;
  rowsDeleted: number;
  ms: number;
  finished: boolean;
  /** Tables rewritten (VACUUM FULL) before measuring again, and how long that took. */
  compacted: string[];
  compactMs: number;
  after: BytesPerFulfillment;
}

/**
 * The version's own retention over the seeded rows, as its worker would run it (now = the real time: the
 * seed's rows are 0–90 days old), until it reports nothing left or the deadline; then every app table is
 * rewritten (VACUUM FULL: only live rows and compact indexes, as bench/storage.ts measures too) and the
 * bytes measured again.
 */
export async function runRetention(
  url: string,
  options: { deadlineMs: number; log: (line: string) => void },
): Promise<RetentionRun | { error: string }> {
  const retention = await optionalModule('src/jobs/retention.ts');
  const pushes = await optionalModule('src/status-pushes/apply.ts');
  const createRetention = retention?.createRetention as
    | ((deps: { prisma: unknown }) => {
        runPass(o: { now: Date }): Promise<{ rules: Record<string, { rows: number }>; done: boolean }>;
      })
    | undefined;
  const prune = pushes?.pruneStatusPushes as ((prisma: unknown, now?: Date) => Promise<number>) | undefined;
  if (typeof createRetention !== 'function' && typeof prune !== 'function')
    return { error: 'no retention in this checkout (createRetention, pruneStatusPushes)' };
  const db = await createDatabase(url);
  const started = performance.now();
  let passes = 0;
  let rowsDeleted = 0;
  let finished = false;
  let what: string;
  try {
    if (typeof createRetention === 'function') {
      what = 'src/jobs/retention.ts createRetention(…).runPass, default settings';
      const r = createRetention({ prisma: db.prisma });
      while (performance.now() - started < options.deadlineMs) {
        const pass = await r.runPass({ now: new Date() });
        passes++;
        const rows = Object.values(pass.rules).reduce((n, rule) => n + rule.rows, 0);
        rowsDeleted += rows;
        if (pass.done || rows === 0) {
          finished = true;
          break;
        }
        if (passes % 10 === 0) options.log(`    ${passes} passes, ${rowsDeleted} rows deleted so far`);
      }
    } else {
      what = 'pruneStatusPushes (src/status-pushes/apply.ts: applied, stale and dropped pushes after 7 days)';
      rowsDeleted = await prune!(db.prisma, new Date());
      passes = 1;
      finished = true;
    }
  } catch (error) {
    return { error: error instanceof Error ? error.message.split('\n')[0]!.slice(0, 300) : String(error) };
  } finally {
    await db.close();
  }
  const ms = performance.now() - started;
  options.log(
    `  retention: ${what}: ${rowsDeleted} rows in ${passes} pass(es), ${(ms / 1000).toFixed(1)} s${finished ? '' : ' — NOT finished by the deadline'}`,
  );
  // Every app table rewritten, not only the ones retention shrank: an upgrade's backfills (and the claims'
  // rolled-back updates of an earlier --reuse run) leave dead space a steady-state table would not carry.
  const compacted = Object.keys(await rowCounts(url));
  const t = performance.now();
  await withPgClients(url, 2, async (clients) => {
    const queue = [...compacted];
    await Promise.all(
      clients.map(async (c) => {
        await c.query(`SET maintenance_work_mem = '512MB'`);
        for (let table = queue.shift(); table !== undefined; table = queue.shift())
          await c.query(`VACUUM (FULL, ANALYZE) "${table}"`);
      }),
    );
  });
  const compactMs = performance.now() - t;
  options.log(`  VACUUM FULL of every app table: ${(compactMs / 1000).toFixed(1)} s`);
  return {
    what,
    passes,
    rowsDeleted,
    ms,
    finished,
    compacted,
    compactMs,
    after: await bytesPerFulfillment(url),
  };
}

/**
 * bench/storage.ts's own steady-state measure (its scratch database, its generator), when this checkout
 * has it: printed beside this bench's figure.
 */
export async function storageBench(log: (line: string) => void): Promise<Record<string, number> | null> {
  const storage = await optionalModule('bench/storage.ts');
  const measure = storage?.measureBytesPerFulfillment as ((o: object) => Promise<unknown>) | undefined;
  if (typeof measure !== 'function') return null;
  try {
    const report = (await measure({})) as Record<string, { bytesPerFulfillment?: number } | undefined>;
    const figures: Record<string, number> = {};
    for (const key of ['nothingDeleted', 'pushPruneOnly', 'afterRetention'])
      if (typeof report[key]?.bytesPerFulfillment === 'number')
        figures[key] = report[key].bytesPerFulfillment;
    log(
      `  bench/storage.ts measureBytesPerFulfillment (its own steady state): ${Object.entries(figures)
        .map(([k, v]) => `${k} ${v.toFixed(0)} B`)
        .join(', ')}`,
    );
    return figures;
  } catch (error) {
    log(
      `  bench/storage.ts measureBytesPerFulfillment failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    return null;
  }
}
