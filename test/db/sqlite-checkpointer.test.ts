import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type Database, SQLITE_WAL_CHECKPOINT_PAGES } from '../../src/db/client.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { startCheckpointer, truncateWal } from '../../src/db/sqlite-checkpointer.js';

/** SQLite's checkpoints on a thread of their own (src/db/sqlite-checkpointer.ts). */
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tracksync-checkpointer-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const size = async (file: string) => (await stat(file).catch(() => ({ size: 0 }))).size;

/** 20 deliveries of `bytes` of payload each, in one commit. */
async function writeDeliveries(db: Database, prefix: string, bytes: number): Promise<void> {
  await db.prisma.webhookDelivery.createMany({
    data: Array.from({ length: 20 }, (_, j) => ({
      shopDomain: 'checkpoint.myshopify.com',
      topic: 'orders/cancelled',
      eventId: `${prefix}-${j}`,
      webhookId: `${prefix}-${j}`,
      payload: 'x'.repeat(bytes),
    })),
  });
}

describe('the SQLite checkpointer', () => {
  it('copies the log into the database file while the app’s own commits never reach their checkpoint', async () => {
    const file = path.join(dir, 'app.db');
    await applyMigrations(`file:${file}`);
    const db = await createDatabase(`file:${file}`);
    try {
      const before = await size(file);
      // About 2 MB of rows: far below the commits' own checkpoint (10 000 pages, 40 MB), so without the thread
      // the database file would not grow at all (new pages live in the log until a checkpoint).
      for (let i = 0; i < 40; i++) {
        await writeDeliveries(db, `e-${i}`, 2_500);
      }
      expect(2_000_000 / 4096).toBeLessThan(SQLITE_WAL_CHECKPOINT_PAGES);
      let grown = 0;
      for (let tries = 0; tries < 50 && grown < 1_500_000; tries++) {
        await sleep(100);
        grown = (await size(file)) - before;
      }
      expect(grown).toBeGreaterThan(1_500_000);
      expect(await db.prisma.webhookDelivery.count()).toBe(800);
    } finally {
      await db.close();
      await db.close(); // idempotent, the thread stopped once
    }
  });

  it('a thread that could not start is reported once, and stopping it does not wait for it', async () => {
    const errors: string[] = [];
    const checkpointer = startCheckpointer(path.join(dir, 'no', 'such', 'folder', 'app.db'), {
      onError: (message) => errors.push(message),
    });
    for (let tries = 0; tries < 100 && errors.length < 1; tries++) await sleep(20);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/directory|open/i);
    await checkpointer.stop();
  });

  it('empties the log on demand even while the thread checkpoints without pause (it answers busy meanwhile)', async () => {
    const file = path.join(dir, 'app.db');
    await applyMigrations(`file:${file}`);
    const db = await createDatabase(`file:${file}`);
    // A second thread checkpointing every millisecond: the on-demand checkpoint finds the lock taken often.
    const busy = startCheckpointer(file, { everyMs: 1 });
    try {
      for (let round = 0; round < 20; round++) {
        await writeDeliveries(db, `t-${round}`, 2_000);
        expect(await truncateWal(db.prisma)).toBe(true);
        expect(await size(`${file}-wal`)).toBe(0);
      }
    } finally {
      await busy.stop();
      await db.close();
    }
  });

  it('says so when the log could not be emptied in its attempts', async () => {
    const answers = [{ busy: 1, log: 12, checkpointed: 3 }];
    const fake = { $queryRawUnsafe: async <T>() => answers as T };
    expect(await truncateWal(fake, { attempts: 3, waitMs: 1 })).toBe(false);
    answers[0] = { busy: 0, log: 0, checkpointed: 0 };
    expect(await truncateWal(fake, { attempts: 3, waitMs: 1 })).toBe(true);
  });
});
