/**
 * Bytes kept per fulfilment in steady state, and what retention (src/jobs/retention.ts) does to them.
 *
 * `measureBytesPerFulfillment` fills a migrated PostgreSQL database with fulfilments arriving at an even
 * rate over `days` (longer than the tracker retention, so the oldest have ended), each with the rows the app
 * writes for it, shaped by the app's own code from the emulator's lifecycle: its webhook delivery
 * (processed: body emptied), its Fulfillment row, 1.2 tracking lines and trackers (every fifth fulfilment has
 * two numbers; each tracker delivered, with the event history `statusFromShipment` stores), one store
 * fulfilment event per platform status change and fulfilment (`statusChanges`, written), one status push per
 * service event (the body the service sends; applied). Then it measures `pg_total_relation_size` of every
 * app table per fulfilment kept, three times: with nothing deleted; as before retention existed (applied
 * pushes pruned after 7 days, nothing else); and after retention passes (the defaults, or `retention`; the
 * applied pushes' bodies emptied, as the apply pass now leaves them). Each
 * measurement follows `VACUUM FULL`: live rows and compact indexes, so the figures compare like with like (a
 * live table carries some free space on top, reused by autovacuum).
 *
 * `measureRetentionStatements` fills a database the same way (SQLite by default) and times every statement
 * of a retention pass working off that backlog: on SQLite each statement holds the one process, so its
 * longest is the longest stall retention causes.
 *
 * `npx tsx bench/storage.ts [--fulfillments N]` prints both (STORAGE_TRACE=1: every statement's time too).
 * The bench's scale run calls them with its own sizes.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createDatabase, type DatabaseClient } from '../src/db/client.js';
import { type BulkRows, insertRows } from '../src/db/insert-rows.js';
import { applyMigrations } from '../src/db/migrate.js';
import type { DatabaseProvider } from '../src/db/provider.js';
import { acquireTestPostgres } from '../tools/db/postgres-server.js';
import { createScratchDatabase, DEFAULT_POSTGRES_ADMIN_URL } from '../tools/db/scratch.js';
import { findCarrier } from '../tools/emulator/carriers.js';
import { shipmentSnapshot } from '../tools/emulator/lifecycle.js';
import { retentionRules } from '../src/jobs/queries/retention.js';
import { createRetention, defaultRetention, type RetentionSettings } from '../src/jobs/retention.js';
import { customerEmailHash } from '../src/lib/email-hash.js';
import { statusChanges, statusFromShipment } from '../src/shipments/status.js';
import { parsePush } from '../src/status-pushes/payload.js';

const day = 24 * 3_600_000;

export interface StorageOptions {
  /**
   * An empty, migrated database to fill (it is left filled; PostgreSQL for the byte counts). Default: a
   * scratch database (PostgreSQL on `postgresAdminUrl`, or a temp SQLite file), dropped afterwards.
   */
  databaseUrl?: string;
  postgresAdminUrl?: string;
  /** Fulfilments seeded (default 5 000). */
  fulfillments?: number;
  /** Spread evenly over this many days up to now (default: the tracker retention + 60 days). */
  days?: number;
  /** Shops they belong to (default 10). */
  shops?: number;
  /** Retention settings of the last measurement (default: the app's defaults). */
  retention?: Partial<RetentionSettings>;
}

export interface TableBytes {
  rows: number;
  /** Heap and TOAST (pg_table_size). */
  table: number;
  /** Every index of the table (pg_indexes_size). */
  indexes: number;
  /** pg_total_relation_size. */
  total: number;
  /** Each index's bytes. */
  indexSizes: Record<string, number>;
}

export interface StorageSnapshot {
  /** Fulfillment rows kept. */
  fulfillments: number;
  /** pg_total_relation_size of every app table, summed. */
  bytes: number;
  bytesPerFulfillment: number;
  /** Per table (the app's tables; `_prisma_migrations` left out): its bytes and its bytes per fulfilment. */
  tables: Record<string, TableBytes & { perFulfillment: number }>;
}

export interface StorageReport {
  seeded: { fulfillments: number; days: number; rows: Record<string, number> };
  /** Everything seeded, nothing deleted. */
  nothingDeleted: StorageSnapshot;
  /** As before retention: applied status pushes deleted after 7 days, nothing else. */
  pushPruneOnly: StorageSnapshot;
  /** After retention passes with the given settings. */
  afterRetention: StorageSnapshot;
  retention: { settings: RetentionSettings; passes: number; ms: number };
}

/** Bytes per fulfilment kept in steady state, before and after retention (PostgreSQL). */
export async function measureBytesPerFulfillment(options: StorageOptions = {}): Promise<StorageReport> {
  return withDatabase('postgresql', options, async (prisma) => {
    const settings = { ...defaultRetention, ...options.retention };
    const days = options.days ?? Math.round(settings.trackerMs / day) + 60;
    const now = new Date();
    const rows = await seedSteadyState(prisma, { ...options, days, now });
    const nothingDeleted = await snapshot(prisma);
    // Before this retention: only applied status pushes went, 7 days after they were applied.
    const pushRule = retentionRules.filter((r) => r.name === 'statusPushes');
    await createRetention({ prisma }, { deliveryMs: 7 * day, maxBatches: 1e6 }, pushRule).runPass({ now });
    const pushPruneOnly = await snapshot(prisma);
    const started = performance.now();
    const passes = await runUntilDone(prisma, settings, now);
    const ms = performance.now() - started;
    // The apply pass now empties a push's body once done with it (src/status-pushes/apply.ts).
    await prisma.statusPush.updateMany({
      where: { state: { in: ['applied', 'stale', 'dropped'] } },
      data: { payload: '' },
    });
    const afterRetention = await snapshot(prisma);
    return {
      seeded: { fulfillments: options.fulfillments ?? 5_000, days, rows },
      nothingDeleted,
      pushPruneOnly,
      afterRetention,
      retention: { settings, passes, ms: Math.round(ms) },
    };
  });
}

export interface StatementTimes {
  provider: DatabaseProvider;
  settings: RetentionSettings;
  statements: number;
  rowsDeleted: number;
  meanMs: number;
  p99Ms: number;
  maxMs: number;
  /** Batches that run as a transaction of a few statements, and the longest of them. */
  transactions: number;
  maxTransactionMs: number;
}

/**
 * Times every statement retention runs while working off a steady-state backlog (full batches: the worst
 * case). On SQLite the driver runs each synchronously, so a statement's time is how long it holds the
 * process (intake, the worker's other loops) before the pass yields.
 */
export async function measureRetentionStatements(
  options: StorageOptions & { provider?: DatabaseProvider } = {},
): Promise<StatementTimes> {
  const provider = options.provider ?? 'sqlite';
  return withDatabase(provider, options, async (prisma) => {
    const settings = { ...defaultRetention, ...options.retention };
    const days = options.days ?? Math.round(settings.trackerMs / day) + 60;
    const now = new Date();
    await seedSteadyState(prisma, { ...options, days, now });
    const times: number[] = [];
    const transactions: number[] = [];
    let rowsDeleted = 0;
    // Every raw statement timed, also inside transactions; and each transaction as a whole (on SQLite the
    // connection is the process's one: nothing else reaches the database until it commits).
    const timedClient = <C extends object>(client: C): C =>
      new Proxy(client, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver) as unknown;
          if (typeof value !== 'function') return value;
          const call = value as (...a: unknown[]) => Promise<unknown>;
          if (key === '$transaction')
            return async (fn: (tx: object) => Promise<unknown>, ...rest: unknown[]) => {
              const start = performance.now();
              try {
                return await call.call(target, (tx: object) => fn(timedClient(tx)), ...rest);
              } finally {
                transactions.push(performance.now() - start);
              }
            };
          if (key !== '$executeRawUnsafe' && key !== '$queryRawUnsafe') return value;
          return async (...args: unknown[]) => {
            const start = performance.now();
            try {
              const result = await call.apply(target, args);
              if (typeof result === 'number' && /^\s*DELETE/.test(String(args[0]))) rowsDeleted += result;
              return result;
            } finally {
              times.push(performance.now() - start);
              if (process.env.STORAGE_TRACE)
                console.log(
                  (performance.now() - start).toFixed(1),
                  String(args[0]).replace(/\s+/g, ' ').slice(0, 150),
                );
            }
          };
        },
      });
    const timed = timedClient(prisma);
    await runUntilDone(timed, settings, now);
    times.sort((a, b) => a - b);
    const round = (ms: number) => Math.round(ms * 10) / 10;
    return {
      provider,
      settings,
      statements: times.length,
      rowsDeleted,
      meanMs: round(times.reduce((sum, t) => sum + t, 0) / Math.max(1, times.length)),
      p99Ms: round(times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] ?? 0),
      maxMs: round(times.at(-1) ?? 0),
      transactions: transactions.length,
      maxTransactionMs: round(Math.max(0, ...transactions)),
    };
  });
}

/** Passes at `now` until one finishes everything. */
async function runUntilDone(prisma: DatabaseClient, settings: RetentionSettings, now: Date): Promise<number> {
  const retention = createRetention({ prisma }, settings);
  let passes = 1;
  while (!(await retention.runPass({ now })).done) passes++;
  return passes;
}

async function withDatabase<T>(
  provider: DatabaseProvider,
  options: StorageOptions,
  fn: (prisma: DatabaseClient) => Promise<T>,
): Promise<T> {
  const scratch = options.databaseUrl
    ? null
    : await createScratchDatabase(provider, {
        prefix: 'tracksync_bench_storage',
        postgresAdminUrl: options.postgresAdminUrl ?? DEFAULT_POSTGRES_ADMIN_URL,
      });
  try {
    const url = options.databaseUrl ?? scratch!.url;
    if (scratch) await applyMigrations(url);
    const db = await createDatabase(url);
    try {
      return await fn(db.prisma);
    } finally {
      await db.close();
    }
  } finally {
    await scratch?.drop();
  }
}

/** Rows written per statement while seeding. */
const chunk = 1_000;

/**
 * Fulfilments at an even rate over `days` up to `now`, with every row the app writes for each (see the
 * header). Returns the rows written per table.
 */
export async function seedSteadyState(
  prisma: DatabaseClient,
  options: StorageOptions & { days: number; now: Date },
): Promise<Record<string, number>> {
  const count = options.fulfillments ?? 5_000;
  const carrier = findCarrier('ups')!;
  const shops = Array.from({ length: options.shops ?? 10 }, (_, i) => ({
    id: randomUUID(),
    domain: `storage-bench-${i}.myshopify.com`,
  }));
  for (const shop of shops) await prisma.shop.create({ data: { ...shop, appName: 'bench-store' } });

  // Parents before children (foreign keys): when one table has a statement's worth, every table is written.
  const order: (keyof BulkRows)[] = [
    'WebhookDelivery',
    'Fulfillment',
    'Tracker',
    'TrackingLine',
    'StoreFulfillmentEvent',
    'StatusPush',
  ];
  const pending: { [T in keyof BulkRows]?: BulkRows[T][] } = {};
  const written: Record<string, number> = {};
  const flush = async (force: boolean) => {
    if (!force && !order.some((table) => (pending[table]?.length ?? 0) >= chunk)) return;
    for (const table of order) {
      const rows = pending[table] ?? [];
      if (rows.length === 0) continue;
      await insertRows(prisma, table, rows as never);
      written[table] = (written[table] ?? 0) + rows.length;
      pending[table] = [];
    }
  };
  const add = <T extends keyof BulkRows>(table: T, row: BulkRows[T]) => {
    ((pending[table] ??= []) as BulkRows[T][]).push(row);
  };

  const span = options.days * day;
  for (let i = 0; i < count; i++) {
    const shop = shops[i % shops.length]!;
    const t0 = options.now.getTime() - span + Math.floor((i * span) / count);
    const at = (ms: number) => new Date(t0 + ms);
    const fulfillmentId = String(5_521_000_000_000 + i);
    const orderId = String(6_120_000_000_000 + i);
    const orderName = `#${1001 + i}`;
    const numbers = Array.from(
      { length: i % 5 === 0 ? 2 : 1 },
      (_, n) => `1Z${String(i).padStart(9, '0')}${n}A0${String(i % 97).padStart(5, '0')}`,
    );

    add('WebhookDelivery', {
      id: randomUUID(),
      shopDomain: shop.domain,
      topic: 'fulfillments/create',
      eventId: randomUUID(),
      webhookId: randomUUID(),
      apiVersion: '2026-10',
      triggeredAt: at(0),
      // Processed: the body was emptied.
      payload: '',
      receivedAt: at(1_000),
      state: 'processed',
      attempts: 1,
      nextAttemptAt: at(1_000),
      processedAt: at(2_000),
    });
    add('Fulfillment', {
      id: randomUUID(),
      shopId: shop.id,
      fulfillmentId,
      orderId,
      orderName,
      customerEmailHash: customerEmailHash(shop.id, `customer${i}@example.com`),
      status: 'success',
      carrierName: 'UPS',
      sourceUpdatedAt: at(0),
      createdAt: at(2_000),
      updatedAt: at(2_000),
    });
    for (const trackingNumber of numbers) {
      const trackerId = randomUUID();
      const input = {
        trackingNumber,
        carrier,
        createdAtMs: t0,
        postalCode: '40003',
        destinationCountry: 'US',
      };
      // The service's body at each of its events (one push each), and the final one (what a read stores).
      const final = shipmentSnapshot(input, t0 + 3 * day);
      const body = (atMs: number) => {
        const snap = shipmentSnapshot(input, atMs);
        return JSON.stringify({
          order_id: orderId,
          tracking_number: trackingNumber,
          tracking_provider: carrier.slug,
          tracking_event_status: snap.status,
          tracking_est_delivery_date: snap.estDeliveryDate,
          origin_country: snap.originCountry,
          destination_country: 'US',
          delivery_number: null,
          delivery_provider: null,
          shipping_service: carrier.shippingService,
          last_event_time: snap.lastEventTime,
          events: snap.events,
          destination_events: snap.destinationEvents,
        });
      };
      const parsedFinal = parsePush(body(t0 + 3 * day));
      if (!parsedFinal.ok) throw new Error('the emulator body does not parse');
      const shipment = parsedFinal.shipment;
      const status = statusFromShipment(shipment);
      const deliveredMs = status.lastEventAt?.getTime() ?? t0 + 2 * day;
      add('Tracker', {
        id: trackerId,
        shopId: shop.id,
        trackingNumber,
        provider: carrier.slug,
        orderKey: orderId,
        postalCode: '40003',
        destinationCountry: 'US',
        desired: 'active',
        remote: 'present',
        syncState: 'synced',
        attempts: 0,
        nextAttemptAt: at(2_000),
        version: 3,
        createCalls: 1,
        syncedAt: at(5_000),
        status: status.status,
        statusDetail: status.statusDetail,
        estimatedDelivery: status.estimatedDelivery,
        lastEventAt: status.lastEventAt,
        lastEventMessage: status.lastEventMessage,
        lastEventLocation: status.lastEventLocation,
        events: JSON.stringify(status.events),
        statusCheckedAt: new Date(deliveredMs + 60_000),
        nextPollAt: null,
        pollFailures: 0,
        createdAt: at(2_000),
        updatedAt: new Date(deliveredMs + 60_000),
      });
      add('TrackingLine', {
        id: randomUUID(),
        shopId: shop.id,
        fulfillmentId,
        orderId,
        orderName,
        fulfillmentName: `${orderName}.1`,
        trackingNumber,
        trackingUrl: `https://www.ups.com/track?loc=en_US&tracknum=${trackingNumber}`,
        carrierName: 'UPS',
        carrierKey: 'ups',
        postalCode: '40003',
        destinationCountry: 'US',
        active: true,
        trackerId,
        createdAt: at(2_000),
        updatedAt: at(2_000),
      });
      for (const change of statusChanges(shipment.events)) {
        const queued = new Date(change.happenedAt.getTime() + 60_000);
        add('StoreFulfillmentEvent', {
          id: randomUUID(),
          shopId: shop.id,
          trackerId,
          fulfillmentId,
          status: change.status,
          happenedAt: change.happenedAt,
          message: change.message.slice(0, 500) || null,
          city: change.city,
          province: change.province,
          country: change.country,
          zip: change.zip,
          estimatedDeliveryAt: status.estimatedDelivery
            ? new Date(`${status.estimatedDelivery}T00:00:00Z`)
            : null,
          state: 'sent',
          attempts: 0,
          nextAttemptAt: queued,
          storeEventId: `gid://shopify/FulfillmentEvent/${String(4_000_000_000_000 + i * 10)}`,
          createdAt: queued,
          updatedAt: new Date(queued.getTime() + 2_000),
        });
      }
      for (const e of final.events) {
        // The service's times are to the second: the body as it was by the end of that second.
        const eventMs = Date.parse(`${e.datetime.replace(' ', 'T')}Z`) + 999;
        const text = body(eventMs);
        const parsed = parsePush(text);
        if (!parsed.ok) continue;
        const received = new Date(eventMs + 1_000);
        add('StatusPush', {
          id: randomUUID(),
          shopId: shop.id,
          dedupeKey: parsed.dedupeKey,
          // As before retention: the body kept (the apply pass now empties it; see measureBytesPerFulfillment).
          payload: text,
          receivedAt: received,
          state: 'applied',
          attempts: 0,
          nextAttemptAt: received,
          processedAt: new Date(received.getTime() + 100),
        });
      }
    }
    await flush(false);
  }
  await flush(true);
  return written;
}

/**
 * VACUUM FULL once no dead row is left that another session might still see: on a busy server another
 * database's transaction can hold the horizon back for a moment, and VACUUM FULL then copies the dead rows
 * too. A plain VACUUM first says (n_dead_tup) whether any was left.
 */
async function compact(prisma: DatabaseClient, table: string): Promise<void> {
  for (let attempt = 0; attempt < 60; attempt++) {
    await prisma.$executeRawUnsafe(`VACUUM "${table}"`);
    const [stats] = await prisma.$queryRawUnsafe<{ dead: bigint | null }[]>(
      `SELECT n_dead_tup AS dead FROM pg_stat_user_tables WHERE relname = $1`,
      table,
    );
    if (Number(stats?.dead ?? 0) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await prisma.$executeRawUnsafe(`VACUUM FULL ANALYZE "${table}"`);
}

/** Sizes of every app table after VACUUM FULL (PostgreSQL). */
async function snapshot(prisma: DatabaseClient): Promise<StorageSnapshot> {
  const tables = (
    await prisma.$queryRawUnsafe<{ name: string }[]>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> '_prisma_migrations' ORDER BY tablename`,
    )
  ).map((t) => t.name);
  for (const table of tables) await compact(prisma, table);
  const fulfillments = await prisma.fulfillment.count();
  const result: StorageSnapshot['tables'] = {};
  let bytes = 0;
  for (const table of tables) {
    const [row] = await prisma.$queryRawUnsafe<{ rows: bigint; tbl: bigint; idx: bigint; total: bigint }[]>(
      `SELECT (SELECT COUNT(*) FROM "${table}") AS rows, pg_table_size('"${table}"') AS tbl,
        pg_indexes_size('"${table}"') AS idx, pg_total_relation_size('"${table}"') AS total`,
    );
    const total = Number(row!.total);
    bytes += total;
    const indexSizes = await prisma.$queryRawUnsafe<{ name: string; size: bigint }[]>(
      `SELECT indexrelname AS name, pg_relation_size(indexrelid) AS size FROM pg_stat_user_indexes WHERE relname = $1 ORDER BY 2 DESC`,
      table,
    );
    result[table] = {
      rows: Number(row!.rows),
      table: Number(row!.tbl),
      indexes: Number(row!.idx),
      indexSizes: Object.fromEntries(indexSizes.map((i) => [i.name, Number(i.size)])),
      total,
      perFulfillment: Math.round(total / Math.max(1, fulfillments)),
    };
  }
  return {
    fulfillments,
    bytes,
    bytesPerFulfillment: Math.round(bytes / Math.max(1, fulfillments)),
    tables: result,
  };
}

function printSnapshot(title: string, s: StorageSnapshot, verbose = false): void {
  console.log(
    `${title}: ${s.bytesPerFulfillment} B per fulfilment (${s.fulfillments} fulfilments, ${s.bytes} B)`,
  );
  for (const [name, t] of Object.entries(s.tables)) {
    if (t.total <= 8_192 * 3 && t.rows === 0) continue;
    const perF = (bytes: number) => Math.round(bytes / Math.max(1, s.fulfillments));
    console.log(
      `  ${name.padEnd(22)} ${String(t.perFulfillment).padStart(6)} B/f   rows ${String(t.rows).padStart(7)}   heap+toast ${perF(t.table)} B/f   indexes ${perF(t.indexes)} B/f`,
    );
    if (verbose)
      for (const [index, size] of Object.entries(t.indexSizes))
        console.log(`      ${index.padEnd(56)} ${String(perF(size)).padStart(5)} B/f`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const flag = process.argv.indexOf('--fulfillments');
  const fulfillments = flag > 0 ? Number(process.argv[flag + 1]) : 5_000;
  // POSTGRES_ADMIN_URL's server, the default address's, or an embedded one (tools/db/postgres-server.ts).
  const postgres = await acquireTestPostgres(process.env);
  console.log(postgres.description);
  try {
    const postgresAdminUrl = postgres.adminUrl;
    const report = await measureBytesPerFulfillment({ fulfillments, postgresAdminUrl });
    console.log(`seeded: ${JSON.stringify(report.seeded)}`);
    printSnapshot('nothing deleted', report.nothingDeleted);
    printSnapshot('applied pushes pruned after 7 days (before retention)', report.pushPruneOnly);
    printSnapshot('after retention', report.afterRetention, true);
    console.log(`retention: ${report.retention.passes} passes, ${report.retention.ms} ms`);
    for (const provider of ['sqlite', 'postgresql'] as const) {
      const times = await measureRetentionStatements({ provider, fulfillments, postgresAdminUrl });
      console.log(
        `retention statements (${provider}, batch ${times.settings.batchSize}): ${JSON.stringify(times)}`,
      );
    }
  } finally {
    await postgres.release();
  }
}
