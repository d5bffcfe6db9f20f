/**
 * The scale bench's client side: the app as a child process (bench/scale-app.ts, with its statement count
 * and event-loop delay over IPC), session tokens as App Bridge makes them, app-proxy signatures as the
 * platform makes them, timed requests and percentiles. Loopback only; every request has a deadline.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { type Child, forkTsx, freePort } from './processes.js';
import { waitUntil } from './wait.js';

export const benchApiKey = 'scale-bench-api-key';

export interface AppStats {
  statements: number;
  eldMaxMs: number;
  eldP99Ms: number;
  rssBytes: number;
}

export interface ScaleApp {
  child: Child;
  url: string;
  stats(reset?: boolean): Promise<AppStats>;
  /** Resident memory now, from /proc (no IPC round trip: for sampling during a download). */
  rssNow(): number | null;
  stop(): Promise<void>;
}

export async function startScaleApp(
  name: string,
  options: {
    role: 'web' | 'all';
    databaseUrl: string;
    trackingApiBaseUrl: string;
    secret: string;
    encryptionKey: string;
  },
): Promise<ScaleApp> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = forkTsx(name, 'bench/scale-app.ts', {
    ROLE: options.role,
    SHOPIFY_API_KEY: benchApiKey,
    SHOPIFY_API_SECRET: options.secret,
    SHOPIFY_APP_URL: url,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: options.databaseUrl,
    TRACKING_API_BASE_URL: options.trackingApiBaseUrl,
    ENCRYPTION_KEY: options.encryptionKey,
    LOG_LEVEL: 'warn',
  });
  await waitUntil(
    `${name} to be ready (GET /readyz)`,
    async () => (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) })).status === 200,
    { timeoutMs: 120_000, intervalMs: 200, failIf: () => (child.running() ? null : 'it exited') },
  ).catch((error: unknown) => {
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\n${child.output().slice(-3000)}`,
    );
  });
  let nextId = 1;
  const pending = new Map<number, (stats: AppStats) => void>();
  child.process.on('message', (message: AppStats & { id: number }) => {
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  // A send to a child that just died reports here; the caller's own promise rejects on its own.
  child.process.on('error', () => {});
  return {
    child,
    url,
    stats(reset = false) {
      const id = nextId++;
      return new Promise<AppStats>((resolve, reject) => {
        if (!child.process.connected) {
          reject(new Error(`${name}: not running (no stats)`));
          return;
        }
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${name}: no stats answer within 30 s`));
        }, 30_000);
        pending.set(id, (stats) => {
          clearTimeout(timer);
          resolve(stats);
        });
        child.process.send({ id, reset }, (error) => {
          if (!error) return;
          clearTimeout(timer);
          pending.delete(id);
          reject(new Error(`${name}: stats request failed (${error.message})`));
        });
      });
    },
    rssNow() {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
        return kb ? Number(kb) * 1024 : null;
      } catch {
        return null;
      }
    },
    stop: () => child.stop(15_000),
  };
}

/* ------------------------------------------------------------------ signing */

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A session token as App Bridge hands it to the page: HS256, one minute, for `shop`. */
export function sessionToken(shop: string, secret: string): string {
  const now = Math.floor(Date.now() / 1000);
  const input = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({
    iss: `https://${shop}/admin`,
    dest: `https://${shop}`,
    aud: benchApiKey,
    sub: '42',
    exp: now + 60,
    nbf: now,
    iat: now,
    jti: randomUUID(),
    sid: randomUUID(),
  })}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/** The query string of an app-proxy request as the platform signs it (sorted `key=value`, HMAC hex). */
export function signedProxyQuery(params: Record<string, string>, secret: string): string {
  const all: Record<string, string> = { ...params, timestamp: String(Math.floor(Date.now() / 1000)) };
  const message = Object.keys(all)
    .sort()
    .map((key) => `${key}=${all[key]}`)
    .join('');
  const query = new URLSearchParams(all);
  query.append('signature', createHmac('sha256', secret).update(message).digest('hex'));
  return query.toString();
}

let clients = 0;
/** A new shopper address per lookup (the page's rate limit counts lookups per address). */
export function shopperAddress(): string {
  clients++;
  return `198.51.${Math.floor(clients / 250) % 250}.${(clients % 250) + 1}`;
}

/* ------------------------------------------------------------------ requests */

export interface Timed {
  ms: number;
  status: number;
  bytes: number;
  /** Statements the app sent while serving it; null when not counted (concurrent load). */
  statements: number | null;
  body: string | null;
  error: string | null;
}

/**
 * One request, timed from the first byte sent to the last byte of the answer read; with `app`, the
 * statements counted around it (requests are sequential there). `keepBody` keeps the text (JSON answers).
 */
export async function timedRequest(
  url: string,
  init: RequestInit & { timeoutMs: number; keepBody?: boolean; app?: ScaleApp; signal?: AbortSignal },
): Promise<Timed> {
  const before = init.app ? (await init.app.stats()).statements : null;
  const started = performance.now();
  let status = 0;
  let bytes = 0;
  let body: string | null = null;
  let error: string | null = null;
  try {
    const signal = init.signal
      ? AbortSignal.any([init.signal, AbortSignal.timeout(init.timeoutMs)])
      : AbortSignal.timeout(init.timeoutMs);
    const response = await fetch(url, { ...init, signal });
    status = response.status;
    if (init.keepBody) {
      body = await response.text();
      bytes = Buffer.byteLength(body);
    } else if (response.body) {
      for await (const chunk of response.body) bytes += (chunk as Uint8Array).byteLength;
    }
    if (status >= 400) error = `HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`;
  } catch (e) {
    error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  }
  const ms = performance.now() - started;
  const after = init.app ? (await init.app.stats()).statements : null;
  return {
    ms,
    status,
    bytes,
    statements: before === null || after === null ? null : after - before,
    body,
    error,
  };
}

/** Nearest-rank percentile (p in 0..100) of the values; NaN when none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}
