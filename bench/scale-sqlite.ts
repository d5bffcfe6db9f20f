/**
 * The scale bench on SQLite: one shop (100k lines by default) seeded into a fresh file (recursive CTE), the
 * app in one process as `npm start` runs it (role all: web and worker), and its Shipments page loaded back
 * to back for a bounded time while GET /healthz is asked every 20 ms (open loop): how long the health check
 * waits behind the list, and the longest the event loop was blocked meanwhile.
 */
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Cleanup } from './cleanup.js';
import { type SeedTiming, seedSqlite, type UpgradeResult, upgradeSeeded } from './scale-db.js';
import {
  median,
  percentile,
  type ScaleApp,
  sessionToken,
  startScaleApp,
  timedRequest,
} from './scale-http.js';
import { plannedShops } from './scale-seed.js';

export interface SqliteResult {
  size: string;
  seed: SeedTiming;
  upgrade: UpgradeResult;
  fileBytes: number;
  loads: number;
  listMs: number[];
  listErrors: string[];
  healthzIdleMs: number[];
  healthzMs: number[];
  healthzErrors: number;
  eventLoopMaxMs: number;
  eventLoopP99Ms: number;
  loopSeconds: number;
}

/** GET /healthz every `everyMs` (open loop: not waiting for answers, at most 200 in flight). */
function probeHealth(app: ScaleApp, everyMs: number): { stop(): Promise<{ ms: number[]; errors: number }> } {
  const ms: number[] = [];
  let errors = 0;
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    if (inFlight.size >= 200) return;
    const started = performance.now();
    const p = fetch(`${app.url}/healthz`, { signal: AbortSignal.timeout(30_000) })
      .then(async (r) => {
        await r.arrayBuffer();
        if (r.status === 200) ms.push(performance.now() - started);
        else errors++;
      })
      .catch(() => {
        errors++;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all([...inFlight]);
      return { ms, errors };
    },
  };
}

export async function measureSqlite(options: {
  size: string;
  secret: string;
  encryptionKey: string;
  trackingApiBaseUrl: string;
  loopMs: number;
  maxLoads: number;
  upgradeDeadlineMs: number;
  cleanup: Cleanup;
  log: (line: string) => void;
}): Promise<SqliteResult> {
  const { log } = options;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tracksync-scale-sqlite-'));
  const removeDir = options.cleanup.add('remove the SQLite scale file', () =>
    rm(dir, { recursive: true, force: true }),
  );
  const file = path.join(dir, 'scale.db');
  const shops = plannedShops([options.size], 0);
  try {
    log(`seeding the ${options.size} shop into ${file} (recursive CTE, one connection)…`);
    const seed = await seedSqlite(
      file,
      {
        provider: 'sqlite',
        now: Math.floor(Date.now() / 1000) - 60,
        shops,
        slices: 24,
        encryptionKey: options.encryptionKey,
      },
      log,
    );
    log(
      `seeded in ${(seed.totalMs / 1000).toFixed(1)} s: ${Object.entries(seed.rows)
        .map(([t, n]) => `${t} ${n}`)
        .join(', ')}`,
    );
    const upgrade = await upgradeSeeded(`file:${file}`, { deadlineMs: options.upgradeDeadlineMs, log });
    const fileBytes = statSync(file).size;

    const app = await startScaleApp('app-sqlite', {
      role: 'all',
      databaseUrl: `file:${file}`,
      trackingApiBaseUrl: options.trackingApiBaseUrl,
      secret: options.secret,
      encryptionKey: options.encryptionKey,
    });
    try {
      const shop = shops[0]!;
      const list = () =>
        timedRequest(`${app.url}/api/shipments`, {
          headers: { Authorization: `Bearer ${sessionToken(shop.domain, options.secret)}` },
          timeoutMs: 120_000,
        });
      for (let i = 0; i < 3; i++) await list();
      // The health check alone first (the worker idles meanwhile), then beside the list.
      const idle = probeHealth(app, 20);
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      const healthIdle = await idle.stop();
      await app.stats(true);
      log(
        `loading the Shipments page back to back for ${(options.loopMs / 1000).toFixed(0)} s (at most ${options.maxLoads} loads) with /healthz every 20 ms…`,
      );
      const probe = probeHealth(app, 20);
      const started = performance.now();
      const listMs: number[] = [];
      const errors = new Set<string>();
      let loads = 0;
      while (performance.now() - started < options.loopMs && loads < options.maxLoads) {
        const t = await list();
        loads++;
        if (t.error) errors.add(t.error);
        else listMs.push(t.ms);
      }
      const loopSeconds = (performance.now() - started) / 1000;
      const health = await probe.stop();
      const stats = await app.stats();
      return {
        size: options.size,
        seed,
        upgrade,
        fileBytes,
        loads,
        listMs,
        listErrors: [...errors],
        healthzIdleMs: healthIdle.ms,
        healthzMs: health.ms,
        healthzErrors: health.errors,
        eventLoopMaxMs: stats.eldMaxMs,
        eventLoopP99Ms: stats.eldP99Ms,
        loopSeconds,
      };
    } finally {
      await app.stop();
    }
  } finally {
    await removeDir();
  }
}

export function sqliteLines(r: SqliteResult): string[] {
  return [
    `SQLite, one ${r.size} shop, the app in one process (role all):`,
    `  file ${(r.fileBytes / 2 ** 30).toFixed(2)} GiB, seeded in ${(r.seed.totalMs / 1000).toFixed(1)} s ` +
      `(${Object.values(r.seed.rows).reduce((a, b) => a + b, 0)} rows)`,
    `  Shipments page loaded ${r.loads} times in ${r.loopSeconds.toFixed(1)} s: p50 ${median(r.listMs).toFixed(1)} ms, ` +
      `p95 ${percentile(r.listMs, 95).toFixed(1)} ms, max ${percentile(r.listMs, 100).toFixed(1)} ms` +
      (r.listErrors.length ? `; errors: ${r.listErrors.join(' | ')}` : ''),
    `  /healthz alone: p50 ${median(r.healthzIdleMs).toFixed(1)} ms, p99 ${percentile(r.healthzIdleMs, 99).toFixed(1)} ms (${r.healthzIdleMs.length} probes)`,
    `  /healthz during the list loop: p50 ${median(r.healthzMs).toFixed(1)} ms, p99 ${percentile(r.healthzMs, 99).toFixed(1)} ms, ` +
      `max ${percentile(r.healthzMs, 100).toFixed(1)} ms (${r.healthzMs.length} probes, ${r.healthzErrors} failed)`,
    `  event loop during the loop: max delay ${r.eventLoopMaxMs.toFixed(1)} ms, p99 ${r.eventLoopP99Ms.toFixed(1)} ms`,
  ];
}
