/**
 * The app as `npm start` runs it (src/app/main.ts, role from ROLE), with two instruments for the scale
 * bench, answered over the IPC channel (the bench forks this file):
 *
 * - statements: every SQL statement the process sends, counted where the drivers take them
 *   (node-postgres' Client#query, which every pooled query goes through, and better-sqlite3's prepare, which
 *   the SQLite adapter calls once per statement); BEGIN and COMMIT count as statements;
 * - the event loop's delay (perf_hooks.monitorEventLoopDelay, 5 ms resolution): max and p99 since the last
 *   reset.
 *
 * `{ id, reset?: boolean }` → `{ id, statements, eldMaxMs, eldP99Ms, rssBytes }`.
 */
import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
let statements = 0;

type Method = (this: unknown, ...args: unknown[]) => unknown;
function countCalls(target: { prototype: Record<string, unknown> }, method: string): void {
  const original = target.prototype[method] as Method;
  target.prototype[method] = function (this: unknown, ...args: unknown[]) {
    statements++;
    return original.apply(this, args);
  };
}

try {
  countCalls((require('pg') as { Client: { prototype: Record<string, unknown> } }).Client, 'query');
} catch {
  // not installed: nothing to count
}
try {
  countCalls(require('better-sqlite3') as { prototype: Record<string, unknown> }, 'prepare');
} catch {
  // not installed: nothing to count
}

const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();

process.on('message', (message: { id?: number; reset?: boolean }) => {
  if (typeof message?.id !== 'number') return;
  process.send?.({
    id: message.id,
    statements,
    eldMaxMs: delay.max / 1e6,
    eldP99Ms: delay.percentile(99) / 1e6,
    rssBytes: process.memoryUsage().rss,
  });
  if (message.reset) delay.reset();
});
// Not to be held open by the IPC channel once the app stops.
process.channel?.unref();

await import('../src/app/main.js');
