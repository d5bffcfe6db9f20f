import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database, type DatabaseClient } from '../../src/db/client.js';
import { createMigration } from '../../tools/db/create-migration.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { migrationsDirFor } from '../../src/db/paths.js';
import { compactRollups } from '../../src/shipments/queries/rollup-folds.js';
import { carrierTriggersSql, classAndRollupTriggersSql } from '../../src/shipments/rollups.js';
import {
  statusClassChanges,
  statusClassOf,
  statusClassRows,
  type StatusClassRow,
  storedStatusClassRows,
} from '../../src/shipments/status-classes.js';
import {
  finalStatuses,
  groupByDetail,
  isFinalStatus,
  isTroubleStatus,
  movingStatuses,
  parcelGroupOf,
  parcelGroupStatuses,
  syncStateOf,
  syncStates as lineSyncStates,
} from '../../src/shipments/status-table.js';
import {
  createEmptyTestDatabase,
  createTestDatabase,
  type TestDatabase,
  testPostgresAdminUrl,
} from '../helpers/database.js';
import { endedRows } from '../../src/shipments/parcel-model.js';
import { createShop } from '../helpers/factories.js';

/**
 * The rollups kept by database triggers (src/shipments/rollups.ts) against a recount from the rows, after
 * random sequences of the writes the app makes: lines and trackers created, statuses and sync states
 * changing, lines ended and re-pointed, trackers and lines deleted. The triggers are the live ones of the
 * newest migration; the classification they read is the StatusClass table (src/shipments/status-classes.ts).
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

/** Every code and detail the status table names, with no status, and a code in no list. */
const tableCodes = [
  ...new Set([...Object.values(parcelGroupStatuses).flat(), ...finalStatuses, ...movingStatuses]),
];

/** The live triggers' SQL text, by name. */
async function liveTriggers(): Promise<Map<string, string>> {
  const rows =
    db.provider === 'postgresql'
      ? await prisma.$queryRawUnsafe<Array<{ name: string; sql: string }>>(
          `SELECT t.tgname AS "name", pg_get_triggerdef(t.oid) || ' ' || p.prosrc AS "sql"
           FROM pg_trigger AS t JOIN pg_proc AS p ON p.oid = t.tgfoid WHERE NOT t.tgisinternal`,
        )
      : await prisma.$queryRawUnsafe<Array<{ name: string; sql: string }>>(
          `SELECT name, sql FROM sqlite_master WHERE type = 'trigger'`,
        );
  return new Map(rows.map((r) => [r.name, r.sql]));
}

describe('the newest migration', () => {
  it('holds the status table as StatusClass rows (else: npm run db:migration:create -- <name>)', async () => {
    expect(await storedStatusClassRows(prisma)).toEqual(statusClassRows());
  });

  it('classifies every status and detail as the status table does', () => {
    const rows = statusClassRows();
    const details = [null, '', 'picked_up', ...Object.keys(groupByDetail)];
    for (const status of [null, '', 'no_such_code', ...tableCodes]) {
      for (const detail of details) {
        const cls = statusClassOf(rows, status, detail);
        expect(cls.parcelGroup, `${status} ${detail}`).toBe(parcelGroupOf(status, detail));
        expect(cls.trouble, `${status} ${detail}`).toBe(isTroubleStatus(status, detail));
        expect(cls.final, `${status} ${detail}`).toBe(isFinalStatus(status));
      }
    }
  });

  it('has every rollup, class and carrier trigger (a SQLite migration that redefines a table drops its triggers)', async () => {
    const names = [...(await liveTriggers()).keys()];
    const expected = [
      ...`${classAndRollupTriggersSql(db.provider)}\n${carrierTriggersSql(db.provider)}`.matchAll(
        /CREATE TRIGGER "([^"]+)"/g,
      ),
    ].map((m) => m[1]!);
    expect(expected.length).toBeGreaterThanOrEqual(9);
    expect(names).toEqual(expect.arrayContaining(expected));
  });

  it('has triggers that hold no status code: they read StatusClass', async () => {
    const triggers = await liveTriggers();
    // Words of the trackers' and lines' sync states, some of which are spelt like a status code.
    const syncWords = new Set<string>([
      ...lineSyncStates,
      ...['pending', 'synced', 'failed', 'dead', 'active', 'removed', 'present', 'absent'],
    ]);
    const codes = new Set([...tableCodes, ...Object.keys(groupByDetail)].filter((c) => !syncWords.has(c)));
    let reading = 0;
    for (const [name, sql] of triggers) {
      const literals = [...sql.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1]!);
      expect(
        literals.filter((l) => codes.has(l)),
        name,
      ).toEqual([]);
      if (sql.includes('"StatusClass"')) reading += 1;
    }
    expect(triggers.size).toBeGreaterThan(0);
    expect(reading).toBeGreaterThanOrEqual(2);
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

async function recount(shopId: string, classes: readonly StatusClassRow[] = statusClassRows()) {
  const lines = await prisma.trackingLine.findMany({ where: { shopId }, include: { tracker: true } });
  const expected = new Map<string, number>();
  for (const line of lines) {
    // A line ended in the store is filed under its ended row's group (the parcel model), else its tracker's.
    const group =
      endedRows[line.endedReason as keyof typeof endedRows]?.group ??
      statusClassOf(classes, line.tracker?.status ?? null, line.tracker?.statusDetail ?? null).parcelGroup;
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

/** Tracker.parcelGroup follows the status table's rules. */
async function recheckGroups(shopId: string, classes: readonly StatusClassRow[] = statusClassRows()) {
  for (const t of await prisma.tracker.findMany({ where: { shopId } })) {
    expect(t.parcelGroup, `${t.status} ${t.statusDetail}`).toBe(
      statusClassOf(classes, t.status, t.statusDetail).parcelGroup,
    );
  }
}

async function recountDeliveries(
  shopId: string,
  deleted: Map<string, number>,
  classes: readonly StatusClassRow[] = statusClassRows(),
) {
  const trackers = await prisma.tracker.findMany({ where: { shopId, desired: 'active' } });
  const expected = new Map(deleted);
  for (const t of trackers) {
    const tenths = t.transitSeconds === null ? -1 : Math.round(t.transitSeconds / 8640);
    const k = key(
      t.createdAt.toISOString().slice(0, 10),
      t.provider,
      statusClassOf(classes, t.status, t.statusDetail).parcelGroup,
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
        await recheckGroups(shop.id);
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

describe('the recipe "Add or regroup a status code" (docs/development.md)', () => {
  it('on a scratch copy with rows: the generated forward migration moves the stored classes and their counts', async () => {
    // A scratch database at the newest migration (the helpers below read `prisma`: pointed at it here).
    const scratch = await createEmptyTestDatabase(db.provider);
    const migrations = await mkdtemp(path.join(os.tmpdir(), 'tracksync_recipe_'));
    const shared = prisma;
    let database: Database | null = null;
    try {
      await applyMigrations(scratch.url);
      database = await createDatabase(scratch.url);
      prisma = database.prisma;
      // Rows written through the client select only the columns that history has (later migrations add more).
      const shop = await prisma.shop.create({
        data: { domain: 'before-status-classes.myshopify.com' },
        select: { id: true },
      });
      const parcels: Array<[string | null, string | null]> = [
        [null, null],
        ['delayed', null],
        ['held_at_customs', null],
        ['label_created', null],
        ['delivered', null],
        ['in_transit', 'out_for_delivery'],
        ['exception', null],
      ];
      for (const [i, [status, statusDetail]] of parcels.entries()) {
        const tracker = await prisma.tracker.create({
          data: {
            shopId: shop.id,
            trackingNumber: `R${i}`,
            provider: i % 2 ? 'ups' : 'dhl',
            orderKey: String(i),
            remote: 'present',
            syncState: 'synced',
            status,
            statusDetail,
            createdAt: new Date(Date.UTC(2026, 10, 20 + (i % 3))),
          },
        });
        for (const n of [0, 1].slice(0, 1 + (i % 2)))
          await prisma.trackingLine.create({
            data: {
              shopId: shop.id,
              fulfillmentId: `f${i}`,
              orderId: `o${i}`,
              trackingNumber: `R${i}-${n}`,
              trackerId: tracker.id,
            },
          });
      }
      // A line waiting for its carrier, and part of the deltas already folded in.
      await prisma.trackingLine.create({
        data: { shopId: shop.id, fulfillmentId: 'f-wait', orderId: 'o-wait', trackingNumber: 'W1' },
      });
      await compactRollups(prisma, 7);
      await recount(shop.id);
      await recountDeliveries(shop.id, new Map());
      await recheckGroups(shop.id);

      // 1. The edit to src/shipments/status-table.ts (here its rows): `delayed` is no longer trouble but in
      //    transit, the new `held_at_customs` an exception, `label_created` not scanned yet.
      const regrouped: StatusClassRow[] = statusClassRows().map((r) =>
        r.code === 'delayed'
          ? { ...r, parcelGroup: 'in_transit', trouble: false }
          : r.code === 'label_created'
            ? { ...r, parcelGroup: 'not_scanned' }
            : r,
      );
      regrouped.push({
        code: 'held_at_customs',
        detail: '',
        parcelGroup: 'exception',
        final: false,
        trouble: true,
      });
      expect(statusClassOf(regrouped, 'held_at_customs', null)).not.toEqual(
        statusClassOf(statusClassRows(), 'held_at_customs', null),
      );

      // 2. `npm run db:migration:create -- <name>` on a copy of the history: no schema change, the
      //    status-class migration only, re-classifying the trackers of the three codes and no other.
      await cp(migrationsDirFor(db.provider), migrations, { recursive: true });
      const created = await createMigration('regroup statuses', db.provider, {
        migrationsDir: migrations,
        postgresAdminUrl: testPostgresAdminUrl(),
        generated: statusClassChanges(regrouped),
      });
      expect(created.status).toBe('created');
      if (created.status !== 'created') return;
      expect(created.script.startsWith('-- Status classes')).toBe(true);
      expect(created.script).toContain(`t."status" IN ('delayed', 'held_at_customs', 'label_created')`);
      // No change to a status in no list ('*'): no look at the trackers of unknown codes.
      expect(created.script).not.toContain('NOT EXISTS');
      if (db.provider === 'sqlite') {
        // Shop by shop on the (shopId, status) index: it costs the trackers that change, not the table
        // (PostgreSQL plans the same nested loop once the table is not tiny).
        const update = /^UPDATE "Tracker" SET [^\n]*\nWHERE "id" IN [^\n]*;$/m.exec(created.script)![0];
        const plan = await prisma.$queryRawUnsafe<Array<{ detail: string }>>(
          `EXPLAIN QUERY PLAN ${update.slice(0, -1)}`,
        );
        const steps = plan.map((r) => r.detail);
        expect(steps).toContain('SEARCH t USING INDEX Tracker_shopId_status_idx (shopId=? AND status=?)');
        expect(steps.filter((d) => /^SCAN (t|Tracker)\b/.test(d))).toEqual([]);
      }

      // 3. `npm run db:migrate` (the app's connections closed, as at a deploy): the forward migration
      //    applies over the rows.
      await database.close();
      expect((await applyMigrations(scratch.url, { migrationsDir: migrations })).applied).toEqual([
        created.name,
      ]);
      database = await createDatabase(scratch.url);
      prisma = database.prisma;
      expect(await storedStatusClassRows(prisma)).toEqual(
        [...regrouped].sort((a, b) =>
          `${a.code}\u0000${a.detail}`.localeCompare(`${b.code}\u0000${b.detail}`),
        ),
      );

      // The rows, the lines' and trackers' stored groups and both rollups follow.
      await recount(shop.id, regrouped);
      await recountDeliveries(shop.id, new Map(), regrouped);
      await recheckGroups(shop.id, regrouped);
      while ((await compactRollups(prisma, 1000)) > 0);
      await recount(shop.id, regrouped);
      await recountDeliveries(shop.id, new Map(), regrouped);
      // And the triggers classify the next writes by the new rows.
      const [labelled] = await prisma.tracker.findMany({
        where: { shopId: shop.id, status: 'label_created' },
      });
      await prisma.tracker.updateMany({ where: { id: labelled!.id }, data: { status: 'held_at_customs' } });
      await recount(shop.id, regrouped);
      await recountDeliveries(shop.id, new Map(), regrouped);
      await recheckGroups(shop.id, regrouped);
      expect((await prisma.tracker.findUnique({ where: { id: labelled!.id } }))?.parcelGroup).toBe(
        regrouped.find((r) => r.code === 'held_at_customs')!.parcelGroup,
      );
    } finally {
      prisma = shared;
      await database?.close();
      await scratch.cleanup();
      await rm(migrations, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('the status_classes migration', () => {
  it('over rows written by the triggers before it: stored groups and counts carry on', async () => {
    const scratch = await createEmptyTestDatabase(db.provider);
    const before = await mkdtemp(path.join(os.tmpdir(), 'tracksync_before_'));
    const shared = prisma;
    let database: Database | null = null;
    try {
      // The history up to the migration that added StatusClass.
      const dir = migrationsDirFor(db.provider);
      const folders = (await readdir(dir)).filter((n) => /^\d{14}_/.test(n)).sort();
      const at = folders.findIndex((n) => n.endsWith('_status_classes'));
      expect(at).toBeGreaterThan(0);
      await cp(path.join(dir, 'migration_lock.toml'), path.join(before, 'migration_lock.toml'));
      for (const folder of folders.slice(0, at))
        await cp(path.join(dir, folder), path.join(before, folder), { recursive: true });
      await applyMigrations(scratch.url, { migrationsDir: before });
      database = await createDatabase(scratch.url);
      prisma = database.prisma;
      // Rows written through the client select only the columns that history has (later migrations add more).
      const shop = await prisma.shop.create({
        data: { domain: 'before-status-classes.myshopify.com' },
        select: { id: true },
      });
      const parcels: Array<[string | null, string | null]> = [
        [null, null],
        ['delivered', null],
        ['transit', 'failed_attempt'],
        ['invalid_carrier', null],
        ['something_new', null],
        // A cancelled fulfilment's line: filed under the tracker's group before, under "ended" after.
        ['label_created', null],
      ];
      for (const [i, [status, statusDetail]] of parcels.entries()) {
        const tracker = await prisma.$queryRawUnsafe<Array<{ id: string }>>(
          `INSERT INTO "Tracker" ("id", "shopId", "trackingNumber", "provider", "orderKey", "remote", "status", "statusDetail", "updatedAt")
           VALUES ('t${i}', '${shop.id}', 'B${i}', 'dhl', '${i}', 'present', ${status === null ? 'NULL' : `'${status}'`}, ${statusDetail === null ? 'NULL' : `'${statusDetail}'`}, CURRENT_TIMESTAMP) RETURNING "id"`,
        );
        await prisma.trackingLine.create({
          data: {
            shopId: shop.id,
            fulfillmentId: `f${i}`,
            orderId: 'o',
            trackingNumber: `B${i}`,
            trackerId: tracker[0]!.id,
            ...(status === 'label_created' ? { active: false, endedReason: 'fulfillment_cancelled' } : {}),
          },
          select: { id: true },
        });
      }
      await compactRollups(prisma, 3);
      await database.close();

      // The newest history: the migration applies over the rows.
      const applied = (await applyMigrations(scratch.url)).applied;
      expect(applied[0]).toBe(folders[at]);
      database = await createDatabase(scratch.url);
      prisma = database.prisma;
      await recount(shop.id);
      await recountDeliveries(shop.id, new Map());
      await recheckGroups(shop.id);
      await prisma.tracker.updateMany({ where: { id: 't1' }, data: { status: 'exception' } });
      await prisma.tracker.deleteMany({ where: { id: 't2' } });
      const deleted = new Map([[key(new Date().toISOString().slice(0, 10), 'dhl', 'failed_attempt', -1), 1]]);
      await recount(shop.id);
      await recountDeliveries(shop.id, deleted);
      await recheckGroups(shop.id);
    } finally {
      prisma = shared;
      await database?.close();
      await scratch.cleanup();
      await rm(before, { recursive: true, force: true });
    }
  }, 120_000);
});
