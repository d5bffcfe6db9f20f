import { describe, expect, it } from 'vitest';
import { claimDue, createLeaseHolder } from '../../src/db/lease-queue.js';
import { providerOf } from '../../src/db/provider-of.js';
import { allQueues, deliveryQueue, trackerQueue } from '../../src/db/queues.js';
import { silentLogger } from '../../src/logger.js';
import { claimTrackers } from '../../src/trackers/reconciler.js';
import { useOtherConnection, useTestDatabase } from '../helpers/database.js';
import { createShop, createTracker } from '../helpers/factories.js';

/**
 * FOR UPDATE SKIP LOCKED on PostgreSQL (always run on PostgreSQL, whatever TEST_DATABASE_PROVIDER says):
 * rows locked by another transaction are skipped at once, never waited for, never leased twice.
 */
describe('claims on PostgreSQL', () => {
  const db = useTestDatabase({ provider: 'postgresql' });
  const other = useOtherConnection(db);

  const reconcilerDeps = (owner: string) => ({
    prisma: db.prisma,
    // The claim touches only the database.
    client: undefined as never,
    shops: undefined as never,
    logger: silentLogger,
    owner,
  });
  /** A claim of the tracker queue as a worker makes it (its holder's leases are not renewed here). */
  const claimAs = (owner: string, limit: number) =>
    claimTrackers(
      reconcilerDeps(owner),
      limit,
      createLeaseHolder(db.prisma, trackerQueue, {
        owner,
        timing: { leaseMs: 60_000, renewEveryMs: 60_000 },
      }),
    );

  it('knows which provider a client talks to', () => {
    expect(providerOf(db.prisma)).toBe('postgresql');
  });

  it('skips rows another transaction holds, without waiting for it', async () => {
    const shop = await createShop(db.prisma, { domain: 'skip-locked.myshopify.com' });
    const past = new Date(Date.now() - 60_000);
    const trackers = [];
    for (let i = 0; i < 6; i++) {
      trackers.push(await createTracker(db.prisma, shop.id, { nextAttemptAt: new Date(past.getTime() + i) }));
    }
    // Another worker's transaction holds the three oldest rows and has not committed yet.
    const held = trackers.slice(0, 3).map((t) => t.id);
    const claim = await other.prisma.$transaction(
      async (tx) => {
        await tx.$queryRawUnsafe('SELECT "id" FROM "Tracker" WHERE "id" = ANY($1::text[]) FOR UPDATE', held);
        return Promise.race([
          claimAs('worker-a', 10),
          new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 5_000)),
        ]);
      },
      { timeout: 15_000 },
    );
    expect(claim).not.toBe('waited');
    if (claim === 'waited') return;
    expect(claim.trackers.map((t) => t.id).sort()).toEqual(
      trackers
        .slice(3)
        .map((t) => t.id)
        .sort(),
    );
    // Released by the other transaction, the rows are claimable; the leased ones are not taken again.
    const second = await claimAs('worker-b', 10);
    expect(second.trackers.map((t) => t.id).sort()).toEqual([...held].sort());
    expect(await db.prisma.tracker.count({ where: { leaseOwner: null } })).toBe(0);
  });

  it('two workers claiming at once split the due rows between them, none twice', async () => {
    await db.prisma.tracker.deleteMany();
    const shop = await createShop(db.prisma, { domain: 'split.myshopify.com' });
    const ids = [];
    for (let i = 0; i < 40; i++) ids.push((await createTracker(db.prisma, shop.id)).id);
    const [a, b] = await Promise.all([claimAs('worker-a', 25), claimAs('worker-b', 25)]);
    const taken = [...a.trackers, ...b.trackers].map((t) => t.id);
    expect(new Set(taken).size).toBe(taken.length);
    // Neither came back short while rows were due: 25 + 15 in some order.
    expect(taken.sort()).toEqual(ids.sort());
    expect([a.trackers.length, b.trackers.length].sort((x, y) => x - y)).toEqual([15, 25]);
  });

  it('keeps timestamps in UTC whatever the session time zone', async () => {
    await db.prisma.webhookDelivery.deleteMany();
    const now = new Date();
    await db.prisma.webhookDelivery.create({
      data: {
        shopDomain: 'tz.myshopify.com',
        topic: 'fulfillments/create',
        eventId: 'tz-1',
        webhookId: 'tz-1',
        payload: '{}',
        nextAttemptAt: new Date(now.getTime() - 1_000),
      },
    });
    await db.prisma.$executeRawUnsafe(`SET TIME ZONE 'Pacific/Kiritimati'`);
    try {
      const ids = await claimDue(db.prisma, deliveryQueue, {
        token: 'tz-token',
        now,
        leaseMs: 60_000,
        limit: 5,
      });
      expect(ids).toHaveLength(1);
      const row = await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: ids[0]! } });
      expect(row.leaseOwner).toBe('tz-token');
      expect(Math.abs(row.leaseExpiresAt!.getTime() - (now.getTime() + 60_000))).toBeLessThan(2);
    } finally {
      await db.prisma.$executeRawUnsafe(`SET TIME ZONE 'UTC'`);
    }
  });

  it('two claimers of every queue at once split its due rows, none twice, neither short', async () => {
    await db.prisma.webhookDelivery.deleteMany();
    await db.prisma.tracker.deleteMany();
    const shop = await createShop(db.prisma, { domain: 'every-queue.myshopify.com' });
    const past = new Date(Date.now() - 60_000);
    for (let i = 0; i < 40; i++) {
      const tracker = await createTracker(db.prisma, shop.id, {
        trackingNumber: `EVERY${i}`,
        remote: 'present',
        nextPollAt: past,
      });
      await db.prisma.webhookDelivery.create({
        data: {
          shopDomain: shop.domain,
          topic: 'orders/cancelled',
          eventId: `e${i}`,
          webhookId: `w${i}`,
          payload: '{}',
          nextAttemptAt: past,
        },
      });
      await db.prisma.storeFulfillmentEvent.create({
        data: {
          shopId: shop.id,
          trackerId: tracker.id,
          fulfillmentId: `f${i}`,
          status: 'IN_TRANSIT',
          happenedAt: past,
          nextAttemptAt: past,
        },
      });
      await db.prisma.storeTrackingLink.create({
        data: { shopId: shop.id, fulfillmentId: `f${i}`, wanted: 'store', nextAttemptAt: past },
      });
      await db.prisma.statusPush.create({
        data: { shopId: shop.id, dedupeKey: `k${i}`, payload: '{}', nextAttemptAt: past },
      });
      await db.prisma.flowEvent.create({
        data: {
          shopId: shop.id,
          handle: 'shipment-delivered',
          payload: '{}',
          dedupeKey: `k${i}`,
          nextAttemptAt: past,
        },
      });
    }
    for (let i = 0; i < 40; i++) {
      const other = await createShop(db.prisma, { domain: `every-queue-${i}.myshopify.com` });
      await db.prisma.backfillJob.create({ data: { shopId: other.id, days: 7 } });
    }
    for (const queue of allQueues) {
      const a = createLeaseHolder(db.prisma, queue, { owner: 'worker-a' });
      const b = createLeaseHolder(other.prisma, queue, { owner: 'worker-b' });
      const due = await db.prisma.$queryRawUnsafe<{ n: bigint }[]>(
        `SELECT COUNT(*) AS n FROM "${queue.table}"`,
      );
      const [x, y] = await Promise.all([
        a.claim(25, { perGroupMax: 100 }),
        b.claim(25, { perGroupMax: 100 }),
      ]);
      const taken = [...x, ...y];
      expect(new Set(taken).size, queue.name).toBe(taken.length);
      expect(
        [x.length, y.length].sort((m, n) => m - n),
        queue.name,
      ).toEqual([15, 25]);
      expect(taken.length, queue.name).toBe(Math.min(50, Number(due[0]!.n)));
      await a.close();
      await b.close();
    }
  });
});
