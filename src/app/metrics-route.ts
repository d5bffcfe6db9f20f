import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { RequestHandler } from 'express';
import type { DatabaseClient } from '../db/client.js';
import { defaultDepthCap, queueDepth } from '../db/lease-queue.js';
import { allQueues } from '../db/queues.js';
import { type DatabaseGauges, metricsRegistry } from '../observability/metrics.js';
import { countTrackersInSyncState, pausedShopReasons } from './health-queries.js';

/**
 * GET /metrics, never public by default: served either on its own listener (METRICS_PORT, bound to
 * METRICS_HOST, 127.0.0.1 unless set: for a scraper on the same host or network), or on the app's port
 * behind `Authorization: Bearer <METRICS_TOKEN>`. With neither set there is no /metrics at all.
 */

/** How often the database figures are read again by default (METRICS_DATABASE_EVERY_MS). */
export const defaultDatabaseEveryMs = 60_000;

/** A tracker's sync states (prisma/schema.prisma, Tracker.syncState). */
const syncStates = ['pending', 'synced', 'failed', 'dead'] as const;

interface DatabaseFigures {
  queues: Awaited<ReturnType<DatabaseGauges['queues']>>;
  trackersByState: Awaited<ReturnType<DatabaseGauges['trackersByState']>>;
  pausedShops: Awaited<ReturnType<DatabaseGauges['pausedShops']>>;
}

/**
 * The scrape-time gauges over one database. A scrape does not read the database: the figures are read at
 * most every `everyMs` (one read shared by every gauge, and by every scrape meanwhile), and each of their
 * queries reads at most `cap` rows through an index (queue depths: src/db/lease-queue.ts `queueDepth`), so a
 * scrape costs the same whatever the tables hold. A count at the cap means at least that many.
 */
export function databaseGauges(
  prisma: DatabaseClient,
  options: { everyMs?: number; cap?: number } = {},
): DatabaseGauges {
  const everyMs = options.everyMs ?? defaultDatabaseEveryMs;
  const cap = options.cap ?? defaultDepthCap;
  let last: { at: number; settled: boolean; figures: Promise<DatabaseFigures> } | null = null;
  const figures = (): Promise<DatabaseFigures> => {
    if (last && (!last.settled || Date.now() - last.at <= everyMs)) return last.figures;
    const read = readFigures(prisma, cap);
    const entry = { at: Date.now(), settled: false, figures: read };
    last = entry;
    read.then(
      () => (entry.settled = true),
      () => {
        // A failed read is not kept: the next scrape reads again.
        if (last === entry) last = null;
      },
    );
    return read;
  };
  return {
    queues: async () => (await figures()).queues,
    trackersByState: async () => (await figures()).trackersByState,
    pausedShops: async () => (await figures()).pausedShops,
  };
}

/** One read of every database figure, each query bounded by `cap` rows (one query at a time). */
async function readFigures(prisma: DatabaseClient, cap: number): Promise<DatabaseFigures> {
  const now = new Date();
  const queues: DatabaseFigures['queues'] = [];
  for (const queue of allQueues)
    queues.push({ queue: queue.name, ...(await queueDepth(prisma, queue, now, cap)) });
  const trackersByState: DatabaseFigures['trackersByState'] = [];
  for (const syncState of syncStates) {
    // Through the (syncState, nextAttemptAt) index, up to the cap.
    trackersByState.push({
      syncState,
      count: await countTrackersInSyncState(prisma, syncState, cap),
    });
  }
  const paused = await pausedShopReasons(prisma, cap);
  const byReason = new Map<string, number>();
  for (const shop of paused) {
    const reason = shop.pausedReason ?? 'unknown';
    byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
  }
  return {
    queues,
    trackersByState,
    pausedShops: [...byReason].map(([reason, count]) => ({ reason, count })),
  };
}

async function scrape(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}

/** /metrics on the app's port: only with the bearer token; anything else is a 404, as if it were not there. */
export function metricsWithToken(token: string): RequestHandler {
  const expected = Buffer.from(`Bearer ${token}`);
  return async (req, res, next) => {
    const given = Buffer.from(req.header('authorization') ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      next();
      return;
    }
    try {
      const { contentType, body } = await scrape();
      res.set('Content-Type', contentType).set('Cache-Control', 'no-store').send(body);
    } catch (error) {
      next(error);
    }
  };
}

/** The metrics listener of METRICS_PORT: GET /metrics only. */
export async function startMetricsServer(options: { host: string; port: number }): Promise<{
  server: Server;
  url: string;
  close(): Promise<void>;
}> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    scrape().then(
      ({ contentType, body }) => res.writeHead(200, { 'Content-Type': contentType }).end(body),
      () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    server,
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
