import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * SQLite in WAL mode appends every commit to the log, and the log is copied back into the database file (a
 * checkpoint, with its fsyncs) by whichever commit finds it past `wal_autocheckpoint` pages. better-sqlite3
 * is synchronous, so that commit copies on the event loop's thread: every request waiting meanwhile waits
 * for the copy (at intake, tens of milliseconds every few hundred deliveries).
 *
 * This thread does it instead: a connection of its own runs a PASSIVE checkpoint every `everyMs` (it copies
 * what no reader still needs and never waits for a reader or the writer), so the app's own commits find the
 * log short and never checkpoint themselves; `wal_autocheckpoint` stays as the backstop should this thread
 * fall behind or stop. After a complete checkpoint the next commit starts the log again from its beginning,
 * so the file stays as small as a few intervals' writes.
 */
export interface Checkpointer {
  /** Stops the thread after its current checkpoint and closes its connection. Idempotent. */
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  everyMs?: number;
  busyTimeoutMs?: number;
  /** A checkpoint's error (logged by the caller); the thread goes on. */
  onError?: (message: string) => void;
}

// CommonJS run by the thread: the driver's path comes from the main thread (the thread resolves nothing).
const threadCode = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: workerData.busyTimeoutMs });
db.pragma('synchronous = NORMAL');
let timer = null;
const pass = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
  timer = setTimeout(pass, workerData.everyMs);
};
timer = setTimeout(pass, workerData.everyMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearTimeout(timer);
  db.close();
  parentPort.close();
});
`;

export function startCheckpointer(file: string, options: CheckpointerOptions = {}): Checkpointer {
  const worker = new Worker(threadCode, {
    eval: true,
    workerData: {
      file,
      driver: betterSqlitePath(),
      everyMs: options.everyMs ?? 100,
      busyTimeoutMs: options.busyTimeoutMs ?? 5_000,
    },
  });
  // Never keeps the process alive: the app's own close stops it first.
  worker.unref();
  worker.on('message', (message: { error?: string }) => {
    if (message.error) options.onError?.(message.error);
  });
  worker.on('error', (error) => options.onError?.(error.message));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        // Kept alive until it has exited: a process whose only work left is this wait would otherwise end
        // first (an unref'd thread's exit does not hold the event loop).
        worker.ref();
        worker.postMessage('stop');
        await exited;
      })();
      return stopped;
    },
  };
}

/** better-sqlite3 as the ORM's SQLite adapter loads it (the same build of the driver). */
function betterSqlitePath(): string {
  const fromAdapter = createRequire(createRequire(import.meta.url).resolve('@prisma/adapter-better-sqlite3'));
  return fromAdapter.resolve('better-sqlite3');
}

/**
 * Copies the whole write-ahead log into the database file and empties it (TRUNCATE), for when what the log
 * holds must be gone now (a replaced secret). Only one checkpoint runs at a time: while the thread above
 * runs one, SQLite answers busy at once (its busy handler is not used for this lock), so this tries again,
 * briefly, until a checkpoint of its own has run. Returns false if the log could not be emptied.
 */
export async function truncateWal(
  db: { $queryRawUnsafe<T>(query: string): Promise<T> },
  { attempts = 200, waitMs = 10 }: { attempts?: number; waitMs?: number } = {},
): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const [result] = await db.$queryRawUnsafe<Array<{ busy: number | bigint; log: number | bigint }>>(
      'PRAGMA wal_checkpoint(TRUNCATE)',
    );
    if (result && Number(result.busy) === 0 && Number(result.log) <= 0) return true;
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
  return false;
}
