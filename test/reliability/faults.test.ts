import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Runtime, startRuntime } from '../../src/app/runtime.js';
import { silentLogger } from '../../src/logger.js';
import type { BackoffPolicy } from '../../src/lib/backoff.js';
import { defaultRetryPolicy } from '../../src/tracking/request.js';
import { testConfig } from '../helpers/app.js';
import { defaultTestProvider, useTestDatabase } from '../helpers/database.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { type FakeAdminGraphql, startFakeAdminGraphql } from '../helpers/fake-admin-graphql.js';
import { burstConcurrency, sizes } from './config.js';
import {
  callsByKey,
  confirmationCalls,
  connectShop,
  describeConfirmations,
  type FaultedCall,
  forEachConcurrently,
  isAck,
  keyOf,
  maxLength,
  missingFrom,
  planFulfillmentDeliveries,
  type PostOutcome,
  postDelivery,
  remoteKeys,
  storedDeliveries,
  tallyFailures,
  trackerRows,
  waitSettled,
  wantedTrackers,
  withFigures,
} from './harness.js';

/**
 * The tracking service misbehaves while a burst of fulfilments is synced: 30 % of calls answered 500, some
 * never answered (timeouts), some reset, every answer delayed. `applyBeforeFault` is switched on and off
 * throughout, so some faulted creates were carried out by the service before the fault hid the answer and
 * others were not. In the end every tracker exists, none is dead-lettered, no tracker got more create calls
 * than its backoff policy allows attempts, and none was created again after a create that worked.
 *
 * The app runs in this process (startRuntime): its backoff and client timeout can only be shortened through
 * RuntimeOptions — src/config.ts reads no variable for them — so a child process would retry on the
 * production schedule (base 2 s, cap 30 min, 10 attempts, 10 s timeouts).
 */

const provider = defaultTestProvider();

const faults = { errorRate: 0.3, timeoutRate: 0.05, resetRate: 0.05, latencyMs: 10 };
/** Chance that one call is faulted (500, timeout or reset; no 429s, so a create is never repeated by the client). */
const faultedShare = faults.errorRate + faults.timeoutRate + faults.resetRate;
/**
 * One reconciler attempt fails at most when its look-up `get` fails every client attempt (the client repeats a
 * get on transient faults, up to defaultRetryPolicy.maxAttempts) or its create is faulted: q ≤ p³ + p.
 */
const attemptFailure = faultedShare ** defaultRetryPolicy.maxAttempts + faultedShare;

/** Attempts such that any one of `trackers` is dead-lettered with probability under 1e-6: n·q^M < 1e-6. */
function maxAttemptsFor(trackers: number): number {
  return Math.ceil(Math.log(1e-6 / trackers) / Math.log(attemptFailure));
}

const clientTimeoutMs = 1_000;

const database = useTestDatabase({ provider });
let emulator: TestEmulator;
/** The store's Admin API (this process's, as the app runs here): it confirms each new fulfilment. */
let store: FakeAdminGraphql;
let runtime: Runtime;
let encryptionKey: string;
let backoff: BackoffPolicy;
/** Every delivery has 1–3 tracking numbers: at most this many trackers. */
const maxTrackers = sizes.faultDeliveries * 3;

beforeAll(async () => {
  emulator = await startTestEmulator({ accounts: [] });
  store = await startFakeAdminGraphql();
  const config = testConfig(database.url, emulator.baseUrl, { role: 'all', workerConcurrency: 16 });
  encryptionKey = config.encryptionKey;
  backoff = { baseDelayMs: 50, maxDelayMs: 1_000, maxAttempts: maxAttemptsFor(maxTrackers) };
  runtime = await startRuntime(config, {
    logger: silentLogger,
    migrate: false,
    idlePollMs: 25,
    clientTimeoutMs,
    reconciler: { backoff },
  });
});

afterAll(async () => {
  await runtime?.close();
  await store?.close();
  await emulator?.close();
});

/** Switches applyBeforeFault on and off every `everyMs` until stopped; resolves with how many times. */
function flipApplyBeforeFault(everyMs: number): { stop(): Promise<number> } {
  let running = true;
  let flips = 0;
  const loop = (async () => {
    let apply = true;
    while (running) {
      await sleep(everyMs);
      if (!running) break;
      try {
        const response = await fetch(`${emulator.url}/_emulator/faults`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ applyBeforeFault: !apply }),
          signal: AbortSignal.timeout(10_000),
        });
        await response.text();
        if (response.ok) {
          apply = !apply;
          flips++;
        }
      } catch {
        // The next turn tries again; the flips are only there to mix both kinds of lost create.
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return flips;
    },
  };
}

describe(`service faults (${provider})`, () => {
  it('500s, timeouts, resets, latency, applyBeforeFault: every tracker created, retries bounded, none dead', () =>
    withFigures(`service faults — ${provider}`, async (figures) => {
      const total = sizes.faultDeliveries;
      const shop = await connectShop(database.prisma, encryptionKey, emulator.control, {
        name: 'faults',
        balance: maxTrackers + 100,
      });
      const planned = planFulfillmentDeliveries({ count: total, shopDomain: shop.domain });
      const wanted = wantedTrackers(planned);
      figures.set(
        'faults',
        `500 ${faults.errorRate}, timeout ${faults.timeoutRate}, reset ${faults.resetRate}, ` +
          `latency ${faults.latencyMs} ms, applyBeforeFault switched on/off every 250 ms`,
      );
      figures.set(
        'policy',
        `backoff base ${backoff.baseDelayMs} ms, cap ${backoff.maxDelayMs} ms, maxAttempts ` +
          `${backoff.maxAttempts} (P(any dead) < 1e-6 at q = ${attemptFailure.toFixed(3)}); ` +
          `client timeout ${clientTimeoutMs} ms`,
      );
      figures.set('deliveries sent', total);
      figures.set('trackers wanted', wanted.size);

      await emulator.control.setFaults({ ...faults, applyBeforeFault: true });
      const flipper = flipApplyBeforeFault(250);
      const outcomes: PostOutcome[] = [];
      try {
        // Intake never calls the service: every delivery is acknowledged whatever the service does.
        await forEachConcurrently(planned, burstConcurrency, async (delivery) => {
          outcomes.push(await postDelivery(runtime.url!, delivery));
        });
        figures.set(
          'acknowledged (2xx)',
          `${outcomes.filter(isAck).length} (no 2xx: ${tallyFailures(outcomes)})`,
        );
        expect(outcomes.filter((o) => !isAck(o)).length, tallyFailures(outcomes)).toBe(0);
        await waitSettled(database.prisma, shop, {
          deliveries: total,
          timeoutMs: 180_000 + wanted.size * 100,
        });
      } finally {
        figures.set('applyBeforeFault switched', `${await flipper.stop()}×`);
        await emulator.control.setFaults({});
      }

      const stored = await storedDeliveries(database.prisma, shop);
      const rows = await trackerRows(database.prisma, shop);
      const synced = rows.filter((r) => r.syncState === 'synced' && r.remote === 'present');
      const failures = rows.filter((r) => r.syncState === 'failed' || r.syncState === 'dead');
      const remote = await remoteKeys(emulator.control, shop.appName);
      const creates = await callsByKey(emulator.control, shop.appName, 'create');
      const gets = await callsByKey(emulator.control, shop.appName, 'get');
      const answered = (c: FaultedCall) => c.fault === null && c.httpStatus === 200;
      const faultedCreates = creates.calls.filter((c) => c.fault !== null).length;
      // Lost creates the service had carried out: no create of the tracker was answered normally, yet it
      // exists (a get found it). Lost creates it had not: the tracker was created again later.
      const appliedThenLost = [...creates.byKey.values()].filter((calls) => !calls.some(answered)).length;
      const createdAgain = [...creates.byKey.values()].filter((calls) => calls.length > 1).length;
      figures.set(
        'stored',
        `${stored.length} (${stored.filter((d) => d.state === 'processed').length} processed)`,
      );
      figures.set('tracker rows', `${rows.length} (${synced.length} synced)`);
      figures.set('trackers at the emulator', remote.size);
      figures.set('create calls', `${creates.calls.length} (${faultedCreates} faulted)`);
      figures.set('  lost, but carried out (found by get)', appliedThenLost);
      figures.set('  lost and not carried out (created again)', createdAgain);
      figures.set(
        'create calls per tracker',
        `max ${maxLength(creates.byKey)} (bound ${backoff.maxAttempts})`,
      );
      figures.set(
        'get calls',
        `${gets.calls.length} (${gets.calls.filter((c) => c.fault !== null).length} faulted)`,
      );
      figures.set('failures (failed/dead)', failures.length);
      figures.set('store calls (fulfilment confirmations)', describeConfirmations(store, shop, total));

      expect(stored).toHaveLength(total);
      expect(stored.filter((d) => d.state !== 'processed')).toEqual([]);
      // The store was asked about every fulfilment (the faults are the tracking service's, not the store's).
      expect(confirmationCalls(store, shop).distinct).toBe(total);

      // Nothing dead-lettered or failed: every fault here is transient, and the policy allows enough attempts.
      expect(rows).toHaveLength(wanted.size);
      expect(
        failures.slice(0, 5).map((r) => `${r.trackingNumber}: ${r.syncState} ${r.lastErrorReason}`),
        `${failures.length} trackers failed or dead`,
      ).toEqual([]);
      expect(synced).toHaveLength(wanted.size);

      // Every tracker at the service.
      expect(missingFrom(wanted.keys(), remote)).toEqual([]);
      expect(remote.size).toBe(wanted.size);

      // Create calls per tracker: at least one, at most one per reconciler attempt (the client never repeats
      // a create after a 500, timeout or reset, and no 429 is injected), so at most backoff.maxAttempts.
      expect(missingFrom(wanted.keys(), new Set(creates.byKey.keys()))).toEqual([]);
      const overBound = [...creates.byKey.entries()].filter(
        ([, calls]) => calls.length > backoff.maxAttempts,
      );
      expect(overBound.map(([key, calls]) => `${key}: ${calls.length}`)).toEqual([]);

      // No create after one the service answered normally (that would create a tracker known to exist), and
      // the app counted exactly the create calls the service saw.
      const afterSuccess = [...creates.byKey.entries()].filter(([, calls]) => {
        const first = calls.findIndex(answered);
        return first !== -1 && first !== calls.length - 1;
      });
      expect(afterSuccess.slice(0, 5).map(([key]) => key)).toEqual([]);
      const rowCreateCalls = new Map(rows.map((r) => [keyOf(r.trackingNumber, r.provider), r.createCalls]));
      const miscounted = [...creates.byKey.entries()].filter(
        ([key, calls]) => rowCreateCalls.get(key) !== calls.length,
      );
      expect(
        miscounted
          .slice(0, 5)
          .map(([key, calls]) => `${key}: app ${rowCreateCalls.get(key)}, service ${calls.length}`),
      ).toEqual([]);

      // The faults did happen, and some faulted creates had been carried out by the service.
      expect(faultedCreates).toBeGreaterThan(0);
      expect(appliedThenLost, 'faulted creates carried out by the service').toBeGreaterThan(0);
      expect(gets.calls.length).toBeGreaterThan(0);
    }));
});
