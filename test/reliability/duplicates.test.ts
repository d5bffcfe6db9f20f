import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildAppEnv, killChildApps } from '../helpers/child-app.js';
import { useTestDatabase } from '../helpers/database.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { type FakeAdminGraphql, startFakeAdminGraphql } from '../helpers/fake-admin-graphql.js';
import { burstConcurrency, sizes } from './config.js';
import {
  type AppProcess,
  callsByKey,
  confirmationCalls,
  connectShop,
  describeConfirmations,
  describeProgress,
  deliverUntilAcked,
  forEachConcurrently,
  freePort,
  isAck,
  keyOf,
  maxLength,
  missingFrom,
  planFulfillmentDeliveries,
  type PostOutcome,
  progressOf,
  remoteKeys,
  startAppProcess,
  storedDeliveries,
  tallyFailures,
  trackerRows,
  waitSettled,
  waitUntil,
  wantedTrackers,
  withFigures,
} from './harness.js';

/**
 * At-least-once delivery at scale, on PostgreSQL, with the deployment split in processes: one web process
 * and two workers (`--role web`, `--role worker` ×2) sharing the database. Every delivery arrives three
 * times at once, then once more after it was processed. Each event is stored once, becomes one tracker row
 * per tracking number, and each tracker gets exactly one create call however the two workers interleave.
 */

const database = useTestDatabase({ provider: 'postgresql' });
let emulator: TestEmulator;
/** The store's Admin API: the workers confirm each new fulfilment with it (FAKE_STORE_URL). */
let store: FakeAdminGraphql;
let env: ChildAppEnv;
let encryptionKey: string;
let web: AppProcess;
let workers: AppProcess[];

beforeAll(async () => {
  emulator = await startTestEmulator({ accounts: [] });
  store = await startFakeAdminGraphql();
  encryptionKey = `t1:${randomBytes(32).toString('base64')}`;
  env = {
    DATABASE_URL: database.url,
    TRACKING_API_BASE_URL: emulator.baseUrl,
    ENCRYPTION_KEY: encryptionKey,
    FAKE_STORE_URL: store.baseUrl,
  };
  web = await startAppProcess('web', env, await freePort());
  workers = [await startAppProcess('worker', env), await startAppProcess('worker', env)];
});

afterAll(async () => {
  await killChildApps();
  await store?.close();
  await emulator?.close();
});

describe('duplicate storm: 1 web + 2 worker processes on PostgreSQL', () => {
  it('each delivery 3× at once and once later: one row per event, one tracker row, one create each', () =>
    withFigures('duplicate storm — postgresql, 1 web + 2 workers', async (figures) => {
      const total = sizes.duplicateDeliveries;
      const shop = await connectShop(database.prisma, encryptionKey, emulator.control, {
        name: 'dupes',
        balance: total * 3 + 100,
      });
      const planned = planFulfillmentDeliveries({ count: total, shopDomain: shop.domain });
      const wanted = wantedTrackers(planned);
      const children = [web.child, ...workers.map((w) => w.child)];
      figures.set('deliveries (distinct events)', total);
      figures.set('trackers wanted', wanted.size);

      // 1. Three copies of each delivery at the same moment (the same bytes, webhook id and event id); a
      //    copy that gets no 2xx is sent again, as the platform would.
      const perEvent = new Map<string, PostOutcome[][]>();
      await forEachConcurrently(planned, Math.ceil(burstConcurrency / 3), async (delivery) => {
        perEvent.set(
          delivery.eventId,
          await Promise.all([0, 1, 2].map(() => deliverUntilAcked(web.url!, delivery))),
        );
      });
      const firstCopies = [...perEvent.values()].flat();
      const firstFinal = firstCopies.map((o) => o[o.length - 1]!);
      const firstAttempts = firstCopies.flat();
      const takenAsNew = (outcomes: PostOutcome[]) =>
        outcomes.filter((o) => isAck(o) && o.answered && o.duplicate === false).length;
      const takenAsDuplicate = (outcomes: PostOutcome[]) =>
        outcomes.filter((o) => isAck(o) && o.answered && o.duplicate === true).length;
      const notOnce = [...perEvent.entries()].filter(([, copies]) => takenAsNew(copies.flat()) !== 1);
      figures.set(
        '3 copies at once',
        `${firstAttempts.length} requests; 2xx ${firstFinal.filter(isAck).length}: ` +
          `new ${takenAsNew(firstAttempts)}, duplicate ${takenAsDuplicate(firstAttempts)}; ` +
          `no 2xx (re-sent): ${tallyFailures(firstAttempts)}`,
      );
      expect(firstFinal.filter((o) => !isAck(o)).length, tallyFailures(firstFinal)).toBe(0);
      // Of each event's copies exactly one was taken as new; every other 2xx said duplicate.
      expect(
        notOnce.slice(0, 5).map(([id, copies]) => `${id}: ${takenAsNew(copies.flat())} answered as new`),
        `${notOnce.length} events not taken as new exactly once`,
      ).toEqual([]);
      expect(takenAsDuplicate(firstAttempts)).toBe(firstFinal.length - total);

      // 2. Once every delivery is processed (its body pruned), each is delivered once more.
      await waitUntil(
        'every delivery processed',
        async () => {
          const p = await progressOf(database.prisma, shop);
          return p.deliveries.total === total && p.deliveries.pending === 0;
        },
        {
          timeoutMs: 60_000 + total * 100,
          intervalMs: 500,
          describe: async () => describeProgress(await progressOf(database.prisma, shop)),
        },
      );
      const laterCopies: PostOutcome[][] = [];
      await forEachConcurrently(planned, burstConcurrency, async (delivery) => {
        laterCopies.push(await deliverUntilAcked(web.url!, delivery));
      });
      const laterFinal = laterCopies.map((o) => o[o.length - 1]!);
      const laterAttempts = laterCopies.flat();
      figures.set(
        '1 copy later',
        `${laterAttempts.length} requests; 2xx ${laterFinal.filter(isAck).length}: ` +
          `new ${takenAsNew(laterAttempts)}, duplicate ${takenAsDuplicate(laterAttempts)}; ` +
          `no 2xx (re-sent): ${tallyFailures(laterAttempts)}`,
      );
      figures.set(
        'acknowledged (2xx) in all',
        `${[...firstFinal, ...laterFinal].filter(isAck).length} of ${4 * total} copies`,
      );
      expect(laterFinal.filter((o) => !isAck(o)).length, tallyFailures(laterFinal)).toBe(0);
      expect(takenAsNew(laterAttempts)).toBe(0);

      await waitSettled(database.prisma, shop, {
        deliveries: total,
        timeoutMs: 120_000 + wanted.size * 40,
        children,
      });

      const stored = await storedDeliveries(database.prisma, shop);
      const unprocessed = stored.filter((d) => d.state !== 'processed' || d.error !== null);
      const rows = await trackerRows(database.prisma, shop);
      const synced = rows.filter((r) => r.syncState === 'synced' && r.remote === 'present');
      const failures = rows.filter((r) => r.syncState === 'failed' || r.syncState === 'dead');
      const remote = await remoteKeys(emulator.control, shop.appName);
      const creates = await callsByKey(emulator.control, shop.appName, 'create');
      const gets = await callsByKey(emulator.control, shop.appName, 'get');
      const repeated = [...creates.byKey.entries()].filter(([, calls]) => calls.length !== 1);
      figures.set(
        'stored',
        `${stored.length} (processed ${stored.length - unprocessed.length}; ` +
          `processed more than once ${stored.filter((d) => d.attempts !== 1).length})`,
      );
      figures.set('tracker rows', `${rows.length} (${synced.length} synced)`);
      figures.set('trackers at the emulator', remote.size);
      figures.set('create calls', `${creates.calls.length} (max per tracker ${maxLength(creates.byKey)})`);
      figures.set('get calls', gets.calls.length);
      figures.set('failures (failed/dead)', failures.length);
      figures.set('store calls (fulfilment confirmations)', describeConfirmations(store, shop, total));

      // Every process still up.
      expect(children.filter((c) => !c.running()).map((c) => c.output().slice(-2000))).toEqual([]);
      // One row per event, processed.
      expect(stored).toHaveLength(total);
      expect(new Set(stored.map((d) => d.eventId))).toEqual(new Set(planned.map((d) => d.eventId)));
      expect(unprocessed.slice(0, 5)).toEqual([]);
      // One tracker row per tracker, synced, created once; the service holds each and got one create each.
      expect(rows).toHaveLength(wanted.size);
      expect(
        missingFrom(wanted.keys(), new Set(rows.map((r) => keyOf(r.trackingNumber, r.provider)))),
      ).toEqual([]);
      expect(failures.map((r) => `${r.trackingNumber}: ${r.syncState} ${r.lastErrorReason}`)).toEqual([]);
      expect(synced).toHaveLength(wanted.size);
      expect(rows.filter((r) => r.createCalls !== 1).slice(0, 5)).toEqual([]);
      expect(remote.size).toBe(wanted.size);
      expect(missingFrom(wanted.keys(), remote)).toEqual([]);
      expect(repeated.slice(0, 5).map(([key, calls]) => `${key}: ${calls.length} creates`)).toEqual([]);
      expect(creates.calls).toHaveLength(wanted.size);
      // Each fulfilment confirmed with the store before it was applied; the later copies found it known.
      expect(confirmationCalls(store, shop).distinct).toBe(total);
    }));
});
