/**
 * The problem sweep's cost (src/shipments/problem-sweep.ts): shipments evaluated per second when a batch of
 * them is due (each: detection, its problems opened or closed, its next check written), and the cost of a
 * pass when nothing is due, on a table of `trackers` rows (one indexed range read whatever the table holds).
 * Run by `npm run bench` (figures `problems_evaluated_per_s_*`, `problem_sweep_idle_ms_*`) or alone:
 * `npx tsx bench/problems.ts [--trackers N]`.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { DatabaseProvider } from '../src/db/provider.js';
import { insertRows } from '../src/db/insert-rows.js';
import { silentLogger } from '../src/logger.js';
import { sweepProblems } from '../src/shipments/problem-sweep.js';
import { Cleanup } from './cleanup.js';
import { scratchDatabase, withDatabase } from './database.js';

export interface ProblemSweepResult {
  provider: DatabaseProvider;
  trackers: number;
  evaluated: number;
  opened: number;
  evaluatedPerSec: number;
  /** A pass with nothing due: median of 50, ms. */
  idleP50Ms: number;
}

/** One shop's statuses, in the proportions of a busy day: most parcels moving, some in trouble. */
const statuses = ['in_transit', 'in_transit', 'in_transit', 'pre_transit', 'exception', 'failure', 'on_hold'];

export async function measureProblemSweep(options: {
  provider: DatabaseProvider;
  trackers: number;
  cleanup: Cleanup;
  postgresAdminUrl?: string;
}): Promise<ProblemSweepResult> {
  const database = await scratchDatabase(options.provider, options.cleanup, options.postgresAdminUrl);
  try {
    return await withDatabase(database.url, async (db) => {
      const prisma = db.prisma;
      const now = new Date('2026-11-25T12:00:00Z');
      const shop = await prisma.shop.create({ data: { domain: 'problems-bench.myshopify.com' } });
      const rows = Array.from({ length: options.trackers }, (_, i) => ({
        id: randomUUID(),
        shopId: shop.id,
        trackingNumber: `PB${String(i).padStart(9, '0')}`,
        provider: 'ups',
        orderKey: `o${i}`,
        desired: 'active',
        remote: 'present',
        syncState: 'synced',
        nextAttemptAt: now,
        status: statuses[i % statuses.length]!,
        lastEventAt: new Date(now.getTime() - ((i % 9) + 1) * 86_400_000),
        lastEventMessage: 'Scanned',
        createdAt: new Date(now.getTime() - 10 * 86_400_000),
        updatedAt: now,
        problemCheckAt: now,
      }));
      await insertRows(prisma, 'Tracker', rows);
      const deps = { prisma, logger: silentLogger, now: () => now };
      const started = performance.now();
      let evaluated = 0;
      let opened = 0;
      for (;;) {
        const pass = await sweepProblems(deps, 200);
        if (pass.evaluated === 0) break;
        evaluated += pass.evaluated;
        opened += pass.opened;
      }
      const seconds = (performance.now() - started) / 1000;
      const idle: number[] = [];
      for (let i = 0; i < 50; i++) {
        const t = performance.now();
        await sweepProblems(deps, 200);
        idle.push(performance.now() - t);
      }
      idle.sort((a, b) => a - b);
      return {
        provider: options.provider,
        trackers: options.trackers,
        evaluated,
        opened,
        evaluatedPerSec: evaluated / seconds,
        idleP50Ms: idle[Math.floor(idle.length / 2)]!,
      };
    });
  } finally {
    await database.drop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { trackers: { type: 'string', default: '20000' } }, strict: true });
  const trackers = Number(values.trackers);
  const cleanup = new Cleanup();
  try {
    for (const provider of ['sqlite', 'postgresql'] as const) {
      const r = await measureProblemSweep({ provider, trackers, cleanup });
      console.log(
        `${provider}: ${r.evaluated} shipments evaluated (${r.opened} problems opened) at ${Math.round(r.evaluatedPerSec)}/s; a pass with nothing due: ${r.idleP50Ms.toFixed(2)} ms (p50)`,
      );
    }
  } finally {
    await cleanup.runAll((line) => console.error(line));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
