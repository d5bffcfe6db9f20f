import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DatabaseClient } from '../../src/db/client.js';
import { parseKeyring } from '../../src/shops/crypto.js';
import { createShopRepository } from '../../src/shops/shop-repository.js';
import { TEST_SECRET } from '../helpers/app.js';
import { type ChildApp, type ChildAppEnv, startChildApp } from '../helpers/child-app.js';
import type { EmulatorControl, LoggedCall } from '../helpers/emulator.js';
import type { FakeAdminGraphql } from '../helpers/fake-admin-graphql.js';
import { installShop } from '../helpers/install.js';
import { fixture, signedDelivery } from '../helpers/webhooks.js';
import { childLogLevel, RELIABILITY_SCALE } from './config.js';

/**
 * What the reliability tests share: the platform's side (many distinct signed deliveries, sent with many in
 * flight, re-sent until acknowledged), the app as real processes, bounded waits, and the figures read back
 * from the database and the emulator's call log.
 */

// ---------------------------------------------------------------------------------------------------------
// Deliveries, as the platform would send them

/** One tracker a delivery asks for: (tracking number, provider slug the app must map the carrier to). */
export interface WantedTracker {
  number: string;
  provider: string;
}

export interface PlannedDelivery {
  index: number;
  eventId: string;
  webhookId: string;
  /** The exact bytes sent (and re-sent: the platform retries the same delivery). */
  body: string;
  headers: Record<string, string>;
  trackers: WantedTracker[];
}

/** `number/provider`: the identity of a tracker at the service (per account). */
export function keyOf(number: string, provider: string): string {
  return `${number}/${provider}`;
}

const templates = [
  { fixture: 'fulfillments-create.ups', provider: 'ups', prefix: '1Z' },
  { fixture: 'fulfillments-create.dhl-two-parcels', provider: 'dhl-express', prefix: 'JJD' },
] as const;

/**
 * `count` distinct fulfilments/create deliveries for one shop, from the store's fixtures: alternately the
 * UPS and the DHL Express fulfilment, each with its own fulfilment id, order, name and 1–3 tracking numbers
 * (unique within the run), its own event id and webhook id, signed with the app's secret.
 */
export function planFulfillmentDeliveries(options: { count: number; shopDomain: string }): PlannedDelivery[] {
  const tag = randomBytes(3).toString('hex').toUpperCase();
  const triggeredAt = new Date().toISOString();
  const bodies = templates.map((t) => fixture(t.fixture));
  const planned: PlannedDelivery[] = [];
  for (let index = 0; index < options.count; index++) {
    const template = templates[index % templates.length]!;
    const numbers = Array.from(
      { length: 1 + (index % 3) },
      (_, k) => `${template.prefix}${tag}${String(index).padStart(7, '0')}${k}`,
    );
    const body = {
      ...bodies[index % templates.length],
      id: 7_000_000_000_000 + index,
      order_id: 8_000_000_000_000 + index,
      name: `#${10_000 + index}.1`,
      tracking_number: numbers[0],
      tracking_numbers: numbers,
      tracking_url: `https://tracking.example/${numbers[0]}`,
      tracking_urls: numbers.map((n) => `https://tracking.example/${n}`),
      admin_graphql_api_id: `gid://shopify/Fulfillment/${7_000_000_000_000 + index}`,
    };
    const eventId = randomUUID();
    const webhookId = randomUUID();
    const signed = signedDelivery({
      topic: 'fulfillments/create',
      shop: options.shopDomain,
      body,
      secret: TEST_SECRET,
      eventId,
      webhookId,
      triggeredAt,
    });
    planned.push({
      index,
      eventId,
      webhookId,
      body: signed.body,
      headers: signed.headers,
      trackers: numbers.map((number) => ({ number, provider: template.provider })),
    });
  }
  return planned;
}

/** Every tracker the deliveries want, by key. */
export function wantedTrackers(deliveries: readonly PlannedDelivery[]): Map<string, WantedTracker> {
  const wanted = new Map<string, WantedTracker>();
  for (const d of deliveries) for (const t of d.trackers) wanted.set(keyOf(t.number, t.provider), t);
  return wanted;
}

export type PostOutcome =
  { answered: true; status: number; duplicate: boolean | null } | { answered: false; cause: string };

export function isAck(outcome: PostOutcome): boolean {
  return outcome.answered && outcome.status >= 200 && outcome.status < 300;
}

/** POSTs one delivery (bounded by `timeoutMs`). A refused or reset connection is an outcome, not a throw. */
export async function postDelivery(
  appUrl: string,
  delivery: PlannedDelivery,
  timeoutMs = 30_000,
): Promise<PostOutcome> {
  let response: Response;
  try {
    response = await fetch(`${appUrl}/webhooks`, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    return { answered: false, cause: causeOf(error) };
  }
  // The status line is the platform's answer; a body cut off after it changes nothing about the 2xx.
  let duplicate: boolean | null = null;
  try {
    const json = (await response.json()) as { duplicate?: unknown };
    if (typeof json.duplicate === 'boolean') duplicate = json.duplicate;
  } catch {
    duplicate = null;
  }
  return { answered: true, status: response.status, duplicate };
}

function causeOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    if (cause && typeof cause === 'object') {
      const code = (cause as { code?: unknown }).code;
      if (typeof code === 'string') return code;
    }
    if (error.name === 'TimeoutError') return 'timeout';
    return error.message;
  }
  return String(error);
}

/** Runs `fn` over `items` in order, in `concurrency` lanes (at most that many in flight). */
export async function forEachConcurrently<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number, lane: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const run = async (lane: number) => {
    while (next < items.length) {
      const index = next++;
      await fn(items[index]!, index, lane);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, (_, lane) => run(lane)));
}

/**
 * Sends a delivery until it is acknowledged, as the platform retries: at most `maxTries` POSTs with a pause
 * between them. Returns every outcome (the last one is the 2xx, unless it gave up).
 */
export async function deliverUntilAcked(
  appUrl: string,
  delivery: PlannedDelivery,
  options: { maxTries?: number; pauseMs?: number } = {},
): Promise<PostOutcome[]> {
  const outcomes: PostOutcome[] = [];
  const maxTries = options.maxTries ?? 20;
  for (let attempt = 0; attempt < maxTries; attempt++) {
    const outcome = await postDelivery(appUrl, delivery);
    outcomes.push(outcome);
    if (isAck(outcome)) return outcomes;
    await sleep(options.pauseMs ?? 250);
  }
  return outcomes;
}

/** "ECONNREFUSED ×3, ECONNRESET ×1" from a list of outcomes. */
export function tallyFailures(outcomes: readonly PostOutcome[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) {
    if (isAck(o)) continue;
    const label = o.answered ? `HTTP ${o.status}` : o.cause;
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  if (counts.size === 0) return 'none';
  return [...counts.entries()].map(([label, n]) => `${label} ×${n}`).join(', ');
}

// ---------------------------------------------------------------------------------------------------------
// The app as real processes

/** A free port on 127.0.0.1 (so a restarted app comes back at the same address, as the platform expects). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export interface AppProcess {
  child: ChildApp;
  /** The web role's base URL (null for a worker). */
  url: string | null;
}

/**
 * Starts `node src/app/main.ts --role <role>` with only environment variables, on 127.0.0.1:`port` for the
 * web roles, and waits (bounded) until `GET /readyz` answers 200.
 */
export async function startAppProcess(
  role: 'all' | 'web' | 'worker',
  env: ChildAppEnv,
  port?: number,
): Promise<AppProcess> {
  const child = startChildApp(role, {
    LOG_LEVEL: childLogLevel,
    ...env,
    HOST: '127.0.0.1',
    ...(port !== undefined ? { PORT: String(port) } : {}),
  });
  if (role === 'worker') return { child, url: null };
  if (port === undefined) throw new Error('a web role needs a port');
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(
    `the app (${role}, pid ${child.pid}) to answer /readyz`,
    async () => {
      if (!child.running()) throw new Error(`the app exited before it was ready:\n${child.output()}`);
      try {
        const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
        await response.text();
        return response.status === 200;
      } catch {
        return false;
      }
    },
    { timeoutMs: 90_000, intervalMs: 200, rethrow: true },
  );
  return { child, url };
}

/** SIGKILLs a child and waits for it to be gone. */
export async function killHard(child: ChildApp): Promise<void> {
  if (child.running()) child.process.kill('SIGKILL');
  await child.exited;
}

// ---------------------------------------------------------------------------------------------------------
// Bounded waiting

/**
 * Polls `check` until it is true or `timeoutMs` has passed, then fails naming `what` and, when given, the
 * current state (`describe`). An error from `check` (a database briefly busy) is retried unless `rethrow`.
 * Resolves with the time waited.
 */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  options: {
    timeoutMs: number;
    intervalMs?: number;
    describe?: () => Promise<string>;
    rethrow?: boolean;
  },
): Promise<number> {
  const started = Date.now();
  const deadline = started + options.timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      if (await check()) return Date.now() - started;
      lastError = null;
    } catch (error) {
      if (options.rethrow) throw error;
      lastError = error;
    }
    if (Date.now() >= deadline) break;
    await sleep(options.intervalMs ?? 500);
  }
  let state = '';
  if (options.describe) {
    try {
      state = `\nstate: ${await options.describe()}`;
    } catch (error) {
      state = `\nstate unavailable: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  const last = lastError
    ? `\nlast error: ${lastError instanceof Error ? lastError.message : String(lastError)}`
    : '';
  throw new Error(
    `timed out after ${Math.round(options.timeoutMs / 1000)} s waiting for ${what}${state}${last}`,
  );
}

// ---------------------------------------------------------------------------------------------------------
// Shops and accounts

export interface ConnectedShop {
  id: string;
  domain: string;
  appName: string;
}

/**
 * A new account at the emulator and a shop that installed the app and connected it: its offline session
 * (test/helpers/install.ts) and its API key, both sealed with `encryptionKey` (the app processes'
 * ENCRYPTION_KEY) in the test database, as the install and the settings page would store them. The worker
 * confirms each new fulfilment with the store through that session (src/webhooks/admit-deliveries.ts): the
 * test's fake store (startFakeAdminGraphql in the test process; children get FAKE_STORE_URL) answers.
 */
export async function connectShop(
  prisma: DatabaseClient,
  encryptionKey: string,
  control: EmulatorControl,
  options: { name: string; balance: number },
): Promise<ConnectedShop> {
  const tag = `${options.name}-${randomBytes(4).toString('hex')}`;
  const domain = `${tag}.myshopify.com`;
  const appName = `store-${tag}`;
  const apiKey = `key-${tag}-${randomBytes(8).toString('hex')}`;
  await control.addAccount({ apiKey, appName, plan: 'Pro', balance: options.balance, https: true });
  const shop = await createShopRepository(prisma, parseKeyring(encryptionKey)).saveCredentials(domain, {
    apiKey,
    appName,
  });
  await installShop({ database: { prisma }, config: { encryptionKey } }, domain);
  return { id: shop.id, domain, appName };
}

/** The store calls that confirmed the shop's fulfilments (`nodes(ids:)`), and the ids they asked about. */
export function confirmationCalls(
  store: FakeAdminGraphql,
  shop: ConnectedShop,
): { calls: number; ids: number; distinct: number } {
  const asked = store.requests.filter((r) => r.shop === shop.domain && r.operation === 'fulfillmentNodes');
  const ids = asked.flatMap((r) => (Array.isArray(r.variables.ids) ? r.variables.ids.map(String) : []));
  return { calls: asked.length, ids: ids.length, distinct: new Set(ids).size };
}

/** "12 calls for 400 fulfilments (400 ids asked, 400 distinct)". */
export function describeConfirmations(
  store: FakeAdminGraphql,
  shop: ConnectedShop,
  fulfillments: number,
): string {
  const c = confirmationCalls(store, shop);
  return `${c.calls} calls for ${fulfillments} fulfilments (${c.ids} ids asked, ${c.distinct} distinct)`;
}

// ---------------------------------------------------------------------------------------------------------
// What the database and the emulator say

export interface Progress {
  deliveries: { total: number; pending: number; processed: number; failed: number; leased: number };
  trackers: {
    total: number;
    pending: number;
    synced: number;
    failed: number;
    dead: number;
    leased: number;
    unknown: number;
  };
}

export async function progressOf(prisma: DatabaseClient, shop: ConnectedShop): Promise<Progress> {
  const [deliveryStates, deliveriesLeased, trackerStates, trackersLeased, trackersUnknown] =
    await Promise.all([
      prisma.webhookDelivery.groupBy({
        by: ['state'],
        where: { shopDomain: shop.domain },
        _count: { _all: true },
      }),
      prisma.webhookDelivery.count({ where: { shopDomain: shop.domain, leaseOwner: { not: null } } }),
      prisma.tracker.groupBy({ by: ['syncState'], where: { shopId: shop.id }, _count: { _all: true } }),
      prisma.tracker.count({ where: { shopId: shop.id, leaseOwner: { not: null } } }),
      prisma.tracker.count({ where: { shopId: shop.id, remote: 'unknown' } }),
    ]);
  const d = new Map(deliveryStates.map((g) => [g.state, g._count._all]));
  const t = new Map(trackerStates.map((g) => [g.syncState, g._count._all]));
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  return {
    deliveries: {
      total: sum(d),
      pending: d.get('pending') ?? 0,
      processed: d.get('processed') ?? 0,
      failed: d.get('failed') ?? 0,
      leased: deliveriesLeased,
    },
    trackers: {
      total: sum(t),
      pending: t.get('pending') ?? 0,
      synced: t.get('synced') ?? 0,
      failed: t.get('failed') ?? 0,
      dead: t.get('dead') ?? 0,
      leased: trackersLeased,
      unknown: trackersUnknown,
    },
  };
}

export function describeProgress(p: Progress): string {
  const d = p.deliveries;
  const t = p.trackers;
  return (
    `deliveries ${d.total} (pending ${d.pending}, processed ${d.processed}, failed ${d.failed}, leased ${d.leased}); ` +
    `trackers ${t.total} (pending ${t.pending}, synced ${t.synced}, failed ${t.failed}, dead ${t.dead}, ` +
    `leased ${t.leased}, remote unknown ${t.unknown})`
  );
}

/**
 * Waits (bounded) until the shop's work is done: `deliveries` stored, none pending, and no tracker pending or
 * leased. Returns the final progress.
 */
export async function waitSettled(
  prisma: DatabaseClient,
  shop: ConnectedShop,
  options: { deliveries: number; timeoutMs: number; children?: readonly ChildApp[] },
): Promise<Progress> {
  let last: Progress | null = null;
  await waitUntil(
    `the work of ${shop.domain} to settle`,
    async () => {
      last = await progressOf(prisma, shop);
      return (
        last.deliveries.total >= options.deliveries &&
        last.deliveries.pending === 0 &&
        last.trackers.pending === 0 &&
        last.trackers.leased === 0
      );
    },
    {
      timeoutMs: options.timeoutMs,
      intervalMs: 1_000,
      describe: async () => {
        const state = describeProgress(await progressOf(prisma, shop));
        const gone = (options.children ?? []).filter((c) => !c.running());
        const exits = gone.map((c) => `\n--- app child ${c.pid} exited ---\n${c.output().slice(-3000)}`);
        return state + exits.join('');
      },
    },
  );
  return last!;
}

export interface StoredDelivery {
  eventId: string;
  state: string;
  attempts: number;
  error: string | null;
}

export function storedDeliveries(prisma: DatabaseClient, shop: ConnectedShop): Promise<StoredDelivery[]> {
  return prisma.webhookDelivery.findMany({
    where: { shopDomain: shop.domain },
    select: { eventId: true, state: true, attempts: true, error: true },
  });
}

export interface TrackerRow {
  trackingNumber: string;
  provider: string;
  desired: string;
  remote: string;
  syncState: string;
  lastErrorReason: string | null;
  createCalls: number;
  leaseOwner: string | null;
}

export function trackerRows(prisma: DatabaseClient, shop: ConnectedShop): Promise<TrackerRow[]> {
  return prisma.tracker.findMany({
    where: { shopId: shop.id },
    select: {
      trackingNumber: true,
      provider: true,
      desired: true,
      remote: true,
      syncState: true,
      lastErrorReason: true,
      createCalls: true,
      leaseOwner: true,
    },
  });
}

/** A call-log entry with the fault the emulator injected (null: answered normally). */
export type FaultedCall = LoggedCall & {
  fault: 'reset' | 'timeout' | 'rate_limit' | 'error' | 'script' | null;
};

/** The calls of one operation for one account, grouped by tracker key (in arrival order). */
export async function callsByKey(
  control: EmulatorControl,
  appName: string,
  operation: LoggedCall['operation'],
): Promise<{ calls: FaultedCall[]; byKey: Map<string, FaultedCall[]> }> {
  const calls = (await control.calls({ operation, appName })) as FaultedCall[];
  const byKey = new Map<string, FaultedCall[]>();
  for (const call of calls) {
    const body = call.body as { tracking_number?: unknown; tracking_provider?: unknown } | null;
    const number = typeof body?.tracking_number === 'string' ? body.tracking_number : '?';
    const provider = typeof body?.tracking_provider === 'string' ? body.tracking_provider : '?';
    const key = keyOf(number, provider);
    const list = byKey.get(key) ?? [];
    list.push(call);
    byKey.set(key, list);
  }
  return { calls, byKey };
}

/** The emulator's trackers of one account, by key. */
export async function remoteKeys(control: EmulatorControl, appName: string): Promise<Set<string>> {
  return new Set((await control.trackers(appName)).map((t) => keyOf(t.tracking_number, t.tracking_provider)));
}

/** Up to `limit` elements of a set missing from another, for failure messages. */
export function missingFrom(expected: Iterable<string>, actual: ReadonlySet<string>, limit = 10): string[] {
  const missing: string[] = [];
  for (const key of expected) {
    if (!actual.has(key)) missing.push(key);
    if (missing.length >= limit) break;
  }
  return missing;
}

/** The longest list in a map (e.g. the most create calls any one tracker got). */
export function maxLength(byKey: ReadonlyMap<string, readonly unknown[]>): number {
  let max = 0;
  for (const list of byKey.values()) max = Math.max(max, list.length);
  return max;
}

// ---------------------------------------------------------------------------------------------------------
// Figures

/** What a test measured, in the order it was measured, printed as one small table. */
export class Figures {
  private readonly values = new Map<string, number | string>();

  set(label: string, value: number | string): void {
    this.values.set(label, value);
  }

  table(): string {
    const entries = [...this.values.entries()];
    const width = Math.max(0, ...entries.map(([label]) => label.length));
    return entries.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`).join('\n');
  }
}

/**
 * Runs a test body that fills `figures`, then prints them via console.log — also when the body failed
 * half-way (marked FAILED, with what was measured up to then), so a reader of the run sees what held.
 */
export async function withFigures(title: string, body: (figures: Figures) => Promise<void>): Promise<void> {
  const figures = new Figures();
  const started = Date.now();
  let outcome = 'FAILED';
  try {
    await body(figures);
    outcome = 'held';
  } finally {
    console.log(
      `[reliability] ${title} — ${outcome}, ${seconds(Date.now() - started)}, scale ${RELIABILITY_SCALE}\n` +
        figures.table(),
    );
  }
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
