import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tx } from '../../src/db/client.js';
import {
  claimByShopStatements,
  claimDue,
  type QueueDescription,
  queueDepth,
  queueDepthStatement,
  type SqlStatement,
} from '../../src/db/lease-queue.js';
import { statusPollQueue, trackerQueue } from '../../src/db/queues.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * What a claim reads on a large backlog (PostgreSQL, the database of many shops): the plans of the per-shop
 * claim's statements, with EXPLAIN ANALYZE on seeded data. A claim must go through the indexes and read a
 * bounded number of rows, a few times its batch, however many rows are due or wait in paused shops. Plans
 * only, no timing: a time asserted on a shared test machine measures its load (`npm run bench` times claims).
 */

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** Rows a plan's scans read from a table: returned and filtered out, over every loop. */
function rowsRead(plan: PlanNode, table: string): number {
  return nodes(plan)
    .filter((node) => node['Relation Name'] === table && node['Node Type'].endsWith('Scan'))
    .reduce(
      (sum, node) =>
        sum +
        (node['Actual Rows'] +
          (node['Rows Removed by Filter'] ?? 0) +
          (node['Rows Removed by Index Recheck'] ?? 0)) *
          node['Actual Loops'],
      0,
    );
}

/** Tables a plan reads whole (the small ones, DueShop and Shop, may be: the planner's choice on a small table). */
const seqScans = (plan: PlanNode) =>
  nodes(plan)
    .filter((node) => node['Node Type'] === 'Seq Scan')
    .map((node) => node['Relation Name']);
const trackerSeqScans = (plan: PlanNode) => seqScans(plan).filter((table) => table === 'Tracker');

async function explain(tx: Tx, statement: SqlStatement): Promise<PlanNode> {
  const rows = await tx.$queryRawUnsafe<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`,
    ...statement.params,
  );
  return rows[0]!['QUERY PLAN'][0].Plan;
}

/**
 * The plan PostgreSQL may switch a named prepared statement to after its fifth run (the hot paths run the claims
 * as named statements: src/db/pg-named-statements.ts): the generic plan, made without the parameters' values.
 * Forced here, run with EXPLAIN ANALYZE through PREPARE … EXECUTE.
 */
let prepared = 0;
async function explainGeneric(tx: Tx, statement: SqlStatement): Promise<PlanNode> {
  const name = `generic_${++prepared}`;
  await tx.$executeRawUnsafe(`SET LOCAL plan_cache_mode = force_generic_plan`);
  await tx.$executeRawUnsafe(`PREPARE ${name} AS ${statement.sql}`);
  // EXECUTE takes its arguments as literals (a bind parameter there is not one of the statement's).
  const literal = (value: unknown): string =>
    Array.isArray(value)
      ? `'{${value.map((v) => `"${String(v).replaceAll('"', '\\"')}"`).join(',')}}'`
      : typeof value === 'number'
        ? String(value)
        : `'${String(value).replaceAll("'", "''")}'`;
  const rows = await tx.$queryRawUnsafe<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(
    `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${name}(${statement.params.map(literal).join(', ')})`,
  );
  await tx.$executeRawUnsafe(`DEALLOCATE ${name}`);
  await tx.$executeRawUnsafe(`SET LOCAL plan_cache_mode = auto`);
  return rows[0]!['QUERY PLAN'][0].Plan;
}

/** Rolls back whatever `fn` wrote (EXPLAIN ANALYZE runs the statements). */
class Rollback extends Error {}

describe.skipIf(process.env.TEST_DATABASE_PROVIDER !== 'postgresql')(
  'claim plans on a seeded backlog',
  () => {
    let db: TestDatabase;
    const now = new Date();
    const shops = 1_000;
    const paused = 50;
    const small = shops - 1 - paused;
    const bigDue = 15_000;
    const pausedPending = 300;

    beforeAll(async () => {
      db = await createTestDatabase('postgresql');
      const at = `'${now.toISOString()}'::timestamp`;
      const shopId = (i: string) => `md5('plans-shop-' || ${i})`;
      const run = (sql: string) => db.prisma.$executeRawUnsafe(sql);
      await run(`INSERT INTO "Shop" ("id", "domain", "updatedAt", "pausedAt", "pausedReason", "probeAt")
      SELECT ${shopId('i')}, 'plans-' || i || '.myshopify.com', ${at},
        CASE WHEN i > ${small} THEN ${at} END, CASE WHEN i > ${small} THEN 'balance_exhausted' END,
        CASE WHEN i > ${small} THEN ${at} + interval '10 minutes' END
      FROM generate_series(0, ${shops - 1}) AS i`);
      const tracker = `INSERT INTO "Tracker" ("id", "shopId", "trackingNumber", "provider", "orderKey", "desired", "remote", "syncState", "nextAttemptAt", "nextPollAt", "updatedAt")`;
      // A big shop whose 15 000 oldest reads are two days late, after an outage.
      await run(`${tracker} SELECT md5('plans-big-' || k), ${shopId('0')}, 'B' || k, 'ups', 'o', 'active', 'present', 'synced', ${at},
      CASE WHEN k < ${bigDue} THEN ${at} - interval '2 days' + k * interval '1 second' ELSE ${at} + k * interval '1 second' END, ${at}
      FROM generate_series(0, ${2 * bigDue - 1}) AS k`);
      // Small shops: 15 trackers each, 5 of them due (in the last day).
      await run(`${tracker} SELECT md5('plans-small-' || j || '-' || k), ${shopId('j')}, 'S' || j || '-' || k, 'ups', 'o', 'active', 'present', 'synced', ${at},
      ${at} + ((k - 5) * 4000 + j) * interval '1 second', ${at}
      FROM generate_series(1, ${small}) AS j, generate_series(0, 14) AS k`);
      // Paused shops: trackers waiting for a sync since yesterday; and a few new ones in running shops.
      await run(`${tracker} SELECT md5('plans-paused-' || j || '-' || k), ${shopId('j')}, 'P' || j || '-' || k, 'ups', 'o', 'active', 'absent', 'pending',
      ${at} - interval '1 day' + k * interval '1 second', NULL, ${at}
      FROM generate_series(${small + 1}, ${shops - 1}) AS j, generate_series(0, ${pausedPending - 1}) AS k`);
      await run(`${tracker} SELECT md5('plans-new-' || j), ${shopId('j')}, 'N' || j, 'ups', 'o', 'active', 'absent', 'pending',
      ${at} - interval '1 minute', NULL, ${at}
      FROM generate_series(1, 100) AS j`);
      await run('ANALYZE');
    }, 120_000);
    afterAll(async () => {
      await db?.cleanup();
    });

    /** The plans of one claim's three statements (rolled back), and the rows it leased. */
    async function claimPlans(
      queue: QueueDescription,
      limit: number,
      perGroupMax?: number,
      plan: (tx: Tx, statement: SqlStatement) => Promise<PlanNode> = explain,
    ) {
      const request = {
        token: 'plans',
        now,
        leaseMs: 15_000,
        limit,
        ...(perGroupMax ? { perGroupMax } : {}),
      };
      let result: { list: PlanNode; lease: PlanNode; replace: PlanNode; leased: number } | null = null;
      await db.prisma
        .$transaction(
          async (tx) => {
            const list = claimByShopStatements.dueShops('postgresql', queue, now, limit);
            const listPlan = await plan(tx, list);
            const listed = await tx.$queryRawUnsafe<{ shopId: string; eligible: bigint }[]>(
              list.sql,
              ...list.params,
            );
            const eligible = listed.filter((row) => Number(row.eligible) > 0).map((row) => row.shopId);
            // As the claim runs it (see indexOrdered in src/db/lease-queue.ts).
            await tx.$executeRawUnsafe('SET LOCAL enable_bitmapscan = off');
            const lease = await plan(tx, claimByShopStatements.lease('postgresql', queue, eligible, request));
            // Every shop listed, the most a claim replaces.
            const replace = await plan(
              tx,
              claimByShopStatements.replaceDueShops(
                'postgresql',
                queue,
                listed.map((row) => row.shopId),
                now,
              ),
            );
            result = { list: listPlan, lease, replace, leased: lease['Actual Rows'] };
            throw new Rollback();
          },
          { timeout: 60_000 },
        )
        .catch((error: unknown) => {
          if (!(error instanceof Rollback)) throw error;
        });
      return result!;
    }

    it('status reads: 64 rows of the shops due first, through the indexes, a few rows read per row taken', async () => {
      const due = await queueDepth(db.prisma, statusPollQueue, now, 1_000_000);
      expect(due.due).toBeGreaterThan(bigDue); // ~20 000 due, three quarters in one shop
      const plans = await claimPlans(statusPollQueue, 64, 10);
      expect(plans.leased).toBe(64);
      for (const plan of [plans.list, plans.lease, plans.replace]) expect(trackerSeqScans(plan)).toEqual([]);
      expect(rowsRead(plans.lease, 'Tracker')).toBeLessThanOrEqual(3 * 64);
      expect(rowsRead(plans.list, 'DueShop')).toBeLessThanOrEqual(2 * (64 + 32));
      expect(rowsRead(plans.replace, 'Tracker')).toBeLessThanOrEqual(4 * (64 + 32));
    });

    it('the same with the generic plans a named prepared statement may switch to: still bounded', async () => {
      const plans = await claimPlans(statusPollQueue, 64, 10, explainGeneric);
      // Generic indeed: the conditions name the parameters, not their values.
      for (const plan of [plans.list, plans.lease, plans.replace])
        expect(JSON.stringify(plan)).toMatch(/\$\d/);
      expect(plans.leased).toBe(64);
      for (const plan of [plans.list, plans.lease, plans.replace]) expect(trackerSeqScans(plan)).toEqual([]);
      expect(rowsRead(plans.lease, 'Tracker')).toBeLessThanOrEqual(3 * 64);
      expect(rowsRead(plans.list, 'DueShop')).toBeLessThanOrEqual(2 * (64 + 32));
      expect(rowsRead(plans.replace, 'Tracker')).toBeLessThanOrEqual(4 * (64 + 32));
    });

    it('tracker syncs: the paused shops’ backlog is read once, then not until their probe', async () => {
      const first = await claimDue(db.prisma, trackerQueue, {
        token: 'first',
        now,
        leaseMs: 15_000,
        limit: 32,
      });
      expect(first.length).toBeGreaterThan(0);
      const plans = await claimPlans(trackerQueue, 32);
      expect(plans.leased).toBe(32);
      for (const plan of [plans.list, plans.lease, plans.replace]) expect(trackerSeqScans(plan)).toEqual([]);
      // 15 000 rows wait in paused shops: none is read.
      expect(rowsRead(plans.lease, 'Tracker')).toBeLessThanOrEqual(3 * 32);
      expect(rowsRead(plans.replace, 'Tracker')).toBeLessThanOrEqual(4 * (32 + 32));
    });

    /** The plan of a depth count for /metrics, as queueDepth runs it (bitmap scans off: see indexOrdered). */
    async function depthPlan(queue: QueueDescription, cap: number): Promise<PlanNode> {
      return db.prisma.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('SET LOCAL enable_bitmapscan = off');
        return explain(tx, queueDepthStatement('postgresql', queue, now, cap));
      });
    }

    it('a depth count for /metrics stops at its cap: through the indexes, its cap of rows read, none of the paused shops’', async () => {
      const ids = await claimDue(db.prisma, statusPollQueue, {
        token: 'claimed',
        now,
        leaseMs: 15_000,
        limit: 64,
        perGroupMax: 10,
      });
      expect(ids).toHaveLength(64);
      expect(await queueDepth(db.prisma, statusPollQueue, now, 500)).toMatchObject({ due: 500 });
      // The new trackers of running shops not leased yet; none of the 15 000 in paused shops.
      expect((await queueDepth(db.prisma, trackerQueue, now, 500)).due).toBeLessThanOrEqual(100);

      // ~20 000 status reads due: the count reads its cap of them (and the rows leased above), not all.
      const statusPlan = await depthPlan(statusPollQueue, 500);
      expect(trackerSeqScans(statusPlan)).toEqual([]);
      expect(rowsRead(statusPlan, 'Tracker')).toBeGreaterThanOrEqual(500);
      expect(rowsRead(statusPlan, 'Tracker')).toBeLessThanOrEqual(2 * 500);
      expect(rowsRead(statusPlan, 'DueShop')).toBeLessThanOrEqual(2 * 500);
      // 15 000 syncs wait in paused shops: the count reads none of them.
      const syncPlan = await depthPlan(trackerQueue, 500);
      expect(trackerSeqScans(syncPlan)).toEqual([]);
      expect(rowsRead(syncPlan, 'Tracker')).toBeLessThanOrEqual(2 * 100);
    });
  },
);
