import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../helpers/capture-logger.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addShop, numberedUpsFulfillment } from '../helpers/scenario.js';

/**
 * GET /metrics: Prometheus text from the running app, never public by default: on its own listener
 * (METRICS_PORT) or on the app's port behind METRICS_TOKEN.
 */
const token = 'metrics-token-0123456789abcdef';

/** The value of one sample line (`name{labels} value`), or null when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const got = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(match[3]);
  }
  return null;
}

describe('GET /metrics', () => {
  let app: TestApp;
  const logs = captureLogger('info');

  beforeAll(async () => {
    app = await startTestApp({
      // Database figures read at every scrape here (by default at most once a minute).
      config: { metrics: { port: 0, host: '127.0.0.1', token, databaseEveryMs: 0 } },
      runtime: { logger: logs.logger },
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  const scrape = async () => {
    const res = await fetch(app.runtime.metricsUrl!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  it('counts webhooks, service calls, trackers and queues as work flows', async () => {
    const before = await scrape();
    const recordedBefore = sample(before, 'tracksync_webhooks_received_total', {
      topic: 'fulfillments/create',
      outcome: 'recorded',
    });
    const createsBefore = sample(before, 'tracksync_tracking_service_calls_total', {
      operation: 'create',
      outcome: 'ok',
    });
    const shop = await addShop(app, 'metrics');
    for (let n = 1; n <= 3; n++) {
      expect((await shop.send('fulfillments/create', numberedUpsFulfillment(n))).status).toBe(200);
    }
    // A refusal: anyone can cause it, it is a number.
    const refused = await fetch(`${app.url}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-topic': 'orders/cancelled' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    await shop.settled();

    const text = await scrape();
    expect(
      sample(text, 'tracksync_webhooks_received_total', {
        topic: 'fulfillments/create',
        outcome: 'recorded',
      }),
    ).toBe((recordedBefore ?? 0) + 3);
    expect(
      sample(text, 'tracksync_webhooks_received_total', { topic: 'refused' }) ?? 0,
    ).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'tracksync_webhook_intake_seconds_count') ?? 0).toBeGreaterThanOrEqual(4);
    expect(
      sample(text, 'tracksync_tracking_service_calls_total', { operation: 'create', outcome: 'ok' }),
    ).toBe((createsBefore ?? 0) + 3);
    expect(
      sample(text, 'tracksync_tracking_service_call_seconds_count', { operation: 'create' }) ?? 0,
    ).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'tracksync_trackers', { sync_state: 'synced' }) ?? 0).toBeGreaterThanOrEqual(3);
    for (const queue of [
      'deliveries',
      'trackers',
      'backfills',
      'status-polls',
      'store-events',
      'store-links',
      'status-pushes',
    ]) {
      expect(sample(text, 'tracksync_queue_due', { queue }), queue).toBe(0);
      expect(sample(text, 'tracksync_queue_oldest_due_seconds', { queue }), queue).toBe(0);
    }
    // Default process metrics.
    expect(sample(text, 'tracksync_process_cpu_user_seconds_total')).not.toBeNull();
    expect(text).toContain('# TYPE tracksync_shops_paused gauge');

    // An operator can follow it at info: one line per webhook recorded and per tracker created.
    const infos = logs.records;
    expect(infos.filter((l) => l.msg === 'webhook received').length).toBeGreaterThanOrEqual(3);
    expect(infos.filter((l) => l.msg === 'tracker created').length).toBeGreaterThanOrEqual(3);
    for (const line of logs.lines) expect(line).not.toContain(shop.apiKey);
  });

  it('shows due work and its age while the worker cannot take it', async () => {
    const shop = await addShop(app, 'metrics-paused');
    await app.runtime.context.shops.pause(
      shop.id,
      'balance_exhausted',
      'none left',
      new Date(Date.now() + 3_600_000),
    );
    await shop.send('fulfillments/create', numberedUpsFulfillment(50));
    await shop.deliveriesDone();
    const text = await scrape();
    expect(sample(text, 'tracksync_queue_due', { queue: 'trackers' })).toBe(0); // a paused shop's are not due
    expect(
      sample(text, 'tracksync_shops_paused', { reason: 'balance_exhausted' }) ?? 0,
    ).toBeGreaterThanOrEqual(1);
  });

  it('on the app port only with the bearer token; anything else is a 404', async () => {
    const ok = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('tracksync_webhooks_received_total');
    expect((await fetch(`${app.url}/metrics`)).status).toBe(404);
    const wrong = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${token}x` } });
    expect(wrong.status).toBe(404);
    // The metrics listener serves nothing else.
    expect((await fetch(app.runtime.metricsUrl!.replace('/metrics', '/healthz'))).status).toBe(404);
  });
});

describe('GET /metrics by default', () => {
  it('is not served at all', async () => {
    const app = await startTestApp({ connect: false });
    try {
      expect(app.runtime.metricsUrl).toBeNull();
      expect((await fetch(`${app.url}/metrics`)).status).toBe(404);
    } finally {
      await app.close();
    }
  });
});
