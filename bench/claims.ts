/**
 * What one worker claim costs on a large backlog (issue 19, "worker passes cost the batch, not the backlog"):
 *
 * - `measureClaims(prisma, options)`: times claims of the status-read queue (64 rows, at most 10 per shop, as
 *   the worker asks) and of the tracker-sync queue (32 rows) on whatever the database holds, giving every
 *   claimed row back after each claim so that the data stays as it was. The scale bench calls it on its own
 *   seeded data.
 * - `seedClaimBacklog(prisma, options)`: a backlog seeded with `generate_series` (PostgreSQL): many small
 *   shops with a few status reads due each, one big shop holding the oldest half of the due reads (the
 *   worst case for a per-shop claim), and paused shops with many trackers waiting for a sync.
 * - `npx tsx bench/claims.ts`: both, on a scratch PostgreSQL database (POSTGRES_ADMIN_URL's server, the
 *   default address's, or an embedded one: tools/db/postgres-server.ts), with ~3.6k and
 *   ~70k reads due and 100k syncs waiting in paused shops; prints `name: value` lines.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { DatabaseClient } from '../src/db/client.js';
import { createDatabase } from '../src/db/client.js';
import { claimDue, type QueueDescription, releaseLeases } from '../src/db/lease-queue.js';
import { applyMigrations } from '../src/db/migrate.js';
import { statusPollQueue, trackerQueue } from '../src/db/queues.js';
import { acquireTestPostgres } from '../tools/db/postgres-server.js';
import { createScratchDatabase } from '../tools/db/scratch.js';

export interface ClaimTiming {
  queue: string;
  /** Rows asked for per claim. */
  limit: number;
  /** Rows the claims got, on average. */
  rows: number;
  /** The first claim (it may look at shops no later claim needs to: paused ones). */
  firstMs: number;
  p50Ms: number;
  maxMs: number;
}

export interface ClaimMeasurement {
  statusPolls: ClaimTiming;
  trackers: ClaimTiming;
}

export interface MeasureClaimsOptions {
  /** Claims per queue (default 20). */
  repeats?: number;
  /** The claims' time (default now). */
  now?: Date;
  /** Status reads per claim (default 64, the worker's 4 × WORKER_CONCURRENCY) and per shop (default 10). */
  pollLimit?: number;
  pollPerShop?: number;
  /** Trackers per claim (default 32, what the reconciler asks for at 16 calls in flight). */
  trackerLimit?: number;
}

/** Times `repeats` claims of the status-read and tracker-sync queues; every claimed row is given back. */
export async function measureClaims(
  prisma: DatabaseClient,
  options: MeasureClaimsOptions = {},
): Promise<ClaimMeasurement> {
  const repeats = options.repeats ?? 20;
  const now = options.now ?? new Date();
  const time = async (queue: QueueDescription, limit: number, perGroupMax?: number): Promise<ClaimTiming> => {
    const ms: number[] = [];
    let rows = 0;
    for (let i = 0; i < repeats; i++) {
      const token = `bench-claims-${i}`;
      const started = performance.now();
      const ids = await claimDue(prisma, queue, {
        token,
        now,
        leaseMs: 15_000,
        limit,
        ...(perGroupMax === undefined ? {} : { perGroupMax }),
      });
      ms.push(performance.now() - started);
      rows += ids.length;
      await releaseLeases(prisma, queue, token, ids, now);
    }
    const sorted = [...ms].sort((a, b) => a - b);
    return {
      queue: queue.name,
      limit,
      rows: rows / repeats,
      firstMs: ms[0] ?? 0,
      p50Ms: sorted[Math.floor(sorted.length / 2)] ?? 0,
      maxMs: sorted.at(-1) ?? 0,
    };
  };
  return {
    statusPolls: await time(statusPollQueue, options.pollLimit ?? 64, options.pollPerShop ?? 10),
    trackers: await time(trackerQueue, options.trackerLimit ?? 32),
  };
}

export interface ClaimBacklog {
  /** Shops in all (default 10 000): one big, `pausedShops` paused, the rest small. */
  shops?: number;
  /** Status reads due (default 70 000): half in the big shop (the oldest), half spread over the small ones. */
  pollsDue?: number;
  /** Trackers of the big shop (default 300 000) and of each small shop (default 30), all at the service. */
  bigShopTrackers?: number;
  smallShopTrackers?: number;
  /** Paused shops (default 100) and trackers waiting for a sync in each (default 1 000). */
  pausedShops?: number;
  pausedPendingPerShop?: number;
  /** Trackers waiting for a sync in running shops (default 200). */
  runningPending?: number;
}

/**
 * Seeds a backlog relative to `now` (PostgreSQL only, migrated database, no shops yet). The DueShop list is
 * kept by the triggers as the rows go in, as in the app.
 */
export async function seedClaimBacklog(
  prisma: DatabaseClient,
  options: ClaimBacklog = {},
  now: Date = new Date(),
): Promise<void> {
  const shops = options.shops ?? 10_000;
  const paused = options.pausedShops ?? 100;
  const small = shops - 1 - paused;
  const pollsDue = options.pollsDue ?? 70_000;
  const bigDue = Math.floor(pollsDue / 2);
  const smallDue = pollsDue - bigDue;
  const big = options.bigShopTrackers ?? 300_000;
  const perSmall = options.smallShopTrackers ?? 30;
  const at = `'${now.toISOString()}'::timestamp`;
  const run = (sql: string) => prisma.$executeRawUnsafe(sql);
  const shopId = (i: string) => `md5('claims-shop-' || ${i})`;
  // Shop 0 is the big one; shops 1..small are small; the last `paused` ones are paused (probe in 10 minutes).
  await run(`INSERT INTO "Shop" ("id", "domain", "updatedAt", "pausedAt", "pausedReason", "probeAt")
    SELECT ${shopId('i')}, 'claims-' || i || '.myshopify.com', ${at},
      CASE WHEN i > ${small} THEN ${at} END, CASE WHEN i > ${small} THEN 'balance_exhausted' END,
      CASE WHEN i > ${small} THEN ${at} + interval '10 minutes' END
    FROM generate_series(0, ${shops - 1}) AS i`);
  const tracker = `INSERT INTO "Tracker" ("id", "shopId", "trackingNumber", "provider", "orderKey", "desired", "remote", "syncState", "nextAttemptAt", "nextPollAt", "createdAt", "updatedAt")`;
  // The big shop: its due reads are the oldest of all (two days late), the rest due within 3 days.
  await run(`${tracker}
    SELECT md5('claims-big-' || k), ${shopId('0')}, 'BIG' || k, 'ups', 'o' || k, 'active', 'present', 'synced', ${at},
      CASE WHEN k < ${bigDue} THEN ${at} - interval '2 days' + k * interval '1 second'
           ELSE ${at} + (k - ${bigDue}) * interval '1 second' END,
      ${at} - interval '5 days', ${at}
    FROM generate_series(0, ${big - 1}) AS k`);
  // Small shops: the due reads spread evenly over them (row k of shop j is due when k * small + j < smallDue).
  await run(`${tracker}
    SELECT md5('claims-small-' || j || '-' || k), ${shopId('j')}, 'S' || j || '-' || k, 'ups', 'o' || k, 'active', 'present', 'synced', ${at},
      CASE WHEN k * ${small} + (j - 1) < ${smallDue} THEN ${at} - ((j * 7919 + k * 104729) % 86400) * interval '1 second'
           ELSE ${at} + ((j * 7919 + k * 104729) % 21600 + 1) * interval '1 second' END,
      ${at} - interval '5 days', ${at}
    FROM generate_series(1, ${small}) AS j, generate_series(0, ${perSmall - 1}) AS k`);
  // Paused shops: trackers waiting for a sync, due for a day (they wait for the shop, not for their time).
  await run(`${tracker}
    SELECT md5('claims-paused-' || j || '-' || k), ${shopId('j')}, 'P' || j || '-' || k, 'ups', 'o' || k, 'active', 'absent', 'pending',
      ${at} - interval '1 day' + k * interval '1 second', NULL, ${at} - interval '1 day', ${at}
    FROM generate_series(${small + 1}, ${shops - 1}) AS j, generate_series(0, ${(options.pausedPendingPerShop ?? 1_000) - 1}) AS k`);
  // Running shops: new trackers due a minute ago.
  await run(`${tracker}
    SELECT md5('claims-new-' || j), ${shopId(`(1 + j % ${small})`)}, 'N' || j, 'ups', 'n' || j, 'active', 'absent', 'pending',
      ${at} - interval '1 minute', NULL, ${at}, ${at}
    FROM generate_series(1, ${options.runningPending ?? 200}) AS j`);
  await run('ANALYZE');
}

/** Removes every shop (and, by cascade, its rows) and the DueShop list. */
async function clear(prisma: DatabaseClient): Promise<void> {
  await prisma.$executeRawUnsafe('TRUNCATE "Shop", "DueShop" CASCADE');
}

function print(label: string, m: ClaimMeasurement): void {
  for (const t of [m.statusPolls, m.trackers]) {
    const name = `claim_${t.queue.replace(/\W/g, '_')}_${label}`;
    console.log(`${name}_p50_ms: ${t.p50Ms.toFixed(2)}`);
    console.log(`${name}_max_ms: ${t.maxMs.toFixed(2)}`);
    console.log(`${name}_first_ms: ${t.firstMs.toFixed(2)}`);
    console.log(`${name}_rows: ${t.rows.toFixed(1)} (of ${t.limit})`);
  }
}

async function main(): Promise<void> {
  const postgres = await acquireTestPostgres(process.env);
  console.log(postgres.description);
  try {
    await measureOnScratch(postgres.adminUrl);
  } finally {
    await postgres.release();
  }
}

async function measureOnScratch(adminUrl: string): Promise<void> {
  const scratch = await createScratchDatabase('postgresql', {
    prefix: 'tracksync_bench_claims',
    postgresAdminUrl: adminUrl,
  });
  try {
    await applyMigrations(scratch.url);
    const db = await createDatabase(scratch.url);
    try {
      for (const [label, pollsDue] of [
        ['3_6k_due', 3_600],
        ['70k_due', 70_000],
      ] as const) {
        await clear(db.prisma);
        const now = new Date();
        const started = performance.now();
        await seedClaimBacklog(db.prisma, { pollsDue }, now);
        console.log(`seed_${label}_s: ${((performance.now() - started) / 1000).toFixed(1)}`);
        print(label, await measureClaims(db.prisma, { now }));
      }
    } finally {
      await db.close();
    }
  } finally {
    await scratch.drop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
