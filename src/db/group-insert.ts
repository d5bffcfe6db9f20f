/**
 * Group commit for one kind of row: rows arriving while a write is in flight wait for the next one, and
 * each write is one multi-row `INSERT … ON CONFLICT DO NOTHING RETURNING id` (insertRows) for all of them.
 * Every caller still gets its answer only after its own row is committed (or known to collide with one
 * already there); under load many requests share one statement and one commit instead of queueing for
 * one each. Used by webhook intake and by status-push intake.
 */

export interface GroupInsert<Row extends { id: string }> {
  /** Resolves true once the row is committed, false when it collided on the table's duplicate key. */
  insert(row: Row): Promise<boolean>;
}

/** At most this many rows per statement; the rest wait for the next write. */
const maxBatch = 200;

interface Waiting<Row> {
  row: Row;
  resolve(written: boolean): void;
  reject(error: unknown): void;
}

/** `write` inserts the rows and answers the ids of those actually written (the others collided). */
export function groupInsert<Row extends { id: string }>(
  write: (rows: Row[]) => Promise<string[]>,
): GroupInsert<Row> {
  let queue: Waiting<Row>[] = [];
  let writing = false;
  let scheduled = false;

  async function drain(): Promise<void> {
    writing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.slice(0, maxBatch);
        queue = queue.slice(batch.length);
        await writeBatch(batch);
      }
    } finally {
      writing = false;
    }
  }

  async function writeBatch(batch: Waiting<Row>[]): Promise<void> {
    let written: Set<string>;
    try {
      written = new Set(await write(batch.map((w) => w.row)));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      // One bad row must not fail its neighbours: write them one by one, each with its own answer.
      for (const w of batch) await writeBatch([w]);
      return;
    }
    // A row not written collided on the duplicate key: with an earlier row, or with one of this batch
    // (the first of them is written).
    for (const w of batch) w.resolve(written.has(w.row.id));
  }

  return {
    insert(row) {
      return new Promise<boolean>((resolve, reject) => {
        queue.push({ row, resolve, reject });
        // The first write waits for the end of this turn of the event loop, so every request already
        // read from the sockets joins it; later ones join whichever write comes next.
        if (!writing && !scheduled) {
          scheduled = true;
          setImmediate(() => {
            scheduled = false;
            void drain();
          });
        }
      });
    },
  };
}
