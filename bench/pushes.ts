/**
 * Status pushes, two measurements:
 *
 * - **Burst:** the app (one process, SQLite) gets `count` pushes at once from `senders` concurrent clients
 *   in this process (Node's fetch; `perTracker` successive events of `count / perTracker` parcels, every
 *   parcel's first event, then every parcel's second…). Run twice: role `web` (accepting only: the intake
 *   side's ceiling) and role `all` (the same process applies them and writes their store events meanwhile,
 *   as a single SQLite app does). Figures: pushes accepted per second (200 answers over the time to answer
 *   them all), and push-to-stored latency, p50 and p99 over every push (the app's own `receivedAt` →
 *   `processedAt` of each push row: recorded → status stored, store events queued).
 * - **Service calls per delivered parcel:** the app and the emulator in this process, the emulator's clock
 *   at `clockSpeed` (one real second = one simulated hour at 3600) and the app's polling scaled to it (as
 *   `npm run dev` does). Two shops with `parcels` parcels each from creation to delivery: one whose account
 *   pushes every event to its push URL, one without pushes (polling only). Counted from the emulator's
 *   call log: reads (`get` + `by-order-id`) per delivered parcel for each, and pushes per parcel.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { AppConfig } from '../src/config.js';
import { startRuntime } from '../src/app/runtime.js';
import { startEmulator } from '../tools/emulator/server.js';
import { silentLogger } from '../src/logger.js';
import { setServiceClock } from '../src/shipments/read-bounds.js';
import { defaultPollPolicy, scalePollPolicy } from '../src/shipments/status.js';
import { ensurePushToken, statusPushUrl } from '../src/status-pushes/token.js';
import { startApp } from './app-process.js';
import type { BenchShop } from './burst.js';
import type { Cleanup } from './cleanup.js';
import { connectShops, scratchDatabase, withDatabase } from './database.js';
import { sleep } from './wait.js';

export interface PushBurstResult {
  pushes: number;
  ok: number;
  refused: number;
  acceptedPerSec: number;
  /** From the first push sent until every push is applied. */
  allAppliedSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Parcels whose stored history has every pushed event (integrity). */
  parcelsComplete: number;
  parcels: number;
}

const statuses = [
  ['pre_transit', 'label_created'],
  ['in_transit', 'picked_up'],
  ['in_transit', 'arrived_at_facility'],
  ['in_transit', 'out_for_delivery'],
  ['delivered', 'delivered'],
] as const;

/** The k-th push (1-based) of parcel `i`: its shipment with its first k events. */
function pushBody(i: number, k: number): string {
  const time = (j: number) => `2026-11-2${j} 1${j}:00:00`;
  const events = statuses.slice(0, k).map(([status, detail], j) => ({
    object: 'TrackingDetail',
    message: `Scan ${j + 1}`,
    status,
    status_detail: detail,
    datetime: time(j),
    source: 'UPS',
    tracking_location: { city: 'Louisville', state: 'KY', country: 'US', zip: '40003' },
  }));
  return JSON.stringify({
    order_id: `PB-${i}`,
    tracking_number: `1ZPUSHBENCH${String(i).padStart(7, '0')}`,
    tracking_provider: 'ups',
    tracking_event_status: statuses[k - 1]![0],
    tracking_est_delivery_date: '2026-11-27',
    last_event_time: time(k - 1),
    events,
    user_key: 'ignored',
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

export async function measurePushBurst(options: {
  count: number;
  perTracker: number;
  senders: number;
  shops: BenchShop[];
  trackingApiBaseUrl: string;
  secret: string;
  encryptionKey: string;
  timeoutSec: number;
  /** `all` (default): the pushes are applied while they arrive; `web`: accepting only. */
  role?: 'all' | 'web';
  cleanup: Cleanup;
  log: (line: string) => void;
}): Promise<PushBurstResult> {
  const parcels = Math.floor(options.count / options.perTracker);
  const db = await scratchDatabase('sqlite', options.cleanup);
  try {
    await connectShops(db.url, { ...options, shops: options.shops });
    // Parcels spread over the shops, each a wanted tracker at the service with one fulfilment line.
    const urls: string[] = [];
    await withDatabase(db.url, async ({ prisma }) => {
      const shopRows = await prisma.shop.findMany({ orderBy: { domain: 'asc' } });
      for (const shop of shopRows) urls.push(await ensurePushToken(prisma, shop.id));
      const trackers = [];
      const lines = [];
      for (let i = 0; i < parcels; i++) {
        const shop = shopRows[i % shopRows.length]!;
        const id = randomUUID();
        const trackingNumber = `1ZPUSHBENCH${String(i).padStart(7, '0')}`;
        trackers.push({
          id,
          shopId: shop.id,
          trackingNumber,
          provider: 'ups',
          orderKey: `PB-${i}`,
          desired: 'active',
          remote: 'present',
          syncState: 'synced',
        });
        lines.push({
          shopId: shop.id,
          fulfillmentId: String(9_000_000 + i),
          orderId: `PB-${i}`,
          trackingNumber,
          trackerId: id,
          carrierName: 'UPS',
        });
      }
      for (let i = 0; i < trackers.length; i += 500) {
        await prisma.tracker.createMany({ data: trackers.slice(i, i + 500) });
        await prisma.trackingLine.createMany({ data: lines.slice(i, i + 500) });
      }
    });
    const app = await startApp('pushes-app', options.role ?? 'all', {
      databaseUrl: db.url,
      trackingApiBaseUrl: options.trackingApiBaseUrl,
      secret: options.secret,
      encryptionKey: options.encryptionKey,
    });
    try {
      const shopKeys = [...options.shops]
        .sort((a, b) => a.domain.localeCompare(b.domain))
        .map((s) => s.apiKey);
      const targets = urls.map((token) => `${app.url}/status-webhooks/${token}`);
      const queue: Array<{ url: string; key: string; body: string }> = [];
      for (let k = 1; k <= options.perTracker; k++)
        for (let i = 0; i < parcels; i++)
          queue.push({
            url: targets[i % targets.length]!,
            key: shopKeys[i % shopKeys.length]!,
            body: pushBody(i, k),
          });
      options.log(
        `pushes: sending ${queue.length} pushes for ${parcels} parcels, ${options.senders} at a time…`,
      );
      let next = 0;
      let ok = 0;
      let refused = 0;
      const started = performance.now();
      const startedAt = Date.now();
      await Promise.all(
        Array.from({ length: options.senders }, async () => {
          while (next < queue.length) {
            const push = queue[next++]!;
            const res = await fetch(push.url, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'service-api-key': push.key },
              body: push.body,
            });
            await res.arrayBuffer();
            if (res.status === 200) ok++;
            else refused++;
          }
        }),
      );
      const sendSec = (performance.now() - started) / 1000;
      if (options.role === 'web') {
        options.log(`pushes (accepting only): ${ok} accepted in ${sendSec.toFixed(2)} s`);
        return {
          pushes: queue.length,
          ok,
          refused,
          acceptedPerSec: ok / sendSec,
          parcels,
          p50Ms: NaN,
          p99Ms: NaN,
          allAppliedSec: NaN,
          parcelsComplete: NaN,
        };
      }
      options.log(`pushes: ${ok} accepted in ${sendSec.toFixed(2)} s; waiting for them to be applied…`);
      const deadline = Date.now() + options.timeoutSec * 1000;
      const result = await withDatabase(db.url, async ({ prisma }) => {
        while ((await prisma.statusPush.count({ where: { state: 'pending' } })) > 0 && Date.now() < deadline)
          await sleep(100);
        const rows = await prisma.statusPush.findMany({ select: { receivedAt: true, processedAt: true } });
        const latencies = rows
          .filter((r) => r.processedAt !== null)
          .map((r) => r.processedAt!.getTime() - r.receivedAt.getTime())
          .sort((a, b) => a - b);
        const lastApplied = Math.max(...rows.map((r) => r.processedAt?.getTime() ?? NaN));
        const stored = await prisma.tracker.findMany({ select: { events: true, status: true } });
        const complete = stored.filter(
          (t) =>
            t.status === 'delivered' &&
            (JSON.parse(t.events ?? '[]') as unknown[]).length === options.perTracker,
        ).length;
        return {
          p50Ms: percentile(latencies, 50),
          p99Ms: percentile(latencies, 99),
          allAppliedSec: (lastApplied - startedAt) / 1000,
          parcelsComplete: complete,
        };
      });
      return {
        pushes: queue.length,
        ok,
        refused,
        acceptedPerSec: ok / sendSec,
        parcels,
        ...result,
      };
    } finally {
      await app.child.stop(10_000);
    }
  } finally {
    await db.drop();
  }
}

export interface PushVsPollResult {
  parcels: number;
  deliveredPolling: number;
  deliveredPushes: number;
  readsPerParcelPolling: number;
  readsPerParcelPushes: number;
  pushesPerParcel: number;
  simulatedHours: number;
}

export async function measurePushesVsPolling(options: {
  parcels: number;
  clockSpeed: number;
  timeoutSec: number;
  cleanup: Cleanup;
  log: (line: string) => void;
}): Promise<PushVsPollResult> {
  const tag = randomBytes(3).toString('hex');
  const accounts = {
    push: { apiKey: `push-key-${tag}-${randomBytes(8).toString('hex')}`, appName: `push-${tag}` },
    poll: { apiKey: `poll-key-${tag}-${randomBytes(8).toString('hex')}`, appName: `poll-${tag}` },
  };
  const emulator = await startEmulator({
    port: 0,
    clockSpeed: options.clockSpeed,
    accounts: Object.values(accounts).map((a) => ({ ...a, plan: 'Pro', balance: 100_000, https: true })),
  });
  const stopEmulator = options.cleanup.add('stop the in-process emulator', () => emulator.close());
  // Its clock runs fast: the app in this process judges its events by it (src/shipments/read-bounds.ts), as
  // npm run dev does; else every event more than a day ahead of the real clock is refused and no parcel
  // is ever delivered.
  setServiceClock(() => emulator.state.clock.nowMs());
  const db = await scratchDatabase('sqlite', options.cleanup);
  const config: AppConfig = {
    port: 0,
    host: '127.0.0.1',
    databaseUrl: db.url,
    shopify: {
      apiKey: 'bench-api-key',
      apiSecret: randomBytes(16).toString('hex'),
      appUrl: 'http://127.0.0.1:3000',
    },
    trackingApiBaseUrl: emulator.baseUrl,
    encryptionKey: `bench:${randomBytes(32).toString('base64')}`,
    logLevel: 'silent',
    role: 'all',
    workerConcurrency: 16,
    lease: { leaseMs: 15_000, renewEveryMs: 5_000 },
    trackingTimeoutMs: 10_000,
    metrics: { port: null, host: '127.0.0.1', token: null },
    adminUiScripts: 'cdn',
    trustProxy: 1,
    trackingPage: { refreshAfterMs: 30 * 60_000 },
  };
  // The app's reads follow the emulator's clock, as under npm run dev.
  const pollPolicy = scalePollPolicy(defaultPollPolicy, 1 / options.clockSpeed);
  const runtime = await startRuntime(config, {
    logger: silentLogger,
    migrate: false,
    idlePollMs: 25,
    pollPolicy,
    reconciler: { firstPollMs: pollPolicy.firstPollMs },
  });
  try {
    const prisma = runtime.db.prisma;
    const shopIds: Record<'push' | 'poll', string> = { push: '', poll: '' };
    for (const kind of ['push', 'poll'] as const) {
      const shop = await runtime.context.shops.saveCredentials(
        `${accounts[kind].appName}.myshopify.com`,
        accounts[kind],
      );
      shopIds[kind] = shop.id;
      const trackers = Array.from({ length: options.parcels }, (_, i) => ({
        id: randomUUID(),
        shopId: shop.id,
        trackingNumber: `1ZVS${kind.toUpperCase()}${tag}${String(i).padStart(5, '0')}`,
        provider: 'ups',
        orderKey: `${kind}-${i}`,
        postalCode: '40003',
        destinationCountry: 'US',
      }));
      await prisma.tracker.createMany({ data: trackers });
    }
    const token = await ensurePushToken(prisma, shopIds.push);
    emulator.state.patchAccount(accounts.push.appName, { webhookUrl: statusPushUrl(runtime.url!, token) });
    const startedVirtual = emulator.state.clock.nowMs();
    options.log(
      `pushes vs polling: ${options.parcels} parcels per shop, emulator clock ×${options.clockSpeed}; until every parcel is delivered…`,
    );
    const delivered = (shopId: string) => prisma.tracker.count({ where: { shopId, status: 'delivered' } });
    const deadline = Date.now() + options.timeoutSec * 1000;
    let counts = { push: 0, poll: 0 };
    while (Date.now() < deadline) {
      counts = { push: await delivered(shopIds.push), poll: await delivered(shopIds.poll) };
      if (counts.push === options.parcels && counts.poll === options.parcels) break;
      await sleep(500);
    }
    const calls = (appName: string, operation: string) =>
      emulator.state.calls.list({ appName, operation }).length;
    const reads = (appName: string) => calls(appName, 'get') + calls(appName, 'by-order-id');
    return {
      parcels: options.parcels,
      deliveredPolling: counts.poll,
      deliveredPushes: counts.push,
      readsPerParcelPolling: reads(accounts.poll.appName) / Math.max(1, counts.poll),
      readsPerParcelPushes: reads(accounts.push.appName) / Math.max(1, counts.push),
      pushesPerParcel:
        emulator.state.calls.list({ appName: accounts.push.appName, operation: 'push' }).length /
        Math.max(1, counts.push),
      simulatedHours: (emulator.state.clock.nowMs() - startedVirtual) / 3_600_000,
    };
  } finally {
    await runtime.close();
    setServiceClock(null);
    await stopEmulator();
    await db.drop();
  }
}
