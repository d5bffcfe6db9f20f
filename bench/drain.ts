/**
 * Drain: a burst of fulfilments lands in the WebhookDelivery table of a fresh database while the worker
 * process(es) are up and idle; the clock runs from the commit of the burst until the emulator holds every
 * expected tracker. Progress is polled from the emulator's account balances (each new tracker costs one;
 * `/_emulator/trackers` renders every tracker's lifecycle and is too heavy to poll at 20 000 trackers). The
 * final checks come from the emulator itself: its call log (create calls per tracker) and its trackers.
 * Every fulfilment of the burst is new to the app, so the worker confirms it with its store first (the
 * bench's fake store, store.ts): the store calls it made while the clock ran are counted from the fake's log.
 */
import { performance } from 'node:perf_hooks';
import type { DatabaseProvider } from '../src/db/provider.js';
import type { FakeAdminGraphql } from '../tools/dev/fake-store-admin.js';
import { type AppProcess, type AppRole, startApp } from './app-process.js';
import { type BenchShop, type Burst, trackerKey } from './burst.js';
import type { Cleanup } from './cleanup.js';
import { type CpuUsage, formatCpu, measureCpu } from './cpu.js';
import { connectShops, insertBurst, installShops, scratchDatabase, withDatabase } from './database.js';
import type { EmulatorProcess } from './emulator.js';
import { type StoreCalls, storeCallsSince, storeMark } from './store.js';
import { sleep } from './wait.js';

export interface DrainOptions {
  /** Short name in progress lines, e.g. `pg2`. */
  name: string;
  provider: DatabaseProvider;
  role: Extract<AppRole, 'all' | 'worker'>;
  processes: number;
  burst: Burst;
  shops: BenchShop[];
  emulator: EmulatorProcess;
  /** The fake store the app processes confirm fulfilments with (store.ts). */
  store: FakeAdminGraphql;
  secret: string;
  encryptionKey: string;
  postgresAdminUrl: string;
  workerConcurrency?: number;
  timeoutSec: number;
  progressEverySec: number;
  cleanup: Cleanup;
  log: (line: string) => void;
}

export interface DrainResult {
  name: string;
  provider: DatabaseProvider;
  role: string;
  processes: number;
  fulfillments: number;
  expectedTrackers: number;
  /** Trackers the emulator made during the run (from its balances). */
  created: number;
  /** Every expected tracker exists at the emulator (checked against its tracker list). */
  complete: boolean;
  /** The drain did not finish within its time limit (the rate is then over the trackers made so far). */
  timedOut: boolean;
  missing: number;
  unexpected: number;
  seconds: number;
  trackersPerSec: number;
  /** From the emulator's call log, after the workers stopped. */
  createCalls: number;
  createsPerTracker: number;
  maxCreatesForOneTracker: number;
  failedCreateCalls: number;
  insertMs: number;
  /** First create call after the burst landed (s). */
  firstCreateSec: number | null;
  /** Last delivery turned into desired state (s after the burst landed). */
  deliveriesDoneSec: number | null;
  /** Tracker rows by sync state at the end. */
  trackerRows: Record<string, number>;
  workerExitCodes: Array<number | null>;
  /** CPU the app processes and the emulator used while the clock ran. */
  cpu: CpuUsage;
  /** The store calls (fulfilment confirmations) the drain made, from the fake store's request log. */
  store: StoreCalls;
  /** `fulfillmentNodes` calls per fulfilment of the burst. */
  storeCallsPerFulfillment: number;
  /** Fulfilment ids asked per fulfilment of the burst (1: each asked once). */
  storeIdsPerFulfillment: number;
}

export interface PreparedDrain {
  name: string;
  /** Runs the drain once (then the processes are stopped and the database dropped). */
  run(): Promise<DrainResult>;
  /** Stops the processes and drops the database if `run` did not (idempotent). */
  dispose(): Promise<void>;
}

/**
 * A fresh, migrated database with the shops connected, and the app process(es) started and idle (their
 * worker polling an empty queue). Several drains can be prepared at once; each then runs alone.
 */
export async function prepareDrain(options: DrainOptions): Promise<PreparedDrain> {
  const { emulator, name } = options;
  const db = await scratchDatabase(options.provider, options.cleanup, options.postgresAdminUrl);
  const apps: AppProcess[] = [];
  const dispose = async () => {
    await Promise.all(apps.map((a) => a.child.stop(5_000)));
    await db.drop();
  };
  try {
    const settings = {
      databaseUrl: db.url,
      trackingApiBaseUrl: emulator.baseUrl,
      secret: options.secret,
      encryptionKey: options.encryptionKey,
      fakeStoreUrl: options.store.baseUrl,
      ...(options.workerConcurrency !== undefined ? { workerConcurrency: options.workerConcurrency } : {}),
    };
    // Shops connected (key checked with the service, stored sealed) and installed (an offline session, for
    // the store calls) while the workers boot; both before the burst.
    await Promise.all([
      (async () => {
        await connectShops(db.url, {
          trackingApiBaseUrl: emulator.baseUrl,
          encryptionKey: options.encryptionKey,
          shops: options.shops,
        });
        await installShops(db.url, { encryptionKey: options.encryptionKey, shops: options.shops });
      })(),
      ...Array.from({ length: options.processes }, async (_, i) => {
        apps.push(await startApp(`${name}-${options.role}-${i + 1}`, options.role, settings));
      }),
    ]);
  } catch (error) {
    await dispose();
    throw error;
  }
  return {
    name,
    run: async () => {
      try {
        return await runPrepared(options, db.url, apps);
      } finally {
        await dispose();
      }
    },
    dispose,
  };
}

async function runPrepared(
  options: DrainOptions,
  databaseUrl: string,
  apps: AppProcess[],
): Promise<DrainResult> {
  const { burst, emulator, log, name } = options;
  // Clears the trackers and calls of earlier drains and restores the balances; the accounts (keys) stay.
  await emulator.reset();
  const before = await emulator.balances();
  // The drains run one at a time (the others' processes idle on an empty queue): the store's requests
  // from here on are this drain's.
  const storeFrom = storeMark(options.store);
  let cpu: { stop(): CpuUsage } | undefined;
  const { insertMs, t0, wall0 } = await withDatabase(databaseUrl, async (client) => {
    const start = performance.now();
    await insertBurst(client, burst.deliveries);
    const t = performance.now();
    cpu = measureCpu({
      ...Object.fromEntries(apps.map((a) => [a.child.name, a.child.pid])),
      emulator: emulator.child.pid,
    });
    return { insertMs: t - start, t0: t, wall0: Date.now() };
  });
  log(
    `  [${name}] burst of ${burst.deliveries.length} deliveries committed in ${(insertMs / 1000).toFixed(2)} s; ` +
      `waiting for ${burst.trackers} trackers`,
  );

  const createdNow = async () => {
    const now = await emulator.balances();
    let created = 0;
    for (const shop of options.shops)
      created += (before.get(shop.appName) ?? 0) - (now.get(shop.appName) ?? 0);
    return created;
  };
  let created = 0;
  let timedOut = false;
  let lastProgress = t0;
  const deadline = t0 + options.timeoutSec * 1000;
  let failedPolls = 0;
  for (;;) {
    try {
      created = await createdNow();
      failedPolls = 0;
    } catch (error) {
      // A busy machine can fail one poll; five in a row (or a dead emulator) end the run.
      if (++failedPolls >= 5 || !emulator.child.running()) throw error;
    }
    const now = performance.now();
    if (created >= burst.trackers) break;
    const gone = apps.find((a) => !a.child.running());
    if (gone)
      throw new Error(`${gone.child.name} exited during the drain\n${gone.child.output().slice(-3000)}`);
    if (now >= deadline) {
      timedOut = true;
      log(
        `  [${name}] timed out after ${options.timeoutSec} s with ${created} of ${burst.trackers} trackers`,
      );
      break;
    }
    if (now - lastProgress >= options.progressEverySec * 1000) {
      lastProgress = now;
      const s = (now - t0) / 1000;
      log(
        `  [${name}] ${s.toFixed(1)} s: ${created} / ${burst.trackers} trackers (${Math.round(created / s)}/s)`,
      );
    }
    await sleep(50);
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpuUsage = cpu!.stop();
  log(
    `  [${name}] ${created} trackers in ${seconds.toFixed(2)} s (${Math.round(created / seconds)}/s); ` +
      formatCpu(cpuUsage),
  );

  // Stop the workers before reading the call log, so it is final: a late duplicate create would show.
  await Promise.all(apps.map((a) => a.child.stop(15_000)));
  const workerExitCodes = await Promise.all(apps.map(async (a) => (await a.child.exited).code));

  const check = await checkAtEmulator(options, wall0);
  const store = storeCallsSince(options.store, storeFrom, new Set(options.shops.map((s) => s.domain)));
  log(
    `  [${name}] store: ${store.calls} fulfilment confirmation calls for ${burst.deliveries.length} ` +
      `fulfilments (${store.idsAsked} ids asked, ${store.distinctAsked} distinct)`,
  );
  const dbStats = await withDatabase(databaseUrl, async (client) => {
    const done = await client.prisma.webhookDelivery.aggregate({ _max: { processedAt: true } });
    const rows = await client.prisma.tracker.groupBy({ by: ['syncState'], _count: { _all: true } });
    return {
      deliveriesDoneAt: done._max.processedAt,
      trackerRows: Object.fromEntries(rows.map((r) => [r.syncState, r._count._all])),
    };
  });
  return {
    name,
    provider: options.provider,
    role: options.role,
    processes: options.processes,
    fulfillments: burst.deliveries.length,
    expectedTrackers: burst.trackers,
    created,
    complete: check.missing === 0 && created >= burst.trackers,
    timedOut,
    missing: check.missing,
    unexpected: check.unexpected,
    seconds,
    trackersPerSec: created / seconds,
    createCalls: check.createCalls,
    createsPerTracker: check.distinct === 0 ? 0 : check.createCalls / check.distinct,
    maxCreatesForOneTracker: check.maxPerTracker,
    failedCreateCalls: check.failedCalls,
    insertMs,
    firstCreateSec: check.firstCreateAt === null ? null : (check.firstCreateAt - wall0) / 1000,
    deliveriesDoneSec: dbStats.deliveriesDoneAt ? (dbStats.deliveriesDoneAt.getTime() - wall0) / 1000 : null,
    trackerRows: dbStats.trackerRows,
    workerExitCodes,
    cpu: cpuUsage,
    store,
    storeCallsPerFulfillment: store.calls / burst.deliveries.length,
    storeIdsPerFulfillment: store.idsAsked / burst.deliveries.length,
  };
}

/** Every expected tracker at the emulator, and every create call it logged, per (account, number, provider). */
async function checkAtEmulator(options: DrainOptions, wall0: number) {
  const { emulator, burst } = options;
  const calls = await emulator.createCalls();
  const perTracker = new Map<string, number>();
  let failedCalls = 0;
  let firstCreateAt: number | null = null;
  const appNames = new Set(options.shops.map((s) => s.appName));
  let createCalls = 0;
  for (const call of calls) {
    if (call.appName === null || !appNames.has(call.appName)) continue;
    createCalls++;
    if (call.httpStatus !== 200) failedCalls++;
    const at = Date.parse(call.at);
    if (at >= wall0 - 1_000 && (firstCreateAt === null || at < firstCreateAt)) firstCreateAt = at;
    const key = `${call.appName} ${trackerKey(String(call.body?.tracking_number), String(call.body?.tracking_provider))}`;
    perTracker.set(key, (perTracker.get(key) ?? 0) + 1);
  }
  let missing = 0;
  let unexpected = 0;
  for (const shop of options.shops) {
    const expected = burst.expected.get(shop.appName) ?? new Set<string>();
    const held = new Set(
      (await emulator.trackers(shop.appName)).map((t) => trackerKey(t.tracking_number, t.tracking_provider)),
    );
    for (const key of expected) if (!held.has(key)) missing++;
    for (const key of held) if (!expected.has(key)) unexpected++;
  }
  let maxPerTracker = 0;
  for (const count of perTracker.values()) maxPerTracker = Math.max(maxPerTracker, count);
  return {
    createCalls,
    distinct: perTracker.size,
    maxPerTracker,
    failedCalls,
    firstCreateAt,
    missing,
    unexpected,
  };
}
