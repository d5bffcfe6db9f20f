/**
 * The load generator, a child process of the bench (forked with an IPC channel) so it never shares an event
 * loop with the bench or the server under test. Every request is a delivery as the platform sends it: a
 * unique X-Shopify-Event-Id and X-Shopify-Webhook-Id, and an X-Shopify-Hmac-Sha256 computed over that
 * request's own body, per request. Loopback only.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { webhookHeaders } from '../tools/dev/webhook-sign.js';
import type {
  FromChild,
  LatencySummary,
  LoadRequest,
  LoadResult,
  ToChild,
  WebhookTarget,
} from './load-protocol.js';

/** Unique per process; with the sequence number it makes every event id unique across runs. */
const runTag = randomBytes(4).toString('hex');
let sequence = 0;

/**
 * A body factory: the fixture with its ids, name and tracking number made unique for delivery `n`, built by
 * concatenating a pre-split template (no JSON work per request).
 */
export function bodyFactory(fixture: Record<string, unknown>): (n: number) => string {
  const number = `1ZBENCH${runTag.toUpperCase()}@@N@@`;
  const template = JSON.stringify({
    ...fixture,
    id: '@@ID@@',
    order_id: '@@ORDER@@',
    name: '#B@@N@@.1',
    tracking_number: number,
    tracking_numbers: [number],
    tracking_url: `https://www.ups.com/track?tracknum=${number}`,
    tracking_urls: [`https://www.ups.com/track?tracknum=${number}`],
    admin_graphql_api_id: 'gid://shopify/Fulfillment/@@ID@@',
  })
    .replace('"@@ID@@"', '@@ID@@')
    .replace('"@@ORDER@@"', '@@ORDER@@');
  const parts = template.split(/@@(ID|ORDER|N)@@/);
  return (n) => {
    let body = '';
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (i % 2 === 0) body += part;
      else if (part === 'ID') body += String(6_100_000_000_000 + n);
      else if (part === 'ORDER') body += String(7_100_000_000_000 + n);
      else body += String(n);
    }
    return body;
  };
}

/** The next delivery: body and every platform header, signed. */
function deliveryMaker(target: WebhookTarget) {
  const makeBody = bodyFactory(target.fixture);
  return () => {
    const n = ++sequence;
    const body = makeBody(n);
    const headers = webhookHeaders({
      topic: target.topic,
      shop: target.shops[n % target.shops.length]!,
      body,
      secret: target.secret,
      eventId: `bench-${runTag}-${n}`,
    });
    return { body, headers };
  };
}

class Samples {
  private values = new Float64Array(1 << 16);
  private size = 0;

  add(value: number): void {
    if (this.size === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.size++] = value;
  }

  summary(): LatencySummary {
    const sorted = this.values.slice(0, this.size).sort();
    const at = (q: number) =>
      sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
    let total = 0;
    for (const v of sorted) total += v;
    return {
      p50: at(0.5),
      p90: at(0.9),
      p99: at(0.99),
      max: sorted.length === 0 ? 0 : sorted[sorted.length - 1]!,
      mean: sorted.length === 0 ? 0 : total / sorted.length,
      samples: sorted.length,
    };
  }
}

/** autocannon: `connections` closed-loop clients, optionally capped at `rate` requests per second overall. */
async function runClosed(request: LoadRequest): Promise<LoadResult> {
  const next = deliveryMaker(request.target);
  const samples = new Samples();
  const started = performance.now();
  let instance!: autocannon.Instance;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: request.target.url,
        connections: request.connections,
        duration: request.durationSec,
        timeout: 10,
        ...(request.rate !== undefined ? { overallRate: request.rate, ignoreCoordinatedOmission: true } : {}),
        requests: [
          {
            method: 'POST',
            path: '/webhooks',
            setupRequest: (req) => {
              const { body, headers } = next();
              return { ...req, body, headers };
            },
          },
        ],
      },
      (error: unknown, result: autocannon.Result) => (error ? reject(error as Error) : resolve(result)),
    );
  });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) samples.add(responseTime);
  });
  const result = await done;
  const elapsed = (performance.now() - started) / 1000;
  const durationSec = typeof result.duration === 'number' && result.duration > 0 ? result.duration : elapsed;
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {}))
    statusCodes[code] = Number(stat.count);
  const ok2xx = result['2xx'];
  return {
    responses: ok2xx + result.non2xx,
    ok2xx,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSec,
    rps: ok2xx / durationSec,
    latencyMs: samples.summary(),
    autocannonLatencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
    statusCodes,
  };
}

/** Open loop: a request due every 1/rate s whether or not earlier ones were answered. */
async function runPaced(request: LoadRequest): Promise<LoadResult> {
  const rate = request.rate ?? 100;
  const next = deliveryMaker(request.target);
  const url = new URL('/webhooks', request.target.url);
  const agent = new Agent({ keepAlive: true, maxSockets: request.connections });
  const samples = new Samples();
  const statusCodes: Record<string, number> = {};
  let ok2xx = 0;
  let non2xx = 0;
  let errors = 0;
  let timeouts = 0;
  let inFlight = 0;
  let sent = 0;
  const start = performance.now();
  const endAt = start + request.durationSec * 1000;

  const send = (dueAt: number) => {
    const { body, headers } = next();
    inFlight++;
    const req = httpRequest(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        timeout: 10_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          inFlight--;
          const code = res.statusCode ?? 0;
          statusCodes[code] = (statusCodes[code] ?? 0) + 1;
          if (code >= 200 && code < 300) {
            ok2xx++;
            samples.add(performance.now() - dueAt);
          } else non2xx++;
        });
      },
    );
    req.on('timeout', () => {
      timeouts++;
      req.destroy(new Error('timeout'));
    });
    req.on('error', () => {
      inFlight--;
      errors++;
    });
    req.end(body);
  };

  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      const until = Math.min(now, endAt);
      const due = Math.floor(((until - start) / 1000) * rate);
      while (sent < due) {
        send(start + (sent / rate) * 1000);
        sent++;
      }
      if (now >= endAt) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  const drainDeadline = performance.now() + 15_000;
  while (inFlight > 0 && performance.now() < drainDeadline) await new Promise((r) => setTimeout(r, 5));
  agent.destroy();
  const durationSec = (endAt - start) / 1000;
  return {
    responses: ok2xx + non2xx,
    ok2xx,
    non2xx,
    errors,
    timeouts,
    durationSec,
    rps: ok2xx / durationSec,
    latencyMs: samples.summary(),
    autocannonLatencyMs: null,
    statusCodes,
  };
}

function reply(message: FromChild): void {
  process.send?.(message);
}

process.on('message', (message: ToChild) => {
  const { request } = message;
  const run = request.mode === 'paced' ? runPaced(request) : runClosed(request);
  run.then(
    (result) => reply({ type: 'result', id: request.id, result }),
    (error: unknown) =>
      reply({
        type: 'error',
        id: request.id,
        message: error instanceof Error ? error.message : String(error),
      }),
  );
});
// The bench went away: nothing left to do.
process.on('disconnect', () => process.exit(0));
reply({ type: 'ready' });
