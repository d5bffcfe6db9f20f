import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../helpers/database.js';
import { directSqliteOf } from '../../src/db/client.js';

/**
 * SQLite has one connection per client, shared by the web route, the worker's loops and their
 * transactions. A write made outside a transaction while another caller's transaction is open must not
 * join that transaction (and vanish with its rollback). Prisma's client keeps them apart; these tests keep
 * that true (an intake insert answered 200 must never be rolled back by a worker's failed transaction).
 * Always run on SQLite.
 */
describe('one SQLite connection shared by concurrent callers', () => {
  const db = useTestDatabase({ provider: 'sqlite' });

  it('a write made while another transaction is open survives that transaction’s rollback', async () => {
    let inside!: () => void;
    const transactionOpen = new Promise<void>((resolve) => (inside = resolve));
    const failing = db.prisma
      .$transaction(async (tx) => {
        await tx.appState.create({ data: { key: 'in-tx', value: 'x' } });
        inside();
        // Give the outside write every chance to run while this transaction is open.
        await new Promise((resolve) => setTimeout(resolve, 100));
        await tx.appState.create({ data: { key: 'in-tx-2', value: 'x' } });
        throw new Error('roll back');
      })
      .catch((error: unknown) => error);
    await transactionOpen;
    const outside = db.prisma.appState.create({ data: { key: 'outside', value: 'kept' } });
    expect(await failing).toBeInstanceOf(Error);
    await outside;
    const keys = (await db.prisma.appState.findMany({ orderBy: { key: 'asc' } })).map((r) => r.key);
    expect(keys).toEqual(['outside']);
  });

  it('many writers and transactions interleaved: every committed write is there, no rolled-back one', async () => {
    await db.prisma.appState.deleteMany();
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 30; i++) {
      work.push(db.prisma.appState.create({ data: { key: `plain-${i}`, value: 'v' } }));
      work.push(
        db.prisma
          .$transaction(async (tx) => {
            await tx.appState.create({ data: { key: `tx-${i}`, value: 'v' } });
            await new Promise((resolve) => setTimeout(resolve, 1));
            if (i % 3 === 0) throw new Error('roll back');
          })
          .catch(() => undefined),
      );
    }
    await Promise.all(work);
    const keys = new Set((await db.prisma.appState.findMany()).map((r) => r.key));
    for (let i = 0; i < 30; i++) {
      expect(keys.has(`plain-${i}`)).toBe(true);
      expect(keys.has(`tx-${i}`)).toBe(i % 3 !== 0);
    }
  });

  it('the hot inserts straight on the connection wait for an open transaction: never rolled back with it', async () => {
    await db.prisma.appState.deleteMany();
    const direct = directSqliteOf(db.prisma);
    expect(direct).not.toBeNull();
    const insert = (key: string) =>
      direct!.rows<{ key: string }>(
        'INSERT INTO "AppState" ("key", "value", "updatedAt") VALUES (?, ?, ?) RETURNING "key"',
        [key, 'direct', new Date().toISOString()],
      );
    for (let i = 0; i < 10; i++) {
      let inside!: () => void;
      const open = new Promise<void>((resolve) => (inside = resolve));
      const transaction = db.prisma
        .$transaction(async (tx) => {
          await tx.appState.create({ data: { key: `tx-${i}`, value: 'v' } });
          inside();
          await new Promise((resolve) => setTimeout(resolve, 20));
          if (i % 2 === 0) throw new Error('roll back');
        })
        .catch(() => undefined);
      await open;
      // Sent while the transaction is open: it waits, then runs on its own.
      const written = insert(`direct-${i}`);
      await transaction;
      expect(await written).toEqual([{ key: `direct-${i}` }]);
    }
    const keys = new Set((await db.prisma.appState.findMany()).map((r) => r.key));
    for (let i = 0; i < 10; i++) {
      expect(keys.has(`direct-${i}`), `direct-${i}`).toBe(true);
      expect(keys.has(`tx-${i}`)).toBe(i % 2 !== 0);
    }
    // Inside a transaction there is no direct path: its statements stay in it.
    await db.prisma.$transaction(async (tx) => expect(directSqliteOf(tx)).toBeNull());
  });
});
