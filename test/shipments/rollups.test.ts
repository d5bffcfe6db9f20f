import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/db/client.js';
import { migrationsDirFor } from '../../src/db/paths.js';
import {
  attentionMigrationSql,
  carrierCountMigrationSql,
  compactRollups,
  rollupDeltasMigrationSql,
  rollupMigrationSql,
} from '../../src/shipments/rollups.js';
import {
  isFinalStatus,
  isTroubleStatus,
  parcelGroupOf,
  syncStateOf,
} from '../../src/shipments/status-table.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createShop } from '../helpers/factories.js';

/**
 * The rollups kept by database triggers (src/shipments/rollups.ts) against a recount from the rows, after
 * random sequences of the writes the app makes: lines and trackers created, statuses and sync states
 * changing, lines ended and re-pointed, trackers and lines deleted.
 */

let db: TestDatabase;
let prisma: DatabaseClient;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = db.prisma;
});
afterAll(async () => {
  await db?.cleanup();
});

describe('the rollup migration', () => {
  it('holds exactly the SQL that src/shipments/rollups.ts generates (the status table and triggers agree)', () => {
    for (const [suffix, generate] of [
      ['_shipment_rollups', rollupMigrationSql],
      ['_rollup_deltas', rollupDeltasMigrationSql],
      ['_tracker_attention', attentionMigrationSql],
      ['_carrier_counts', carrierCountMigrationSql],
    ] as const) {
      for (const provider of ['sqlite', 'postgresql'] as const) {
        const dir = migrationsDirFor(provider);
        const folder = readdirSync(dir).find((name) => name.endsWith(suffix));
        expect(folder, provider).toBeDefined();
        const script = readFileSync(path.join(dir, folder!, 'migration.sql'), 'utf8');
        expect(script.endsWith(`\n${generate(provider)}`), `${provider} ${suffix}`).toBe(true);
      }
    }
  });
});

describe('after every migration', () => {
  it('every rollup and attention trigger exists (a SQLite migration that redefines a table drops its triggers)', async () => {
    const names =
      db.provider === 'postgresql'
        ? (
            await prisma.$queryRawUnsafe<Array<{ name: string }>>(
              `SELECT tgname AS "name" FROM pg_trigger WHERE NOT tgisinternal`,
            )
          ).map((r) => r.name)
        : (
            await prisma.$queryRawUnsafe<Array<{ name: string }>>(
              `SELECT name FROM sqlite_master WHERE type = 'trigger'`,
            )
          ).map((r) => r.name);
    const expected = [
      ...`${rollupDeltasMigrationSql(db.provider)}\n${attentionMigrationSql(db.provider)}\n${carrierCountMigrationSql(db.provider)}`.matchAll(
        /CREATE TRIGGER "([^"]+)"/g,
      ),
    ].map((m) => m[1]!);
    expect(expected.length).toBeGreaterThanOrEqual(6);
    expect(names).toEqual(expect.arrayContaining(expected));
  });
});

const statuses = [
  null,
  'pending',
  'pre_transit',
  'in_transit',
  'delivered',
  'failure',
  'exception',
  'invalid_tracking',
  'cancelled',
];
const details = [null, 'out_for_delivery', 'picked_up', 'failed_attempt'];
const syncStates = ['pending', 'synced', 'failed', 'dead'];
const endings = [null, 'order_cancelled', 'fulfillment_cancelled', 'number_removed'];

type Op =
  | { kind: 'line'; tracker: number | null; day: number }
  | { kind: 'status'; tracker: number; status: number; detail: number; transit: number | null }
  | { kind: 'sync'; tracker: number; syncState: number; desired: boolean; remote: boolean }
  | { kind: 'end'; line: number; ending: number; active: boolean }
  | { kind: 'repoint'; line: number; tracker: number | null }
  | { kind: 'deleteLine'; line: number }
  | { kind: 'deleteTracker'; tracker: number }
  | { kind: 'compact'; batch: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('line' as const),
    tracker: fc.option(fc.nat(5), { nil: null }),
    day: fc.nat(3),
  }),
  fc.record({
    kind: fc.constant('status' as const),
    tracker: fc.nat(5),
    status: fc.nat(statuses.length - 1),
    detail: fc.nat(details.length - 1),
    transit: fc.option(fc.nat(500_000), { nil: null }),
  }),
  fc.record({
    kind: fc.constant('sync' as const),
    tracker: fc.nat(5),
    syncState: fc.nat(syncStates.length - 1),
    desired: fc.boolean(),
    remote: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('end' as const), line: fc.nat(9), ending: fc.nat(3), active: fc.boolean() }),
  fc.record({
    kind: fc.constant('repoint' as const),
    line: fc.nat(9),
    tracker: fc.option(fc.nat(5), { nil: null }),
  }),
  fc.record({ kind: fc.constant('deleteLine' as const), line: fc.nat(9) }),
  fc.record({ kind: fc.constant('deleteTracker' as const), tracker: fc.nat(5) }),
  fc.record({ kind: fc.constant('compact' as const), batch: fc.integer({ min: 1, max: 50 }) }),
);

const key = (...parts: Array<string | number>) => parts.join('|');

async function recount(shopId: string) {
  const lines = await prisma.trackingLine.findMany({ where: { shopId }, include: { tracker: true } });
  const expected = new Map<string, number>();
  for (const line of lines) {
    const group = line.tracker
      ? parcelGroupOf(line.tracker.status, line.tracker.statusDetail)
      : 'not_scanned';
    const sync = syncStateOf(line.tracker, line.endedReason);
    // The columns the list filters on follow the tracker too.
    expect([line.parcelGroup, line.syncState]).toEqual([group, sync]);
    if (!line.active && !line.trackerId) continue;
    const k = key(line.createdAt.toISOString().slice(0, 10), group, sync);
    expected.set(k, (expected.get(k) ?? 0) + 1);
  }
  const actual = new Map<string, number>();
  const add = (k: string, n: number) => actual.set(k, (actual.get(k) ?? 0) + n);
  for (const r of await prisma.shipmentCount.findMany({ where: { shopId } }))
    add(key(r.day, r.parcelGroup, r.syncState), r.count);
  for (const r of await prisma.shipmentCountDelta.findMany({ where: { shopId } }))
    add(key(r.day, r.parcelGroup, r.syncState), r.delta);
  expect(new Map([...actual].filter(([, n]) => n !== 0))).toEqual(expected);

  // Carriers seen: lines and waiting lines per carrier key and spelling.
  const carriers = new Map<string, number>();
  const addCarrier = (k: string, n: number) => carriers.set(k, (carriers.get(k) ?? 0) + n);
  for (const line of lines) {
    if (line.carrierKey === null || line.carrierName === null) continue;
    addCarrier(`${line.carrierKey} ${line.carrierName} lines`, 1);
    if (line.active && !line.trackerId) addCarrier(`${line.carrierKey} ${line.carrierName} waiting`, 1);
  }
  const counted = new Map<string, number>();
  const addCounted = (k: string, n: number) => counted.set(k, (counted.get(k) ?? 0) + n);
  for (const r of [
    ...(await prisma.carrierCount.findMany({ where: { shopId } })),
    ...(await prisma.carrierCountDelta.findMany({ where: { shopId } })),
  ]) {
    addCounted(`${r.carrierKey} ${r.carrierName} lines`, r.lines);
    addCounted(`${r.carrierKey} ${r.carrierName} waiting`, r.waiting);
  }
  expect(new Map([...counted].filter(([, n]) => n !== 0))).toEqual(carriers);
}

/** Tracker.attention and quietSince follow the status table's rules. */
async function recheckAttention(shopId: string) {
  for (const t of await prisma.tracker.findMany({ where: { shopId } })) {
    const expected =
      t.desired !== 'active'
        ? null
        : isTroubleStatus(t.status, t.statusDetail)
          ? 'trouble'
          : t.remote === 'present' && !isFinalStatus(t.status)
            ? 'watch'
            : null;
    expect(t.attention, `${t.status} ${t.statusDetail} ${t.desired} ${t.remote}`).toBe(expected);
    expect(t.quietSince).toEqual(t.lastEventAt ?? t.syncedAt ?? t.createdAt);
  }
}

async function recountDeliveries(shopId: string, deleted: Map<string, number>) {
  const trackers = await prisma.tracker.findMany({ where: { shopId, desired: 'active' } });
  const expected = new Map(deleted);
  for (const t of trackers) {
    const tenths = t.transitSeconds === null ? -1 : Math.round(t.transitSeconds / 8640);
    const k = key(
      t.createdAt.toISOString().slice(0, 10),
      t.provider,
      parcelGroupOf(t.status, t.statusDetail),
      tenths,
    );
    expected.set(k, (expected.get(k) ?? 0) + 1);
  }
  const actual = new Map<string, number>();
  const add = (k: string, n: number) => actual.set(k, (actual.get(k) ?? 0) + n);
  for (const r of await prisma.deliveryCount.findMany({ where: { shopId } }))
    add(key(r.day, r.provider, r.parcelGroup, r.transitTenths), r.shipments);
  for (const r of await prisma.deliveryCountDelta.findMany({ where: { shopId } }))
    add(key(r.day, r.provider, r.parcelGroup, r.transitTenths), r.shipments);
  expect(new Map([...actual].filter(([, n]) => n !== 0))).toEqual(
    new Map([...expected].filter(([, n]) => n !== 0)),
  );
}

describe('rollups kept by triggers', () => {
  it('equal a recount from the rows after any sequence of writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
        const shop = await createShop(prisma);
        const trackers: string[] = [];
        for (let i = 0; i < 6; i += 1) {
          const t = await prisma.tracker.create({
            data: {
              shopId: shop.id,
              trackingNumber: `T${i}`,
              provider: i % 2 ? 'ups' : 'dhl',
              orderKey: String(i),
              createdAt: new Date(Date.UTC(2026, 10, 20 + (i % 3), 23, 59)),
            },
          });
          trackers.push(t.id);
        }
        const lines: string[] = [];
        /** Analytics keep what retention deleted: trackers deleted while wanted stay counted. */
        const deletedTrackers = new Map<string, number>();
        for (const o of ops) {
          const liveTracker = async (i: number) =>
            (await prisma.tracker.findUnique({ where: { id: trackers[i]! } })) ? trackers[i]! : null;
          switch (o.kind) {
            case 'line': {
              const trackerId = o.tracker === null ? null : await liveTracker(o.tracker);
              const line = await prisma.trackingLine.create({
                data: {
                  shopId: shop.id,
                  fulfillmentId: `f${lines.length}`,
                  orderId: 'o1',
                  trackingNumber: `N${lines.length}`,
                  trackerId,
                  createdAt: new Date(Date.UTC(2026, 10, 20 + o.day, 0, 0, 0, 1)),
                  // Two spellings of one carrier, another carrier, or none.
                  ...[
                    { carrierName: 'DHL', carrierKey: 'dhl' },
                    { carrierName: 'dhl', carrierKey: 'dhl' },
                    { carrierName: 'UPS', carrierKey: 'ups' },
                    {},
                  ][o.day % 4],
                },
              });
              lines.push(line.id);
              break;
            }
            case 'status':
              await prisma.tracker.updateMany({
                where: { id: trackers[o.tracker]! },
                data: {
                  status: statuses[o.status]!,
                  statusDetail: details[o.detail]!,
                  transitSeconds: o.transit,
                  hadException: o.status === 6,
                  lastEventAt: o.transit === null ? null : new Date(Date.UTC(2026, 10, 22, 0, 0, o.transit)),
                },
              });
              break;
            case 'sync':
              await prisma.tracker.updateMany({
                where: { id: trackers[o.tracker]! },
                data: {
                  syncState: syncStates[o.syncState]!,
                  desired: o.desired ? 'active' : 'removed',
                  remote: o.remote ? 'present' : 'absent',
                  syncedAt: o.remote ? new Date(Date.UTC(2026, 10, 21)) : null,
                },
              });
              break;
            case 'end':
              if (lines[o.line])
                await prisma.trackingLine.updateMany({
                  where: { id: lines[o.line]! },
                  data: { endedReason: endings[o.ending]!, active: o.active },
                });
              break;
            case 'repoint':
              if (lines[o.line]) {
                const trackerId = o.tracker === null ? null : await liveTracker(o.tracker);
                await prisma.trackingLine.updateMany({ where: { id: lines[o.line]! }, data: { trackerId } });
              }
              break;
            case 'deleteLine':
              if (lines[o.line]) await prisma.trackingLine.deleteMany({ where: { id: lines[o.line]! } });
              break;
            case 'compact':
              // The worker folds deltas in at any moment (a part of them, other shops' too).
              await compactRollups(prisma, o.batch);
              break;
            case 'deleteTracker': {
              const t = await prisma.tracker.findUnique({ where: { id: trackers[o.tracker]! } });
              if (t?.desired === 'active') {
                const tenths = t.transitSeconds === null ? -1 : Math.round(t.transitSeconds / 8640);
                const k = key(
                  t.createdAt.toISOString().slice(0, 10),
                  t.provider,
                  parcelGroupOf(t.status, t.statusDetail),
                  tenths,
                );
                deletedTrackers.set(k, (deletedTrackers.get(k) ?? 0) + 1);
              }
              await prisma.tracker.deleteMany({ where: { id: trackers[o.tracker]! } });
              break;
            }
          }
        }
        await recount(shop.id);
        await recountDeliveries(shop.id, deletedTrackers);
        await recheckAttention(shop.id);
        // Folded in whole, the rollups alone hold the same counts.
        while ((await compactRollups(prisma, 1000)) > 0);
        expect(await prisma.shipmentCountDelta.count({ where: { shopId: shop.id } })).toBe(0);
        await recount(shop.id);
        await recountDeliveries(shop.id, deletedTrackers);
      }),
      { numRuns: 25 },
    );
  });
});
