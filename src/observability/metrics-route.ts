import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { RequestHandler } from 'express';
import type { DatabaseClient } from '../db/client.js';
import { queueDepth } from '../db/lease-queue.js';
import { allQueues } from '../db/queues.js';
import { type DatabaseGauges, metricsRegistry } from './metrics.js';

/**
 * GET /metrics, never public by default: served either on its own listener (METRICS_PORT, bound to
 * METRICS_HOST, 127.0.0.1 unless set: for a scraper on the same host or network), or on the app's port
 * behind `Authorization: Bearer <METRICS_TOKEN>`. With neither set there is no /metrics at all.
 */

/** The scrape-time gauges over one database; one read per scrape however many gauges ask. */
export function databaseGauges(prisma: DatabaseClient): DatabaseGauges {
  let queues: { at: number; value: ReturnType<DatabaseGauges['queues']> } | null = null;
  return {
    queues() {
      if (!queues || Date.now() - queues.at > 1_000) {
        const now = new Date();
        queues = {
          at: Date.now(),
          value: Promise.all(
            allQueues.map(async (queue) => ({
              queue: queue.name,
              ...(await queueDepth(prisma, queue, now)),
            })),
          ),
        };
      }
      return queues.value;
    },
    async trackersByState() {
      const rows = await prisma.tracker.groupBy({ by: ['syncState'], _count: { _all: true } });
      return rows.map((r) => ({ syncState: r.syncState, count: r._count._all }));
    },
    async pausedShops() {
      const rows = await prisma.shop.groupBy({
        by: ['pausedReason'],
        where: { pausedAt: { not: null } },
        _count: { _all: true },
      });
      return rows.map((r) => ({ reason: r.pausedReason ?? 'unknown', count: r._count._all }));
    },
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
