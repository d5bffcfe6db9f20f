/**
 * The service's tracking webhook, emulated: for every new tracking event of a tracker whose account has a
 * `webhookUrl`, the shipment (the `get` operation's `data`, as it was at that event) is POSTed there with
 * the account's key in `service-api-key` and `trackship-api-key`. A push not answered 2xx is tried again
 * with backoff. Push faults (drop, duplicate, reorder, delay) come from the fault plan; every attempt is in
 * the call log as operation `push`.
 */
import type { Logger } from '../../src/logger.js';
import type { CallLogEntry } from './call-log.js';
import { shipmentData } from './operations.js';
import type { Account, EmulatorState, Tracker } from './state.js';

export interface PusherOptions {
  /** How often new events are looked for (real ms; default 100). */
  intervalMs?: number;
  /** Attempts per push before it is given up (default 6). */
  maxAttempts?: number;
  /** First retry delay; doubled each attempt (default 500 ms). */
  retryBaseMs?: number;
  /** Time allowed for one attempt (default 5 s). */
  timeoutMs?: number;
  /** A held-back (reordered) push is sent at the latest after this long (default 2 s). */
  reorderHoldMs?: number;
  logger: Logger;
}

export interface Pusher {
  stop(): Promise<void>;
}

interface Push {
  account: Account;
  body: ReturnType<typeof shipmentData>;
}

/** The service's event time (`YYYY-MM-DD HH:MM:SS`, UTC here) in epoch ms. */
function eventMs(datetime: string): number {
  return Date.parse(`${datetime.replace(' ', 'T')}Z`);
}

export function startPusher(state: EmulatorState, options: PusherOptions): Pusher {
  const intervalMs = options.intervalMs ?? 100;
  const maxAttempts = options.maxAttempts ?? 6;
  const retryBaseMs = options.retryBaseMs ?? 500;
  const timeoutMs = options.timeoutMs ?? 5_000;
  /** Events already pushed (or never to be pushed) per tracker. */
  const pushed = new Map<string, number>();
  const held = new Map<string, { push: Push; timer: NodeJS.Timeout }>();
  const inFlight = new Set<Promise<void>>();
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  let ticking = false;

  /** Waits; cut short (resolved at once) when the pusher stops. */
  const sleepers = new Set<() => void>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        timers.delete(t);
        sleepers.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      timers.add(t);
      sleepers.add(done);
    });

  const keyOf = (t: Tracker) => `${t.appName}\u0000${t.seq}`;

  function log(push: Push, status: number, fault: CallLogEntry['fault']): void {
    const url = new URL(push.account.webhookUrl ?? 'http://invalid/');
    state.calls.add({
      operation: 'push',
      method: 'POST',
      // The last path segment of a push URL is the receiver's secret token: never kept.
      path: url.pathname.replace(/[^/]+$/, '[token]'),
      body: push.body,
      httpStatus: status,
      at: new Date().toISOString(),
      appName: push.account.appName,
      fault,
    });
  }

  async function deliver(push: Push): Promise<void> {
    for (let attempt = 1; attempt <= maxAttempts && !stopped; attempt++) {
      const url = push.account.webhookUrl;
      if (!url) return;
      let status = 0;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'service-api-key': push.account.apiKey,
            'trackship-api-key': push.account.apiKey,
          },
          body: JSON.stringify(push.body),
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = res.status;
        await res.arrayBuffer().catch(() => undefined);
      } catch {
        status = 0;
      }
      log(push, status, null);
      if (status >= 200 && status < 300) return;
      if (attempt < maxAttempts) await sleep(retryBaseMs * 2 ** (attempt - 1));
    }
    options.logger.info({ appName: push.account.appName }, 'emulator: push given up');
  }

  function track(work: Promise<void>): void {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  }

  async function send(push: Push): Promise<void> {
    const delay = state.faults.get().pushDelayMs;
    if (delay > 0) await sleep(delay);
    if (stopped) return;
    await deliver(push);
  }

  /** A push with the plan's faults applied; a held-back one goes right after the account's next push. */
  function dispatch(push: Push): void {
    const fault = state.faults.decidePush();
    const appName = push.account.appName;
    if (fault === 'drop') {
      log(push, 0, 'drop');
      return;
    }
    if (fault === 'reorder' && !held.has(appName)) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        const waiting = held.get(appName);
        if (waiting?.push === push) {
          held.delete(appName);
          track(send(push));
        }
      }, options.reorderHoldMs ?? 2_000);
      timers.add(timer);
      held.set(appName, { push, timer });
      return;
    }
    // The held-back push (if any) goes right after this one: taken now, so it is sent once.
    const earlier = held.get(appName);
    if (earlier) {
      held.delete(appName);
      clearTimeout(earlier.timer);
      timers.delete(earlier.timer);
    }
    track(
      (async () => {
        await send(push);
        if (fault === 'duplicate') await send(push);
        if (earlier) await send(earlier.push);
      })(),
    );
  }

  function tick(): void {
    if (ticking || stopped) return;
    ticking = true;
    try {
      const seen = new Set<string>();
      for (const account of state.accountsWithWebhook()) {
        const since = state.webhookSinceMs(account.appName) ?? Infinity;
        for (const tracker of state.listTrackers(account.appName)) {
          const key = keyOf(tracker);
          seen.add(key);
          const events = state.snapshot(tracker).events;
          const done = pushed.get(key) ?? events.filter((e) => eventMs(e.datetime) <= since).length;
          for (let i = done; i < events.length; i++) {
            // The shipment as it was when this event happened (its time is whole seconds).
            const at = eventMs(events[i]!.datetime) + 999;
            dispatch({ account, body: shipmentData(state, tracker, at) });
          }
          pushed.set(key, Math.max(done, events.length));
        }
      }
      for (const key of pushed.keys()) if (!seen.has(key)) pushed.delete(key);
    } catch (error) {
      options.logger.error(
        { err: error instanceof Error ? error.message : String(error) },
        'emulator: push tick failed',
      );
    } finally {
      ticking = false;
    }
  }

  const interval = setInterval(tick, intervalMs);
  interval.unref();

  return {
    async stop() {
      stopped = true;
      clearInterval(interval);
      for (const wake of [...sleepers]) wake();
      for (const t of timers) clearTimeout(t);
      timers.clear();
      held.clear();
      await Promise.allSettled([...inFlight]);
    },
  };
}
