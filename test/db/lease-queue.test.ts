import { describe, expect, it } from 'vitest';
import { claimDue, createLeaseHolder, queueDepth, releaseLeases } from '../../src/db/lease-queue.js';
import { deliveryQueue, statusPollQueue, trackerQueue } from '../../src/db/queues.js';
import { useTestDatabase } from '../helpers/database.js';
import { createShop, createTracker } from '../helpers/factories.js';

/** The lease queue on the suite's provider: claim, heartbeat, take-over, release, depth. */
const db = useTestDatabase({ reset: true });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function deliveries(count: number, nextAttemptAt = new Date(Date.now() - 1_000)): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const row = await db.prisma.webhookDelivery.create({
      data: {
        shopDomain: 'lease.myshopify.com',
        topic: 'orders/cancelled',
        eventId: `lease-${i}-${Math.random()}`,
        webhookId: `w-${i}`,
        payload: '{}',
        receivedAt: new Date(Date.now() - 10_000 + i),
        nextAttemptAt,
      },
    });
    ids.push(row.id);
  }
  return ids;
}

describe('claimDue', () => {
  it('leases due, lease-free rows, oldest first, up to the limit; not the ones not due or leased', async () => {
    const due = await deliveries(5);
    const [later] = await deliveries(1, new Date(Date.now() + 60_000));
    const now = new Date();
    const first = await claimDue(db.prisma, deliveryQueue, { token: 'a', now, leaseMs: 10_000, limit: 3 });
    expect([...first].sort()).toEqual(due.slice(0, 3).sort());
    const rows = await db.prisma.webhookDelivery.findMany({ where: { id: { in: first } } });
    for (const r of rows) {
      expect(r.leaseOwner).toBe('a');
      expect(Math.abs(r.leaseExpiresAt!.getTime() - (now.getTime() + 10_000))).toBeLessThan(2);
    }
    const second = await claimDue(db.prisma, deliveryQueue, { token: 'b', now, leaseMs: 10_000, limit: 10 });
    expect([...second].sort()).toEqual(due.slice(3).sort());
    expect(second).not.toContain(later);
    // An expired lease is free again.
    const afterExpiry = new Date(now.getTime() + 10_001);
    const third = await claimDue(db.prisma, deliveryQueue, {
      token: 'c',
      now: afterExpiry,
      leaseMs: 10_000,
      limit: 10,
    });
    expect(third.sort()).toEqual([...due].sort());
  });

  it('claiming a tracker bumps its version; a paused shop is due only once its probe is', async () => {
    const running = await createShop(db.prisma);
    const paused = await createShop(db.prisma, {
      pausedReason: 'ssl_error',
      pausedAt: new Date(),
      probeAt: new Date(Date.now() + 60_000),
    });
    const a = await createTracker(db.prisma, running.id);
    const b = await createTracker(db.prisma, paused.id);
    const now = new Date();
    const claimed = await claimDue(db.prisma, trackerQueue, { token: 't', now, leaseMs: 5_000, limit: 10 });
    expect(claimed).toEqual([a.id]);
    expect((await db.prisma.tracker.findUniqueOrThrow({ where: { id: a.id } })).version).toBe(a.version + 1);
    const probe = await claimDue(db.prisma, trackerQueue, {
      token: 'u',
      now: new Date(now.getTime() + 61_000),
      leaseMs: 5_000,
      limit: 10,
    });
    expect(probe).toContain(b.id);
  });

  it('takes at most perGroupMax rows of one shop per claim, the most overdue first', async () => {
    const big = await createShop(db.prisma);
    const small = await createShop(db.prisma);
    const now = new Date();
    for (let i = 0; i < 6; i++) {
      await createTracker(db.prisma, big.id, {
        remote: 'present',
        syncState: 'synced',
        nextPollAt: new Date(now.getTime() - 60_000 + i),
      });
    }
    const s = await createTracker(db.prisma, small.id, {
      remote: 'present',
      syncState: 'synced',
      nextPollAt: new Date(now.getTime() - 1_000),
    });
    const ids = await claimDue(db.prisma, statusPollQueue, {
      token: 'p',
      now,
      leaseMs: 5_000,
      limit: 10,
      perGroupMax: 2,
    });
    expect(ids).toHaveLength(3);
    expect(ids).toContain(s.id);
    // The poll lease is its own: the sync lease is untouched.
    const rows = await db.prisma.tracker.findMany({ where: { id: { in: ids } } });
    expect(rows.every((r) => r.pollLeaseOwner === 'p' && r.leaseOwner === null)).toBe(true);
  });
});

describe('createLeaseHolder', () => {
  it('renews the leases it still holds while it works, so no one else takes them', async () => {
    await deliveries(3);
    const holder = createLeaseHolder(db.prisma, deliveryQueue, {
      owner: 'slow-worker',
      timing: { leaseMs: 1_000, renewEveryMs: 100 },
    });
    const other = createLeaseHolder(db.prisma, deliveryQueue, { owner: 'other', timing: { leaseMs: 1_000 } });
    const ids = await holder.claim(10);
    expect(ids).toHaveLength(3);
    await sleep(1_500); // longer than the lease: only the heartbeat keeps it
    expect(await other.claim(10)).toEqual([]);
    expect(ids.every((id) => holder.holds(id))).toBe(true);
    const rows = await db.prisma.webhookDelivery.findMany({ where: { id: { in: ids } } });
    expect(rows.every((r) => r.leaseOwner === holder.token && r.leaseExpiresAt! > new Date())).toBe(true);

    // Done with one (its own update cleared the lease), the others given back.
    holder.forget([ids[0]!]);
    await holder.close();
    // ids[0] still carries the holder's lease until it runs out (in real use its own update cleared it).
    expect(await other.claim(10)).toHaveLength(2);
    await other.close();
  });

  it('closing while a renewal runs gives every row back: a claim right after the close takes them', async () => {
    // On PostgreSQL a renewal that meets the release keeps the rows locked until it ends, and a claim skips
    // locked rows: the close waits for the renewal first. Many rounds, as the meeting depends on timing.
    const ids = await deliveries(3);
    for (let round = 0; round < 60; round++) {
      const holder = createLeaseHolder(db.prisma, deliveryQueue, {
        owner: 'closing',
        timing: { leaseMs: 60_000, renewEveryMs: 60_000 },
      });
      expect(await holder.claim(10)).toHaveLength(3);
      void holder.renew();
      await holder.close();
      const next = await claimDue(db.prisma, deliveryQueue, {
        token: `next-${round}`,
        now: new Date(),
        leaseMs: 60_000,
        limit: 10,
      });
      expect(next.sort(), `round ${round}`).toEqual([...ids].sort());
      expect(await releaseLeases(db.prisma, deliveryQueue, `next-${round}`, ids)).toBe(3);
    }
  });

  it('a holder that stopped renewing (a dead process) loses its rows after one lease', async () => {
    const ids = await deliveries(2);
    const dead = await claimDue(db.prisma, deliveryQueue, {
      token: 'dead',
      now: new Date(),
      leaseMs: 300,
      limit: 10,
    });
    expect(dead.sort()).toEqual([...ids].sort());
    const next = createLeaseHolder(db.prisma, deliveryQueue, { owner: 'next', timing: { leaseMs: 1_000 } });
    expect(await next.claim(10)).toEqual([]);
    await sleep(400);
    expect((await next.claim(10)).sort()).toEqual([...ids].sort());
    await next.close();
  });

  it('a renewal finds the rows another process took and stops counting on them', async () => {
    const ids = await deliveries(2);
    const holder = createLeaseHolder(db.prisma, deliveryQueue, {
      owner: 'stalled',
      timing: { leaseMs: 60_000, renewEveryMs: 60_000 },
    });
    await holder.claim(10);
    // Another process took one of them (as after an expiry this holder did not notice).
    await db.prisma.webhookDelivery.update({ where: { id: ids[0]! }, data: { leaseOwner: 'thief' } });
    expect(await holder.renew()).toBe(1);
    expect(holder.holds(ids[0]!)).toBe(false);
    expect(holder.holds(ids[1]!)).toBe(true);
    await holder.close();
    expect((await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: ids[0]! } })).leaseOwner).toBe(
      'thief',
    );
    expect(
      (await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: ids[1]! } })).leaseOwner,
    ).toBeNull();
  });
});

describe('releaseLeases and queueDepth', () => {
  it('gives back only rows still held by the token; counts due rows and the oldest wait', async () => {
    const ids = await deliveries(4, new Date(Date.now() - 30_000));
    const now = new Date();
    expect(await queueDepth(db.prisma, deliveryQueue, now)).toMatchObject({ due: 4 });
    expect((await queueDepth(db.prisma, deliveryQueue, now)).oldestDueAgeS).toBeGreaterThanOrEqual(29);
    await claimDue(db.prisma, deliveryQueue, { token: 'mine', now, leaseMs: 60_000, limit: 2 });
    expect(await queueDepth(db.prisma, deliveryQueue, now)).toMatchObject({ due: 2 });
    expect(await releaseLeases(db.prisma, deliveryQueue, 'not-mine', ids)).toBe(0);
    expect(await releaseLeases(db.prisma, deliveryQueue, 'mine', ids)).toBe(2);
    expect(await queueDepth(db.prisma, deliveryQueue, now)).toMatchObject({ due: 4 });
    await db.prisma.webhookDelivery.deleteMany();
    expect(await queueDepth(db.prisma, deliveryQueue, now)).toEqual({ due: 0, oldestDueAgeS: 0 });
  });
});
