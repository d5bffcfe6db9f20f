/**
 * Retention's tracker and lookup-limit statements on seeded PostgreSQL data: their plans (EXPLAIN ANALYZE)
 * and a timed pass. `npx tsx bench/retention-plans.ts [trackers]` (default 300 000) on the local server; the
 * scratch database is dropped at the end. First, the same statements' plans on an empty SQLite database.
 *
 * Seeded: most trackers recent and followed; of those quiet past the retention, settled ones (delivered with
 * their store writes done, removed and absent) and kept ones (dead, failed, polling given up, refused or
 * pending store writes, open problems) spread among them; a flood of expired lookup-limit counters.
 */
import { createDatabase } from '../src/db/client.js';
import { applyMigrations } from '../src/db/migrate.js';
import { createRetention, defaultRetention } from '../src/jobs/retention.js';
import { retentionRules } from '../src/jobs/queries/retention.js';
import { createScratchDatabase } from '../tools/db/scratch.js';

const total = Number(process.argv[2] ?? 300_000);

/** SQLite (no statistics): the tracker batch's checks and the lookup-limit pick, each on its key or index. */
async function sqlitePlans(): Promise<void> {
  const scratch = await createScratchDatabase('sqlite', { prefix: 'tracksync_bench' });
  try {
    await applyMigrations(scratch.url);
    const { prisma, close } = await createDatabase(scratch.url);
    try {
      const trackers = retentionRules.find((r) => r.name === 'trackers');
      if (!trackers || !('take' in trackers) || !trackers.take)
        throw new Error('no trackers rule with a take');
      const statements: [string, string][] = [
        [
          'the trackers sweep',
          `SELECT q."id" FROM "Tracker" AS q WHERE q."updatedAt" < 1 AND (q."updatedAt", q."id") > (0, 'x') ORDER BY q."updatedAt", q."id" LIMIT 200`,
        ],
        ["the batch's settled trackers", trackers.take('sqlite')],
        ...(trackers.then.map((t, i) => [`the trackers rule, statement ${i + 1}`, t]) as [string, string][]),
        [
          'the lookup-limit pick',
          `SELECT q."id" FROM "LookupLimit" AS q WHERE q."expiresAt" < 5 ORDER BY q."expiresAt" LIMIT 200`,
        ],
      ];
      const fulfillments = retentionRules.find((r) => r.name === 'fulfillments');
      if (fulfillments && 'then' in fulfillments)
        fulfillments.then.forEach((t, i) => statements.push([`the fulfilments rule, statement ${i + 1}`, t]));
      for (const [label, statement] of statements) {
        const sql = statement.replace(/:ids\b/g, `'a', 'b'`).replace(/:[a-zA-Z]+\b/g, `'2025-01-01'`);
        const rows = await prisma.$queryRawUnsafe<{ detail: string }[]>(`EXPLAIN QUERY PLAN ${sql}`);
        console.log(`\n-- SQLite: ${label}\n${rows.map((r) => r.detail).join('\n')}`);
      }
    } finally {
      await close();
    }
  } finally {
    await scratch.drop();
  }
}

async function main(): Promise<void> {
  await sqlitePlans();
  const scratch = await createScratchDatabase('postgresql', { prefix: 'tracksync_bench' });
  try {
    await applyMigrations(scratch.url);
    const { prisma, close } = await createDatabase(scratch.url);
    try {
      await run(prisma);
    } finally {
      await close();
    }
  } finally {
    await scratch.drop();
  }
}

type Prisma = Awaited<ReturnType<typeof createDatabase>>['prisma'];

async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  console.log(`${label}: ${Math.round(performance.now() - started)} ms`);
  return result;
}

async function run(prisma: Prisma): Promise<void> {
  const sql = (text: string) => prisma.$executeRawUnsafe(text);
  await sql(
    `INSERT INTO "Shop" ("id", "domain", "updatedAt") VALUES ('shop-1', 'bench.myshopify.com', now())`,
  );
  // Per tracker i: 70 % recent and followed; of the old 30 %, by i % 10: 0-4 delivered and settled, 5 removed
  // and absent, 6 dead, 7 polling given up, 8 delivered with a refused store write, 9 with an open problem.
  await timed(`seed ${total} trackers`, () =>
    sql(`INSERT INTO "Tracker" ("id", "shopId", "trackingNumber", "provider", "orderKey", "desired", "remote",
        "syncState", "status", "nextPollAt", "createdAt", "updatedAt")
      SELECT 't' || i, 'shop-1', 'N' || i, 'ups', 'o' || i,
        CASE WHEN i % 10 = 5 AND i % 100 >= 70 THEN 'removed' ELSE 'active' END,
        CASE WHEN i % 100 < 70 OR i % 10 NOT IN (5, 6) THEN 'present' ELSE 'absent' END,
        CASE WHEN i % 100 >= 70 AND i % 10 = 6 THEN 'dead' ELSE 'synced' END,
        CASE WHEN i % 100 < 70 OR i % 10 IN (5, 6, 7) THEN 'in_transit' ELSE 'delivered' END,
        CASE WHEN i % 100 < 70 THEN now() + interval '3 hours' END,
        now() - interval '900 days',
        CASE WHEN i % 100 < 70 THEN now() - (i % 30) * interval '1 day' ELSE now() - (401 + i % 500) * interval '1 day' END
      FROM generate_series(1, ${total}) AS i`),
  );
  await timed('seed lines', () =>
    sql(`INSERT INTO "TrackingLine" ("id", "shopId", "fulfillmentId", "orderId", "trackingNumber", "trackerId", "active", "updatedAt")
      SELECT 'l' || i, 'shop-1', 'F' || i, 'O' || i, 'N' || i, 't' || i, NOT (i % 10 = 5 AND i % 100 >= 70), now()
      FROM generate_series(1, ${total}) AS i`),
  );
  await timed('seed store events', () =>
    sql(`INSERT INTO "StoreFulfillmentEvent" ("id", "shopId", "trackerId", "fulfillmentId", "status", "happenedAt", "state", "nextAttemptAt", "updatedAt")
      SELECT 'e' || i, 'shop-1', 't' || i, 'F' || i, 'DELIVERED', now() - interval '500 days',
        CASE WHEN i % 10 = 8 THEN 'failed' ELSE 'sent' END, now() - interval '10 days', now()
      FROM generate_series(1, ${total}) AS i WHERE i % 100 >= 70 AND i % 10 NOT IN (5, 6, 7)`),
  );
  await timed('seed problems', () =>
    sql(`INSERT INTO "ShipmentProblem" ("id", "shopId", "trackerId", "kind", "since")
      SELECT 'p' || i, 'shop-1', 't' || i, 'carrier_exception', now() - interval '500 days'
      FROM generate_series(1, ${total}) AS i WHERE i % 100 >= 70 AND i % 10 = 9`),
  );
  await timed('seed tracking links (a few old ones still to write)', () =>
    sql(`INSERT INTO "StoreTrackingLink" ("id", "shopId", "fulfillmentId", "wanted", "applied", "state", "updatedAt")
      SELECT 'k' || i, 'shop-1', 'F' || i, 'store', 'store', CASE WHEN i % 1000 = 701 THEN 'pending' ELSE 'sent' END, now()
      FROM generate_series(1, ${total}) AS i`),
  );
  await timed(`seed ${total} expired lookup-limit counters`, () =>
    sql(`INSERT INTO "LookupLimit" ("id", "shopId", "kind", "count", "windowStartMs", "lastAtMs", "expiresAt")
      SELECT 'shop-1:visitor:' || i, 'shop-1', 'visitor', 1, 0, 0, now() - interval '1 minute'
      FROM generate_series(1, ${total}) AS i`),
  );
  await sql('ANALYZE');

  const now = new Date();
  const cutoff = new Date(now.getTime() - defaultRetention.trackerMs).toISOString();
  const explain = async (label: string, statement: string) => {
    const rows = await prisma.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(
      `EXPLAIN (ANALYZE, BUFFERS) ${statement}`,
    );
    console.log(`\n-- ${label}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  };
  const n = defaultRetention.batchSize;
  const sweep = `SELECT q."id", q."updatedAt" AS "at" FROM "Tracker" AS q WHERE q."updatedAt" < '${cutoff}' ORDER BY q."updatedAt", q."id" LIMIT ${n}`;
  await explain('the trackers sweep: a batch of keys, oldest first', sweep);
  const mid = new Date(now.getTime() - 600 * 24 * 3_600_000).toISOString();
  await explain(
    'the trackers sweep from a cursor (time, id)',
    `SELECT q."id", q."updatedAt" AS "at" FROM "Tracker" AS q WHERE q."updatedAt" < '${cutoff}' AND (q."updatedAt", q."id") > ('${mid}', 't5') ORDER BY q."updatedAt", q."id" LIMIT ${n}`,
  );
  const keys = (await prisma.$queryRawUnsafe<{ id: string }[]>(sweep)).map((r) => `'${r.id}'`).join(', ');
  const trackers = retentionRules.find((r) => r.name === 'trackers');
  if (!trackers || !('take' in trackers) || !trackers.take) throw new Error('no trackers rule with a take');
  const take = trackers
    .take('postgresql')
    .replace(':ids', keys)
    .replace(/:tracker\b/g, `'${cutoff}'::timestamp(3)`)
    .replace(/:now\b/g, `'${now.toISOString()}'::timestamp(3)`);
  await prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN (ANALYZE, BUFFERS) ${take}`);
    console.log(`\n-- the batch's settled trackers, locked\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  });
  await explain(
    'the lookup-limit pick',
    `SELECT q."id" FROM "LookupLimit" AS q WHERE q."expiresAt" < now() ORDER BY q."expiresAt" LIMIT ${n} FOR UPDATE OF q SKIP LOCKED`,
  );

  const lookupLimits = retentionRules.filter((r) => r.name === 'lookupLimits');
  const flood = await timed('the lookup-limit counters alone, a pass', () =>
    createRetention({ prisma }, {}, lookupLimits).runPass({ now }),
  );
  console.log(JSON.stringify(flood.rules));
  // Passes until everything due is done (the trackers' sweep visits 10 000 keys a pass).
  const retention = createRetention({ prisma });
  for (let i = 1; ; i++) {
    const pass = await timed(`pass ${i}`, () => retention.runPass({ now }));
    console.log(JSON.stringify({ trackers: pass.rules.trackers, fulfillments: pass.rules.fulfillments }));
    if (pass.done) break;
  }
  const left = await prisma.$queryRawUnsafe<{ syncState: string; status: string; n: bigint }[]>(
    `SELECT "syncState", "status", COUNT(*) AS n FROM "Tracker" WHERE "updatedAt" < '${cutoff}' GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  console.log('old trackers left:', left.map((r) => `${r.syncState}/${r.status}: ${r.n}`).join(', '));
  console.log(`lookup-limit counters left: ${await prisma.lookupLimit.count()}`);
}

await main();
