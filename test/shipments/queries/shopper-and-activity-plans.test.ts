import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery } from '@prisma/driver-adapter-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seenCarriers } from '../../../src/carriers/carrier-queries.js';
import type { DatabaseClient } from '../../../src/db/client.js';
import { decodeCursor } from '../../../src/db/keyset-cursor.js';
import { PrismaClient } from '../../../src/generated/postgresql/client.js';
import { countFailed, failedDeliveriesPage, failedTrackersPage } from '../../../src/jobs/retry-failed.js';
import { orderNamesOfTrackers } from '../../../src/shipments/queries/order-names.js';
import { countRefusedWrites, refusedWritesPage } from '../../../src/shipments/queries/refused-writes.js';
import {
  countTrackingPageLookup,
  lineByTrackingNumber,
  linesOfFulfillment,
  linesOfOrders,
  ordersByNameAndEmail,
  shopByDomain,
  trackersOfOrder,
} from '../../../src/shipments/queries/shopper-lookups.js';
import { defaultTestProvider, useTestDatabase } from '../../helpers/database.js';
import { carrierBackfillSql } from '../../../src/shipments/rollups.js';
import { readTrackingPageSettings } from '../../../src/shops/tracking-page-settings.js';
import { countOpenProblems, openProblemsPage } from '../../../src/shipments/queries/problems.js';

/**
 * Issue 19 ("a store with a million shipments"): the shoppers' page's lookups, carriers seen and the
 * Activity page's failed lists read by index, whatever the shop's size. PostgreSQL is seeded with one
 * large shop (30 000 parcels, their trackers and fulfilments, failures and refused updates) among 300
 * smaller ones, ANALYZEd, and each query the app runs (recorded at the driver adapter, exactly as Prisma sends it)
 * is EXPLAINed: none may read "TrackingLine", "Tracker", "Fulfillment", "WebhookDelivery" or
 * "StoreFulfillmentEvent" with a sequential scan.
 */

const big = { id: 'plan-big', domain: 'plan-big.myshopify.com' };
const parcels = 30_000;
const hotTables = ['TrackingLine', 'Tracker', 'Fulfillment', 'WebhookDelivery', 'StoreFulfillmentEvent'];

const seed = [
  `INSERT INTO "Shop" (id, domain, "updatedAt") VALUES ('${big.id}', '${big.domain}', now())`,
  `INSERT INTO "Shop" (id, domain, "updatedAt")
     SELECT 'plan-s' || g, 'plan-s' || g || '.myshopify.com', now() FROM generate_series(1, 300) g`,
  // The large shop: one tracker per parcel, two parcels per order, 30 carrier names; 1 % failed or dead.
  `INSERT INTO "Tracker" (id, "shopId", "trackingNumber", provider, "orderKey", desired, remote, "syncState",
       status, "statusCheckedAt", "lastErrorReason", "lastErrorAt", "updatedAt")
     SELECT 't' || g, '${big.id}', 'TN' || lpad(g::text, 10, '0'), 'ups', (g / 2)::text, 'active', 'present',
       CASE WHEN g % 150 = 0 THEN 'failed' WHEN g % 300 = 1 THEN 'dead' ELSE 'synced' END,
       CASE WHEN g % 3 = 0 THEN 'in_transit' ELSE 'delivered' END, now() - interval '1 day',
       CASE WHEN g % 150 = 0 OR g % 300 = 1 THEN 'unknown' END,
       CASE WHEN g % 150 = 0 OR g % 300 = 1 THEN now() - g * interval '1 minute' END,
       now() - g * interval '1 minute'
     FROM generate_series(1, ${parcels}) g`,
  `INSERT INTO "TrackingLine" (id, "shopId", "fulfillmentId", "orderId", "orderName", "trackingNumber",
       "carrierName", "carrierKey", "trackerId", "createdAt", "updatedAt")
     SELECT 'l' || g, '${big.id}', 'f' || (g / 2), (g / 2)::text, '#' || (g / 2), 'TN' || lpad(g::text, 10, '0'),
       'Carrier ' || (g % 30), 'carrier' || (g % 30), CASE WHEN g % 100 = 0 THEN NULL ELSE 't' || g END,
       now() - g * interval '1 minute', now() - g * interval '1 minute'
     FROM generate_series(1, ${parcels}) g`,
  `INSERT INTO "Fulfillment" (id, "shopId", "fulfillmentId", "orderId", "orderName", "customerEmailHash",
       status, "sourceUpdatedAt", "updatedAt")
     SELECT 'fu' || g, '${big.id}', 'f' || g, g::text, '#' || g, md5(g::text), 'success', now(), now()
     FROM generate_series(0, ${parcels / 2}) g`,
  `INSERT INTO "StoreFulfillmentEvent" (id, "shopId", "trackerId", "fulfillmentId", status, "happenedAt",
       state, "updatedAt")
     SELECT 'se' || g, '${big.id}', 't' || g, 'f' || (g / 2), 'DELIVERED', now(),
       CASE WHEN g % 100 = 0 THEN 'failed' ELSE 'sent' END, now() - g * interval '1 second'
     FROM generate_series(1, ${parcels}) g`,
  // 300 small shops, 300 parcels each (the large shop is a quarter of the lines, as one shop among many
  // is a part of a fleet's); webhook deliveries of every shop, 2 % failed.
  `INSERT INTO "Tracker" (id, "shopId", "trackingNumber", provider, "orderKey", "syncState", "lastErrorAt",
       "updatedAt")
     SELECT 'st' || g, 'plan-s' || (g % 300 + 1), 'SN' || g, 'dhl', (g / 2)::text,
       CASE WHEN g % 500 = 0 THEN 'failed' ELSE 'synced' END, CASE WHEN g % 500 = 0 THEN now() END, now()
     FROM generate_series(1, 30000) g`,
  `INSERT INTO "TrackingLine" (id, "shopId", "fulfillmentId", "orderId", "orderName", "trackingNumber",
       "carrierName", "carrierKey", "trackerId", "updatedAt")
     SELECT 'sl' || g, 'plan-s' || (g % 300 + 1), 'sf' || (g / 2), (g / 2)::text, '#' || (g / 2), 'SN' || g,
       'DHL', 'dhl', CASE WHEN g <= 30000 THEN 'st' || g END, now()
     FROM generate_series(1, 90000) g`,
  `INSERT INTO "WebhookDelivery" (id, "shopDomain", topic, "eventId", "webhookId", payload, state,
       "receivedAt")
     SELECT 'wd' || g,
       CASE WHEN g % 10 = 0 THEN '${big.domain}' ELSE 'plan-s' || (g % 300 + 1) || '.myshopify.com' END,
       'fulfillments/create', 'e' || g, 'w' || g, '{}', CASE WHEN g % 50 = 0 THEN 'failed' ELSE 'processed' END,
       now() - g * interval '1 second'
     FROM generate_series(1, 60000) g`,
];

const provider = defaultTestProvider();
interface Recorder {
  prisma: DatabaseClient;
  /** The plans of the statements `run` sends. */
  plans(run: (prisma: DatabaseClient) => Promise<unknown>): Promise<string[]>;
}

/** A Prisma client whose adapter keeps every statement it sends, to EXPLAIN them as sent. */
async function recordingClient(url: string): Promise<Recorder> {
  const inner = new PrismaPg({ connectionString: url });
  const sent: SqlQuery[] = [];
  let adapter: SqlDriverAdapter | undefined;
  const factory: SqlDriverAdapterFactory = {
    provider: inner.provider,
    adapterName: inner.adapterName,
    async connect() {
      adapter = await inner.connect();
      const queryRaw = adapter.queryRaw.bind(adapter);
      adapter.queryRaw = (query) => {
        sent.push(query);
        return queryRaw(query);
      };
      return adapter;
    },
  };
  const prisma = new PrismaClient({ adapter: factory }) as unknown as DatabaseClient;
  await prisma.$queryRawUnsafe('SELECT 1');
  return {
    prisma,
    async plans(run) {
      sent.length = 0;
      await run(prisma);
      const statements = sent.filter((q) => /^\s*(SELECT|WITH)\b/i.test(q.sql));
      expect(statements.length).toBeGreaterThan(0);
      const plans: string[] = [];
      for (const query of statements) {
        const result = await adapter!.queryRaw({ ...query, sql: `EXPLAIN ${query.sql}` });
        plans.push(result.rows.map((row) => String(row[0])).join('\n'));
      }
      return plans;
    },
  };
}

function expectIndexed(plans: string[]): void {
  for (const plan of plans) {
    // PRINT_PLANS=1 shows them.
    if (process.env.PRINT_PLANS) console.log(plan);
    for (const table of hotTables) expect(plan, plan).not.toMatch(new RegExp(`Seq Scan on "${table}"`));
  }
}

describe.runIf(provider === 'postgresql')('query plans of a large shop among many (PostgreSQL)', () => {
  const database = useTestDatabase({ provider: 'postgresql' });
  let recorder: Recorder;

  beforeAll(async () => {
    // The rollups' triggers (src/shipments/rollups.ts) are left out of the seeding: they cost a write per
    // row, and these queries do not read the rollups.
    await database.prisma.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe('SET LOCAL session_replication_role = replica');
        for (const statement of seed) await tx.$executeRawUnsafe(statement);
      },
      { timeout: 120_000 },
    );
    // Carriers seen reads its rollup: filled from the seeded lines, as the migration that adds it does.
    for (const statement of carrierBackfillSql().split('\n'))
      await database.prisma.$executeRawUnsafe(statement);
    await database.prisma.$executeRawUnsafe('VACUUM ANALYZE');
    recorder = await recordingClient(database.url);
  }, 120_000);
  afterAll(async () => {
    await recorder?.prisma.$disconnect();
  });

  it("the shoppers' page: by number, by order and email, a customer's orders, an order's refresh", async () => {
    const hash = (await database.prisma.fulfillment.findFirstOrThrow({ where: { id: 'fu1234' } }))
      .customerEmailHash!;
    const plans = await recorder.plans(async (prisma) => {
      expect(await shopByDomain(prisma, big.domain)).not.toBeNull();
      expect(await lineByTrackingNumber(prisma, big.id, ['TN0000012345', 'tn0000012345'])).toMatchObject({
        orderName: '#6172',
        tracker: { provider: 'ups' },
      });
      expect(await ordersByNameAndEmail(prisma, big.id, ['#1234', '1234'], hash)).toEqual([
        { orderId: '1234', orderName: '#1234' },
      ]);
      expect(await linesOfOrders(prisma, big.id, ['1234', '1235'], 50)).toHaveLength(4);
      expect(await trackersOfOrder(prisma, big.id, '1234')).toHaveLength(2);
      await countTrackingPageLookup(prisma, big.id);
      // The page's settings (by the shop's key), and the order status extension's fulfilment.
      expect((await readTrackingPageSettings(prisma, big.id)).accentColor).toBe('#1a1a1a');
      expect(await linesOfFulfillment(prisma, big.id, 'f1234', 20)).toHaveLength(2);
    });
    expectIndexed(plans);
  });

  it('Needs attention: a page of open problems and their counts per kind, on the shop index', async () => {
    await database.prisma.$executeRawUnsafe(
      `INSERT INTO "ShipmentProblem" (id, "shopId", "trackerId", kind, since, "openedAt")
         SELECT 'p' || g, '${big.id}', 't' || g, CASE WHEN g % 2 = 0 THEN 'stalled' ELSE 'carrier_exception' END,
           now() - g * interval '1 minute', now()
         FROM generate_series(1, 3000) g`,
    );
    // Most problems close (by themselves, or handled): the open ones are a slice of the shop's rows.
    await database.prisma.$executeRawUnsafe(
      `INSERT INTO "ShipmentProblem" (id, "shopId", "trackerId", kind, since, "openedAt", "closedAt", "closedReason")
         SELECT 'pc' || g, '${big.id}', 't' || g, 'stalled', now() - g * interval '1 minute', now(), now(), 'moved'
         FROM generate_series(3001, ${parcels}) g`,
    );
    await database.prisma.$executeRawUnsafe('ANALYZE "ShipmentProblem"');
    const plans = await recorder.plans(async (prisma) => {
      const page = await openProblemsPage(prisma, big.id, { kind: 'stalled', take: 50 }, new Date());
      expect(page).toHaveLength(51);
      const counts = await countOpenProblems(prisma, big.id);
      expect(counts.stalled + counts.carrier_exception).toBe(3000);
    });
    for (const plan of plans) {
      if (process.env.PRINT_PLANS) console.log(plan);
      expect(plan, plan).not.toMatch(/Seq Scan on "(ShipmentProblem|Tracker)"/);
    }
  });

  it('carriers seen: from its rollup by the shop key, never the lines, a row per carrier, paged by key', async () => {
    const plans = await recorder.plans(async (prisma) => {
      const first = await seenCarriers(prisma, big.id, { limit: 20 });
      expect(first.carriers).toHaveLength(20);
      expect(first.next).toBe(first.carriers.at(-1)!.key);
      const rest = await seenCarriers(prisma, big.id, { after: first.next!, limit: 20 });
      expect(rest.carriers).toHaveLength(10);
      expect(rest.next).toBeNull();
      const all = [...first.carriers, ...rest.carriers];
      expect(all.reduce((n, c) => n + c.shipments, 0)).toBeGreaterThanOrEqual(parcels / 2);
      expect(all.reduce((n, c) => n + c.waiting, 0)).toBe(parcels / 100);
      // A small shop.
      expect((await seenCarriers(prisma, 'plan-s7')).carriers).toEqual([
        { key: 'dhl', name: 'DHL', shipments: expect.any(Number), waiting: 200 },
      ]);
    });
    // A row per shop, carrier and spelling (a few hundred here: the planner may read them all; with many
    // shops, the primary key's shop prefix): never the lines.
    for (const plan of plans) expect(plan).not.toMatch(/"TrackingLine"/);
    expectIndexed(plans);
  });

  it('the Activity lists: failed trackers and deliveries, refused updates, their counts, page after page', async () => {
    const filter = { shopId: big.id, shopDomain: big.domain };
    const plans = await recorder.plans(async (prisma) => {
      expect(await countFailed(prisma, filter)).toEqual({ trackers: 300, deliveries: 1200 });
      const trackers = await failedTrackersPage(prisma, filter);
      expect(trackers.rows).toHaveLength(50);
      const second = await failedTrackersPage(prisma, filter, { after: decodeCursor(trackers.next!)! });
      expect(second.rows[0]!.lastErrorAt!.getTime()).toBeLessThan(trackers.rows[49]!.lastErrorAt!.getTime());
      const deliveries = await failedDeliveriesPage(prisma, filter);
      await failedDeliveriesPage(prisma, filter, { after: decodeCursor(deliveries.next!)! });
      expect(await countRefusedWrites(prisma, big.id)).toBe(parcels / 100);
      const writes = await refusedWritesPage(prisma, big.id);
      await refusedWritesPage(prisma, big.id, { after: decodeCursor(writes.next!)! });
      await orderNamesOfTrackers(
        prisma,
        big.id,
        trackers.rows.map((t) => t.id),
      );
    });
    expectIndexed(plans);
  });
});
