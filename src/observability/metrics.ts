import { Counter, Registry } from 'prom-client';

/**
 * The app's metrics, in one prom-client registry per process (exposed for scraping by a later route; tests
 * read it directly). Counters rather than log lines for what the open internet can cause at will, so that
 * noise costs a number, not a log line.
 */
export const metricsRegistry = new Registry();

export const webhooksRefused = new Counter({
  name: 'tracksync_webhooks_refused_total',
  help: 'Webhook deliveries refused at intake, by reason (bad signature, headers, body, topic, shop).',
  labelNames: ['reason'] as const,
  registers: [metricsRegistry],
});
