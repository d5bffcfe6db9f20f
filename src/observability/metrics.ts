import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The app's metrics, in one prom-client registry per process, served at GET /metrics in the Prometheus
 * text format (src/app/metrics-route.ts; not public by default). Counters rather than log lines
 * for what the open internet can cause at will, so that noise costs a number, not a log line. Gauges that
 * describe the database (queue depth, trackers by state, paused shops) are read at most once a minute
 * (METRICS_DATABASE_EVERY_MS), each query bounded, whatever the tables hold (src/app/metrics-route.ts).
 */
export const metricsRegistry = new Registry();

collectDefaultMetrics({ register: metricsRegistry, prefix: 'tracksync_' });

export const webhooksRefused = new Counter({
  name: 'tracksync_webhooks_refused_total',
  help: 'Webhook deliveries refused at intake, by reason (bad signature, headers, body, topic, shop).',
  labelNames: ['reason'] as const,
  registers: [metricsRegistry],
});

export const webhooksReceived = new Counter({
  name: 'tracksync_webhooks_received_total',
  help: 'Webhook deliveries answered at intake, by topic and outcome (recorded, duplicate, refused, error).',
  labelNames: ['topic', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const intakeSeconds = new Histogram({
  name: 'tracksync_webhook_intake_seconds',
  help: 'Time from a webhook request to its answer.',
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [metricsRegistry],
});

export const serviceCalls = new Counter({
  name: 'tracksync_tracking_service_calls_total',
  help: 'Calls to the tracking service, by operation and outcome (ok or the error reason).',
  labelNames: ['operation', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const serviceCallSeconds = new Histogram({
  name: 'tracksync_tracking_service_call_seconds',
  help: 'Time a call to the tracking service took, retries included, by operation.',
  labelNames: ['operation'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [metricsRegistry],
});

export const storeWrites = new Counter({
  name: 'tracksync_store_writes_total',
  help: 'Fulfilment events written to stores, by outcome (sent, already_there, retry, failed, skipped, superseded).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const statusPushes = new Counter({
  name: 'tracksync_status_pushes_total',
  help: 'Status pushes from the tracking service, by outcome (recorded, duplicate, refused_<reason>, applied, stale, dropped_unknown_tracker, failed).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const fulfillmentConfirmations = new Counter({
  name: 'tracksync_fulfillment_confirmations_total',
  help: 'Fulfilments first seen in a webhook, asked of their store before anything is applied, by outcome (known, unknown: refused, not_asked: the store could not be asked, tried again later).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const trackingPageLookups = new Counter({
  name: 'tracksync_tracking_page_lookups_total',
  help: "Lookups on the shoppers' tracking page, by outcome (found, not_found, held_back: a visitor backing off after failures).",
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const trackingPageRefreshes = new Counter({
  name: 'tracksync_tracking_page_refreshes_total',
  help: "Orders the shoppers' tracking page found stale, by outcome (read: one service call; over_limit: the shop's minute was spent, stored data shown).",
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

/** What the scrape reads from the database; set by the route with the process's database. */
export interface DatabaseGauges {
  queues(): Promise<{ queue: string; due: number; oldestDueAgeS: number }[]>;
  trackersByState(): Promise<{ syncState: string; count: number }[]>;
  pausedShops(): Promise<{ reason: string; count: number }[]>;
}

let databaseGauges: DatabaseGauges | null = null;

/** The database the scrape-time gauges read (one per process: the runtime's). */
export function setDatabaseGauges(gauges: DatabaseGauges | null): void {
  databaseGauges = gauges;
}

/** A gauge whose values are read from the database when scraped (none while no database is set). */
function scrapedGauge<L extends string>(
  name: string,
  help: string,
  label: L,
  read: (gauges: DatabaseGauges) => Promise<{ label: string; value: number }[]>,
): void {
  new Gauge({
    name,
    help,
    labelNames: [label],
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      if (!databaseGauges) return;
      for (const row of await read(databaseGauges))
        this.set({ [label]: row.label } as Record<L, string>, row.value);
    },
  });
}

scrapedGauge('tracksync_queue_due', 'Rows due now and not leased, per work queue.', 'queue', async (g) =>
  (await g.queues()).map((q) => ({ label: q.queue, value: q.due })),
);
scrapedGauge(
  'tracksync_queue_oldest_due_seconds',
  'How long the oldest due row of each work queue has waited.',
  'queue',
  async (g) => (await g.queues()).map((q) => ({ label: q.queue, value: q.oldestDueAgeS })),
);
scrapedGauge(
  'tracksync_trackers',
  'Trackers by sync state (pending, synced, failed, dead).',
  'sync_state',
  async (g) => (await g.trackersByState()).map((s) => ({ label: s.syncState, value: s.count })),
);
scrapedGauge('tracksync_shops_paused', 'Shops whose tracker work is held, by reason.', 'reason', async (g) =>
  (await g.pausedShops()).map((s) => ({ label: s.reason, value: s.count })),
);
