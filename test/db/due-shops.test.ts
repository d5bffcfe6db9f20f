import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.js';
import { dueShopsMigrationSql, dueShopsTriggerNames, dueShopsTriggersSql } from '../../src/db/due-shops.js';
import { claimDue, releaseLeases } from '../../src/db/lease-queue.js';
import { migrationsDirFor } from '../../src/db/paths.js';
import { statusPollQueue, trackerQueue } from '../../src/db/queues.js';
import { useTestDatabase } from '../helpers/database.js';
import { createShop, createTracker } from '../helpers/factories.js';

/**
 * The DueShop list that the per-shop queues are claimed through (src/db/due-shops.ts, the `byShop` claim of
 * src/db/lease-queue.ts): kept by the database on every write path, and what the claims do with it.
 */
const db = useTestDatabase({ reset: true });

const ago = (ms: number, from = Date.now()) => new Date(from - ms);

/** The shop's entries in a queue, as times (ms). */
async function entries(queue: string, shopId: string): Promise<number[]> {
  const rows = await db.prisma.$queryRawUnsafe<{ dueAt: string | Date }[]>(
    db.provider === 'postgresql'
      ? `SELECT "dueAt" FROM "DueShop" WHERE "queue" = $1 AND "shopId" = $2 ORDER BY "dueAt"`
      : `SELECT "dueAt" FROM "DueShop" WHERE "queue" = ? AND "shopId" = ? ORDER BY "dueAt"`,
    queue,
    shopId,
  );
  return rows.map((row) => new Date(row.dueAt).getTime());
}

const polled = (nextPollAt: Date) => ({
  remote: 'present' as const,
  syncState: 'synced' as const,
  nextPollAt,
});

describe('the migrations', () => {
  it('hold exactly the SQL src/db/due-shops.ts generates, and every trigger is there after them all', async () => {
    for (const provider of ['sqlite', 'postgresql'] as const) {
      const dir = migrationsDirFor(provider);
      const created = readdirSync(dir).find((name) => name.endsWith('_due_shops'))!;
      expect(
        readFileSync(path.join(dir, created, 'migration.sql'), 'utf8').endsWith(
          dueShopsMigrationSql(provider),
        ),
      ).toBe(true);
    }
    // SQLite redefined DueShop in a later migration, which drops and adds the triggers again.
    const dir = migrationsDirFor('sqlite');
    const redefined = readdirSync(dir).find((name) => name.endsWith('_due_shops_key'))!;
    expect(readFileSync(path.join(dir, redefined, 'migration.sql'), 'utf8')).toContain(
      dueShopsTriggersSql('sqlite'),
    );

    const names =
      db.provider === 'postgresql'
        ? await db.prisma.$queryRawUnsafe<{ name: string }[]>(
            `SELECT tgname AS "name" FROM pg_trigger WHERE NOT tgisinternal AND tgname LIKE 'DueShop%'`,
          )
        : await db.prisma.$queryRawUnsafe<{ name: string }[]>(
            `SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'DueShop%'`,
          );
    expect(names.map((row) => row.name).sort()).toEqual([...dueShopsTriggerNames()].sort());
  });
});

describe('the list of due shops, kept by the database', () => {
  it('a row joining a queue adds an entry at its due time, unless one at or before it is there', async () => {
    const shop = await createShop(db.prisma);
    const first = ago(60_000);
    await createTracker(db.prisma, shop.id, { nextAttemptAt: first });
    await createTracker(db.prisma, shop.id, { nextAttemptAt: ago(30_000) }); // covered by the first
    expect(await entries('trackers', shop.id)).toEqual([first.getTime()]);
    const earlier = ago(120_000);
    await createTracker(db.prisma, shop.id, { nextAttemptAt: earlier });
    expect(await entries('trackers', shop.id)).toEqual([earlier.getTime(), first.getTime()]);
    // Created at the service: a status read is due from its nextPollAt.
    const read = await createTracker(db.prisma, shop.id, { nextAttemptAt: ago(1) });
    const at = new Date(Date.now() + 900_000);
    await db.prisma.tracker.update({ where: { id: read.id }, data: polled(at) });
    expect(await entries('status-polls', shop.id)).toEqual([at.getTime()]);
  });

  it('a claim replaces the entries of the shops it read by when each is next due', async () => {
    const shop = await createShop(db.prisma);
    const now = new Date();
    const a = await createTracker(db.prisma, shop.id, { nextAttemptAt: ago(60_000, now.getTime()) });
    const later = new Date(now.getTime() + 3_600_000);
    await createTracker(db.prisma, shop.id, { nextAttemptAt: later });
    const ids = await claimDue(db.prisma, trackerQueue, { token: 't', now, leaseMs: 15_000, limit: 10 });
    expect(ids).toEqual([a.id]);
    // Its due row is leased: looked at again when the lease ends (in case its holder died).
    expect(await entries('trackers', shop.id)).toEqual([now.getTime() + 15_000]);
    // Given back: due again at once.
    await releaseLeases(db.prisma, trackerQueue, 't', ids, now);
    expect((await entries('trackers', shop.id))[0]).toBeLessThanOrEqual(now.getTime());
    // Done (synced): the next entry is the later row's.
    expect(await claimDue(db.prisma, trackerQueue, { token: 'u', now, leaseMs: 15_000, limit: 10 })).toEqual([
      a.id,
    ]);
    await db.prisma.tracker.update({
      where: { id: a.id },
      data: { syncState: 'synced', leaseOwner: null, leaseExpiresAt: null },
    });
    expect(
      await claimDue(db.prisma, trackerQueue, {
        token: 'v',
        now: new Date(now.getTime() + 16_000),
        leaseMs: 15_000,
        limit: 10,
      }),
    ).toEqual([]);
    expect(await entries('trackers', shop.id)).toEqual([later.getTime()]);
  });

  it('entries left by work done meanwhile do not make a claim come back empty', async () => {
    const now = new Date();
    // 50 shops whose entries are older than any due row, though their rows are no longer due.
    for (let i = 0; i < 50; i++) {
      const shop = await createShop(db.prisma);
      const row = await createTracker(db.prisma, shop.id, {
        nextAttemptAt: ago(3_600_000 - i, now.getTime()),
      });
      await db.prisma.tracker.update({
        where: { id: row.id },
        data: { nextAttemptAt: new Date(now.getTime() + 3_600_000) },
      });
    }
    const shop = await createShop(db.prisma);
    const due = await createTracker(db.prisma, shop.id, { nextAttemptAt: ago(60_000, now.getTime()) });
    // One row asked: 33 shops listed per look, the stale ones moved on each time.
    expect(await claimDue(db.prisma, trackerQueue, { token: 't', now, leaseMs: 15_000, limit: 1 })).toEqual([
      due.id,
    ]);
  });

  it('a holder that died: its rows are claimed once their lease ends', async () => {
    const shop = await createShop(db.prisma);
    const now = new Date();
    const a = await createTracker(db.prisma, shop.id, { nextAttemptAt: ago(60_000, now.getTime()) });
    expect(
      await claimDue(db.prisma, trackerQueue, { token: 'dead', now, leaseMs: 5_000, limit: 10 }),
    ).toEqual([a.id]);
    expect(
      await claimDue(db.prisma, trackerQueue, {
        token: 'next',
        now: new Date(now.getTime() + 4_000),
        leaseMs: 5_000,
        limit: 10,
      }),
    ).toEqual([]);
    expect(
      await claimDue(db.prisma, trackerQueue, {
        token: 'next',
        now: new Date(now.getTime() + 5_001),
        leaseMs: 5_000,
        limit: 10,
      }),
    ).toEqual([a.id]);
  });

  it('a paused shop is read once, then at its probe; resumed, at once', async () => {
    const now = new Date();
    const probeAt = new Date(now.getTime() + 600_000);
    const paused = await createShop(db.prisma, { pausedReason: 'balance_exhausted', pausedAt: now, probeAt });
    const waiting = [];
    for (let i = 0; i < 5; i++) {
      waiting.push(
        (await createTracker(db.prisma, paused.id, { nextAttemptAt: ago(60_000 + i, now.getTime()) })).id,
      );
    }
    expect(await claimDue(db.prisma, trackerQueue, { token: 't', now, leaseMs: 15_000, limit: 10 })).toEqual(
      [],
    );
    // Its backlog is not read again before the probe.
    expect(await entries('trackers', paused.id)).toEqual([probeAt.getTime()]);
    const probe = await claimDue(db.prisma, trackerQueue, {
      token: 'p',
      now: new Date(probeAt.getTime() + 1),
      leaseMs: 15_000,
      limit: 1,
    });
    expect(probe).toHaveLength(1);
    await releaseLeases(db.prisma, trackerQueue, 'p', probe, probeAt);
    // Resumed (as the shop repository does): every waiting tracker is due at once.
    await db.prisma.shop.update({
      where: { id: paused.id },
      data: { pausedAt: null, pausedReason: null, probeAt: null },
    });
    const all = await claimDue(db.prisma, trackerQueue, { token: 'r', now, leaseMs: 15_000, limit: 10 });
    expect(all.sort()).toEqual([...waiting].sort());
  });

  it('status reads: a paused or uninstalled shop is never claimed; once it is back, it is', async () => {
    const now = new Date();
    const paused = await createShop(db.prisma, { pausedReason: 'ssl_error', pausedAt: now, probeAt: null });
    const gone = await createShop(db.prisma);
    await db.prisma.shop.update({ where: { id: gone.id }, data: { uninstalledAt: now } });
    const p = await createTracker(db.prisma, paused.id, polled(ago(60_000, now.getTime())));
    const g = await createTracker(db.prisma, gone.id, polled(ago(60_000, now.getTime())));
    expect(
      await claimDue(db.prisma, statusPollQueue, { token: 't', now, leaseMs: 15_000, limit: 10 }),
    ).toEqual([]);
    expect(await entries('status-polls', paused.id)).toEqual([]);
    expect(
      await claimDue(db.prisma, statusPollQueue, { token: 't', now, leaseMs: 15_000, limit: 10 }),
    ).toEqual([]);
    await db.prisma.shop.update({ where: { id: paused.id }, data: { pausedAt: null, pausedReason: null } });
    await db.prisma.shop.update({ where: { id: gone.id }, data: { uninstalledAt: null } });
    const back = await claimDue(db.prisma, statusPollQueue, { token: 'u', now, leaseMs: 15_000, limit: 10 });
    expect(back.sort()).toEqual([p.id, g.id].sort());
  });

  it('is fair: at most `max` rows of a shop per claim, the most overdue shops first', async () => {
    const now = new Date();
    const big = await createShop(db.prisma);
    for (let i = 0; i < 30; i++) {
      await createTracker(db.prisma, big.id, polled(ago(3_600_000 - i, now.getTime())));
    }
    const small = [];
    for (let s = 0; s < 12; s++) {
      const shop = await createShop(db.prisma);
      small.push({
        shop,
        row: await createTracker(db.prisma, shop.id, polled(ago(60_000 * (s + 1), now.getTime()))),
      });
    }
    const claim = (token: string, limit: number) =>
      claimDue(db.prisma, statusPollQueue, { token, now, leaseMs: 15_000, limit, perGroupMax: 5 });
    const perShop = async (ids: string[]) => {
      const rows = await db.prisma.tracker.findMany({ where: { id: { in: ids } } });
      return rows.reduce((m, r) => m.set(r.shopId, (m.get(r.shopId) ?? 0) + 1), new Map<string, number>());
    };
    // 10 rows: the big shop's 5 most overdue, then the 5 most overdue small shops.
    const first = await perShop(await claim('a', 10));
    expect(first.get(big.id)).toBe(5);
    expect([...first.keys()].sort()).toEqual([big.id, ...small.slice(7).map((s) => s.shop.id)].sort());
    // The next claim: the big shop again (still the most overdue), and the other small shops.
    const second = await perShop(await claim('b', 20));
    expect(second.get(big.id)).toBe(5);
    expect(small.slice(0, 7).every((s) => second.get(s.shop.id) === 1)).toBe(true);
    expect([...second.values()].every((n) => n <= 5)).toBe(true);
  });
});

describe.skipIf(process.env.TEST_DATABASE_PROVIDER !== 'postgresql')('per-shop claims on PostgreSQL', () => {
  let other: Database;
  beforeAll(async () => {
    other = await createDatabase(db.url);
  });
  afterAll(async () => {
    await other?.close();
  });

  it('two claimers at once get different rows, at most `max` of a shop each, and neither comes back short', async () => {
    const now = new Date();
    for (let s = 0; s < 20; s++) {
      const shop = await createShop(db.prisma);
      for (let i = 0; i < 8; i++)
        await createTracker(db.prisma, shop.id, polled(ago(60_000 * (s + 1) + i, now.getTime())));
    }
    const request = (token: string) => ({ token, now, leaseMs: 60_000, limit: 50, perGroupMax: 3 });
    const [a, b] = await Promise.all([
      claimDue(db.prisma, statusPollQueue, request('a')),
      claimDue(other.prisma, statusPollQueue, request('b')),
    ]);
    expect(new Set([...a, ...b]).size).toBe(a.length + b.length);
    expect([a.length, b.length]).toEqual([50, 50]);
    for (const ids of [a, b]) {
      const rows = await db.prisma.tracker.findMany({ where: { id: { in: ids } } });
      const counts = rows.reduce(
        (m, r) => m.set(r.shopId, (m.get(r.shopId) ?? 0) + 1),
        new Map<string, number>(),
      );
      expect(Math.max(...counts.values())).toBeLessThanOrEqual(3);
    }
  });

  it('skips rows and entries another transaction holds, without waiting', async () => {
    const now = new Date();
    const shop = await createShop(db.prisma);
    const rows = [];
    for (let i = 0; i < 4; i++)
      rows.push(await createTracker(db.prisma, shop.id, { nextAttemptAt: ago(60_000 - i, now.getTime()) }));
    const held = rows.slice(0, 2).map((r) => r.id);
    const claim = await other.prisma.$transaction(
      async (tx) => {
        await tx.$queryRawUnsafe('SELECT "id" FROM "Tracker" WHERE "id" = ANY($1::text[]) FOR UPDATE', held);
        await tx.$queryRawUnsafe(`SELECT 1 FROM "DueShop" WHERE "shopId" = $1 FOR KEY SHARE`, shop.id);
        return Promise.race([
          claimDue(db.prisma, trackerQueue, { token: 't', now, leaseMs: 60_000, limit: 10 }),
          new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 5_000)),
        ]);
      },
      { timeout: 15_000 },
    );
    expect(claim).not.toBe('waited');
    expect([...(claim as string[])].sort()).toEqual(
      rows
        .slice(2)
        .map((r) => r.id)
        .sort(),
    );
    // The entry held meanwhile stayed: the rows held are claimed next.
    const next = await claimDue(db.prisma, trackerQueue, { token: 'u', now, leaseMs: 60_000, limit: 10 });
    expect(next.sort()).toEqual([...held].sort());
  });
});
