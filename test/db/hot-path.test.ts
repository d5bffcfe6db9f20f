import { beforeEach, describe, expect, it } from 'vitest';
import { directPgOf, directSqliteOf } from '../../src/db/client.js';
import { hotPathOf, inHotTransaction } from '../../src/db/hot-path.js';
import { insertRows } from '../../src/db/insert-rows.js';
import { releaseLeases, renewLeases } from '../../src/db/lease-queue.js';
import { maxNamedTexts, namedTextCount, statementName } from '../../src/db/pg-named-statements.js';
import { trackerQueue } from '../../src/db/queues.js';
import { updateRows } from '../../src/db/update-rows.js';
import { useTestDatabase } from '../helpers/database.js';
import { createShop, createTracker } from '../helpers/factories.js';

/** The hot statements past the ORM (src/db/hot-path.ts) and the typed many-row update, on the suite's provider. */
const db = useTestDatabase({ reset: true });

describe('the hot path', () => {
  it('runs past the ORM on the root client, and through the transaction inside one', async () => {
    const direct = db.provider === 'sqlite' ? directSqliteOf(db.prisma) : directPgOf(db.prisma);
    expect(direct).not.toBeNull();
    const shop = await createShop(db.prisma);
    const select = `SELECT "domain" FROM "Shop" WHERE "id" = ${db.provider === 'postgresql' ? '$1' : '?'}`;
    expect(await hotPathOf(db.prisma).rows(select, [shop.id])).toEqual([{ domain: shop.domain }]);

    // Written inside an ORM transaction that rolls back: gone with it (the statement joined the transaction).
    const rename = `UPDATE "Shop" SET "appName" = ${db.provider === 'postgresql' ? '$1' : '?'} WHERE "id" = ${db.provider === 'postgresql' ? '$2' : '?'}`;
    await expect(
      db.prisma.$transaction(async (tx) => {
        expect(directSqliteOf(tx) ?? directPgOf(tx)).toBeNull();
        expect(await hotPathOf(tx).run(rename, ['inside', shop.id])).toBe(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await db.prisma.shop.findUniqueOrThrow({ where: { id: shop.id } })).appName).toBe(shop.appName);

    // A hot transaction: all or nothing too.
    await expect(
      inHotTransaction(db.prisma, async (hot) => {
        await hot.run(rename, ['hot', shop.id]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await db.prisma.shop.findUniqueOrThrow({ where: { id: shop.id } })).appName).toBe(shop.appName);
    await inHotTransaction(db.prisma, (hot) => hot.run(rename, ['kept', shop.id]));
    expect((await db.prisma.shop.findUniqueOrThrow({ where: { id: shop.id } })).appName).toBe('kept');
  });

  it.runIf(process.env.TEST_DATABASE_PROVIDER === 'postgresql')(
    'PostgreSQL: a hot statement is a named prepared statement, and timestamps read back in UTC whatever the zone',
    async () => {
      const shop = await createShop(db.prisma);
      const sql = `SELECT "createdAt" AS "at", "pushSafetyPollHours" AS "hours", "createOnFulfillment" AS "on" FROM "Shop" WHERE "id" = $1::text`;
      const zone = process.env.TZ;
      process.env.TZ = 'America/New_York';
      try {
        const [row] = await hotPathOf(db.prisma).rows<{ at: Date; hours: number; on: boolean }>(sql, [
          shop.id,
        ]);
        expect(row!.at).toEqual(shop.createdAt);
        expect(row!.hours).toBe(shop.pushSafetyPollHours);
        expect(row!.on).toBe(shop.createOnFulfillment);
      } finally {
        if (zone === undefined) delete process.env.TZ;
        else process.env.TZ = zone;
      }
      // Sequential queries reuse the pool's last idle connection: the statement is prepared there, by name.
      const prepared = await hotPathOf(db.prisma).rows<{ name: string; statement: string }>(
        `SELECT "name", "statement" FROM pg_prepared_statements WHERE "name" = $1::text`,
        [statementName(sql)],
      );
      expect(prepared).toEqual([{ name: statementName(sql), statement: sql }]);
      expect(statementName(sql)).toMatch(/^ts_[0-9a-f]{24}$/);
    },
  );
});

describe('updateRows', () => {
  const now = new Date('2026-11-25T10:00:00.123Z');
  let before: Date;
  beforeEach(() => {
    before = new Date();
  });

  it('sets, raises and clears columns of the rows meeting the condition, as the ORM writes them', async () => {
    const shop = await createShop(db.prisma);
    const a = await createTracker(db.prisma, shop.id, { trackingNumber: 'HOT-A' });
    const b = await createTracker(db.prisma, shop.id, { trackingNumber: 'HOT-B' });
    const c = await createTracker(db.prisma, shop.id, { trackingNumber: 'HOT-C' });
    await db.prisma.tracker.updateMany({
      where: { id: { in: [a.id, b.id] } },
      data: { leaseOwner: 'me', leaseExpiresAt: now, lastError: 'boom' },
    });
    await db.prisma.tracker.update({ where: { id: c.id }, data: { leaseOwner: 'someone else' } });

    const synced = {
      remote: 'present',
      syncState: 'synced',
      syncedAt: now,
      lastError: null,
      leaseOwner: null,
      leaseExpiresAt: null,
    };
    const written = await updateRows(db.prisma, 'Tracker', {
      ids: [a.id, b.id, c.id],
      where: { leaseOwner: 'me', desired: 'active' },
      set: synced,
      increment: { version: 1, createCalls: 2 },
    });
    expect(written.sort()).toEqual([a.id, b.id].sort());

    const rows = await db.prisma.tracker.findMany({
      where: { shopId: shop.id },
      orderBy: { trackingNumber: 'asc' },
    });
    for (const [row, was] of [
      [rows[0]!, a],
      [rows[1]!, b],
    ] as const) {
      expect(row).toMatchObject({
        ...synced,
        version: was.version + 1,
        createCalls: was.createCalls + 2,
      });
      expect(row.updatedAt.getTime()).toBeGreaterThanOrEqual(before.getTime() - 5);
    }
    // Not meeting the condition: untouched.
    expect(rows[2]).toMatchObject({ leaseOwner: 'someone else', remote: c.remote, version: c.version });
    // Ordered and compared as the ORM's own timestamps are (SQLite compares them as text).
    expect(await db.prisma.tracker.count({ where: { syncedAt: { gte: now } } })).toBe(2);
    expect(await db.prisma.tracker.count({ where: { syncedAt: { gt: now } } })).toBe(0);
    // IS NULL conditions, and no rows at all.
    expect(
      await updateRows(db.prisma, 'Tracker', {
        ids: [c.id],
        where: { leaseOwner: null },
        set: { remote: 'x' },
      }),
    ).toEqual([]);
    expect(await updateRows(db.prisma, 'Tracker', { ids: [], set: { remote: 'x' } })).toEqual([]);
  });

  it('refuses a column the table does not have', async () => {
    await expect(updateRows(db.prisma, 'Tracker', { ids: ['x'], set: { nope: 1 } as never })).rejects.toThrow(
      'Tracker has no column nope',
    );
  });
});

describe('one statement text whatever the batch size', () => {
  const awkward = ['plain', 'a "quoted" {brace}, comma', 'back\\slash', 'NULL', '', 'ünïcödé ✓', "it's"];

  it('inserts rows of every column type, in a batch of any size, as they were given (both paths)', async () => {
    const shop = await createShop(db.prisma);
    const at = new Date('2026-11-25T10:00:00.123Z');
    const row = (i: number) => ({
      id: `unnest-${i}`,
      shopId: shop.id,
      trackingNumber: `UN${i}`,
      provider: 'ups',
      orderKey: awkward[i % awkward.length]!,
      postalCode: i % 2 === 0 ? null : awkward[(i + 1) % awkward.length]!,
      desired: 'active',
      remote: 'absent',
      syncState: 'pending',
      nextAttemptAt: at,
      lastEventAt: i % 3 === 0 ? null : new Date(at.getTime() + i),
      createCalls: i,
      deliveredOnTime: i % 3 === 0 ? null : i % 2 === 0,
      updatedAt: at,
    });
    const first = Array.from({ length: 9 }, (_, i) => row(i));
    expect((await insertRows(db.prisma, 'Tracker', first)).sort()).toEqual(first.map((r) => r.id).sort());
    // Inside an ORM transaction (the statement goes through it), with a conflict skipped.
    const second = Array.from({ length: 4 }, (_, i) => row(9 + i));
    const written = await db.prisma.$transaction((tx) =>
      insertRows(tx, 'Tracker', [...second, row(0)], { skipConflictsOn: ['id'] }),
    );
    expect(written.sort()).toEqual(second.map((r) => r.id).sort());
    const stored = await db.prisma.tracker.findMany({
      where: { shopId: shop.id },
      orderBy: { createCalls: 'asc' },
    });
    expect(stored).toHaveLength(13);
    for (const [i, got] of stored.entries()) expect(got).toMatchObject(row(i));
  });

  it.runIf(process.env.TEST_DATABASE_PROVIDER === 'postgresql')(
    'PostgreSQL: inserts, outcome writes, renewals and releases of 1 to 40 rows name one text each',
    async () => {
      const shop = await createShop(db.prisma);
      const at = new Date();
      const warm = async (n: number, round: string) => {
        const rows = Array.from({ length: n }, (_, i) => ({
          id: `${round}-${n}-${i}`,
          shopDomain: shop.domain,
          topic: 'orders/cancelled',
          eventId: `${round}-${n}-${i}`,
          webhookId: `${round}-${n}-${i}`,
          payload: '{}',
          receivedAt: at,
          nextAttemptAt: at,
        }));
        await insertRows(db.prisma, 'WebhookDelivery', rows, {
          skipConflictsOn: ['shopDomain', 'topic', 'eventId'],
        });
        const trackers = await Promise.all(
          Array.from({ length: Math.min(n, 3) }, () => createTracker(db.prisma, shop.id)),
        );
        const ids = [...trackers.map((t) => t.id), ...rows.map((r) => r.id)];
        await updateRows(db.prisma, 'Tracker', { ids, set: { leaseOwner: 'w' } });
        await renewLeases(db.prisma, trackerQueue, 'w', ids, new Date(at.getTime() + 60_000));
        await releaseLeases(db.prisma, trackerQueue, 'w', ids, at);
      };
      await warm(1, 'first');
      const texts = namedTextCount();
      for (let n = 1; n <= 40; n += 3) await warm(n, 'again');
      expect(namedTextCount()).toBe(texts);
      expect(await db.prisma.webhookDelivery.count()).toBe(
        1 + [...Array(14).keys()].reduce((a, k) => a + 1 + 3 * k, 0),
      );
      expect(await db.prisma.tracker.count({ where: { leaseOwner: { not: null } } })).toBe(0);
    },
  );

  it.runIf(process.env.TEST_DATABASE_PROVIDER === 'postgresql')(
    `PostgreSQL: past ${maxNamedTexts} texts a new one runs unnamed, so prepared statements stay bounded`,
    async () => {
      for (let i = 0; namedTextCount() < maxNamedTexts; i++) statementName(`SELECT ${i} AS "filler"`);
      const sql = `SELECT $1::text || '-unnamed' AS "v"`;
      expect(statementName(sql)).toBeNull();
      expect(await hotPathOf(db.prisma).rows(sql, ['ran'])).toEqual([{ v: 'ran-unnamed' }]);
      const prepared = await hotPathOf(db.prisma).rows<{ n: string }>(
        `SELECT COUNT(*) AS "n" FROM pg_prepared_statements WHERE "statement" = $1::text`,
        [sql],
      );
      expect(prepared).toEqual([{ n: '0' }]);
      expect(namedTextCount()).toBe(maxNamedTexts);
    },
  );
});
