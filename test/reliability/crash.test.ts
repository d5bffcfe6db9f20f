import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildAppEnv, killChildApps } from '../helpers/child-app.js';
import { defaultTestProvider, useTestDatabase } from '../helpers/database.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { type FakeAdminGraphql, startFakeAdminGraphql } from '../helpers/fake-admin-graphql.js';
import { burstConcurrency, sizes } from './config.js';
import {
  callsByKey,
  confirmationCalls,
  connectShop,
  describeConfirmations,
  deliverUntilAcked,
  describeProgress,
  forEachConcurrently,
  freePort,
  isAck,
  keyOf,
  killHard,
  maxLength,
  missingFrom,
  planFulfillmentDeliveries,
  type PostOutcome,
  postDelivery,
  progressOf,
  remoteKeys,
  seconds,
  startAppProcess,
  storedDeliveries,
  tallyFailures,
  trackerRows,
  waitUntil,
  waitSettled,
  wantedTrackers,
  withFigures,
} from './harness.js';

/**
 * kill -9 of the app (`--role all`, a real process) in the middle of a burst of distinct signed
 * fulfilments/create deliveries, then a restart at the same address. The platform's side (this process)
 * keeps what it was told: a 2xx means the delivery is stored, durably, whatever happens next; everything
 * else is sent again after the restart. In the end every delivery is stored once and has become its
 * trackers at the service (or a recorded failure), and no tracker was ever created twice — even those whose
 * create was in flight when the process died.
 */

const provider = defaultTestProvider();
/** The app's lease (WORKER_LEASE_MS default): work leased by the dead process waits at most this long. */
const deadLeaseMs = 15_000;
/** Every acknowledged delivery's trackers are at the service within this long after the restart. */
const recoveryBudgetMs = 45_000;
/** Added to every create until the kill, so that some are in flight when it comes. */
const burstCreateLatencyMs = 100;
/** Once half are acknowledged, how long the kill may wait for a moment with creates in flight. */
const killWaitForCreatesMs = 15_000;
/** Requests still sent while it waits (the rest of the burst goes on after the kill). */
const lanesWhileArmed = 4;

const database = useTestDatabase({ provider });
let emulator: TestEmulator;
/** The store's Admin API: the app confirms each new fulfilment with it (children: FAKE_STORE_URL). */
let store: FakeAdminGraphql;
let env: ChildAppEnv;
let port: number;
let encryptionKey: string;

beforeAll(async () => {
  emulator = await startTestEmulator({ accounts: [] });
  store = await startFakeAdminGraphql();
  encryptionKey = `t1:${randomBytes(32).toString('base64')}`;
  port = await freePort();
  env = {
    DATABASE_URL: database.url,
    TRACKING_API_BASE_URL: emulator.baseUrl,
    ENCRYPTION_KEY: encryptionKey,
    FAKE_STORE_URL: store.baseUrl,
  };
});

afterAll(async () => {
  await killChildApps();
  await store?.close();
  await emulator?.close();
});

describe(`kill -9 mid-burst (${provider})`, () => {
  it('every acknowledged delivery is stored and becomes its trackers; no create is ever sent twice', () =>
    withFigures(`kill -9 mid-burst — ${provider}`, async (figures) => {
      const total = sizes.crashDeliveries;
      // At most 3 trackers per delivery: the account's balance never runs out.
      const shop = await connectShop(database.prisma, encryptionKey, emulator.control, {
        name: 'crash',
        balance: total * 3 + 100,
      });
      const planned = planFulfillmentDeliveries({ count: total, shopDomain: shop.domain });
      const wanted = wantedTrackers(planned);
      figures.set('deliveries sent', total);
      figures.set('trackers wanted', wanted.size);

      // 1. The burst, with the app killed once about half the deliveries are acknowledged — at a moment
      //    when creates are in flight (rows carry the write-ahead mark), waited for at most
      //    killWaitForCreatesMs with only a few requests still going out. Creates take a little longer to
      //    answer until then (latency, no error), so the kill finds them carried out by the service with
      //    their answers never read.
      await emulator.control.setFaults({ latencyMs: burstCreateLatencyMs, operations: ['create'] });
      figures.set('create latency until the kill', `${burstCreateLatencyMs} ms (no faults)`);
      const first = await startAppProcess('all', env, port);
      const killAfter = Math.ceil(total / 2);
      const firstOutcomes: PostOutcome[] = new Array<PostOutcome>(total);
      let acked = 0;
      let ackedAtKill = 0;
      let killAt = 0;
      let killing: Promise<void> | null = null;
      let killed: () => void = () => {};
      const afterKill = new Promise<void>((resolve) => (killed = resolve));
      const killWhenCreatesInFlight = async () => {
        const inFlight = () =>
          database.prisma.tracker.count({
            where: { shopId: shop.id, remote: 'unknown', leaseOwner: { not: null } },
          });
        try {
          await waitUntil('creates in flight', async () => (await inFlight()) > 0, {
            timeoutMs: killWaitForCreatesMs,
            intervalMs: 10,
          }).catch(() => undefined);
          // The mark is written just before the creates go out: let them reach the service first.
          await sleep(burstCreateLatencyMs / 2);
        } finally {
          ackedAtKill = acked;
          killAt = Date.now();
          killing = killHard(first.child);
          killed();
        }
      };
      let arming: Promise<void> | null = null;
      await forEachConcurrently(planned, burstConcurrency, async (delivery, index, lane) => {
        // While the kill waits for creates in flight, all but a few lanes hold back.
        if (arming !== null && killing === null && lane >= lanesWhileArmed) await afterKill;
        const outcome = await postDelivery(first.url!, delivery);
        firstOutcomes[index] = outcome;
        if (isAck(outcome)) acked++;
        if (acked >= killAfter && arming === null) arming = killWhenCreatesInFlight();
      });
      await arming;
      expect(killing, 'the app was killed during the burst').not.toBeNull();
      await killing;
      expect(await first.child.exited).toEqual({ code: null, signal: 'SIGKILL' });
      await emulator.control.setFaults({});
      // Rows the dead process left mid-create (write-ahead mark, its lease): resolved by a get after restart.
      const midCreate = new Set(
        (
          await database.prisma.tracker.findMany({
            where: { shopId: shop.id, remote: 'unknown' },
            select: { trackingNumber: true, provider: true },
          })
        ).map((r) => keyOf(r.trackingNumber, r.provider)),
      );
      figures.set('killed (SIGKILL)', `at the ${ackedAtKill}th 2xx, ${midCreate.size} trackers mid-create`);

      const ackedBeforeKill = planned.filter((_, i) => isAck(firstOutcomes[i]!));
      const notAcked = planned.filter((_, i) => !isAck(firstOutcomes[i]!));
      figures.set('acknowledged (2xx) before the kill', ackedBeforeKill.length);
      figures.set('no 2xx before the kill', `${notAcked.length} (${tallyFailures(firstOutcomes)})`);

      // 2. Durability, before anything is sent again: every delivery that got a 2xx is in the database.
      const storedAfterKill = new Set((await storedDeliveries(database.prisma, shop)).map((d) => d.eventId));
      const lostAcks = ackedBeforeKill.filter((d) => !storedAfterKill.has(d.eventId));
      const storedUnacked = notAcked.filter((d) => storedAfterKill.has(d.eventId)).length;
      figures.set('  of which stored anyway', `${storedUnacked} (answer lost in the kill)`);
      figures.set('acknowledged but not stored', lostAcks.length);
      figures.set('at the kill', describeProgress(await progressOf(database.prisma, shop)));
      expect(
        lostAcks.map((d) => d.eventId).slice(0, 10),
        `${lostAcks.length} acknowledged deliveries missing`,
      ).toEqual([]);

      // 3. Restart at the same address; the platform re-sends whatever it got no 2xx for.
      const restartAt = Date.now();
      const second = await startAppProcess('all', env, port);
      // Watched while the rest is re-sent: when is the last tracker of an acknowledged delivery there?
      const ackedWanted = [...wantedTrackers(ackedBeforeKill).keys()];
      const ackedRecovered = (async () => {
        while (Date.now() - restartAt < recoveryBudgetMs + 120_000) {
          const remote = await remoteKeys(emulator.control, shop.appName);
          if (missingFrom(ackedWanted, remote, 1).length === 0) return Date.now() - restartAt;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        return null;
      })();
      const resendOutcomes: PostOutcome[][] = [];
      await forEachConcurrently(notAcked, burstConcurrency, async (delivery) => {
        resendOutcomes.push(await deliverUntilAcked(second.url!, delivery));
      });
      const resendFinal = resendOutcomes.map((o) => o[o.length - 1]!);
      const stillUnacked = resendFinal.filter((o) => !isAck(o));
      const resendDuplicates = resendFinal.filter((o) => o.answered && o.duplicate === true).length;
      figures.set('re-sent after the restart', `${notAcked.length} (${resendDuplicates} answered duplicate)`);
      figures.set('acknowledged (2xx) in all', total - stillUnacked.length);
      expect(stillUnacked.length, `re-sends never acknowledged: ${tallyFailures(stillUnacked)}`).toBe(0);

      // 4. Everything settles (the dead process's leases run out first; nothing here shortens them).
      const settleStarted = Date.now();
      await waitSettled(database.prisma, shop, {
        deliveries: total,
        timeoutMs: deadLeaseMs + 120_000 + wanted.size * 40,
        children: [second.child],
      });
      const settleMs = Date.now() - settleStarted;

      // 5. What the database holds, the service holds, and the service was asked.
      const stored = await storedDeliveries(database.prisma, shop);
      const unprocessed = stored.filter((d) => d.state !== 'processed' || d.error !== null);
      const rows = await trackerRows(database.prisma, shop);
      const rowKeys = new Set(rows.map((r) => keyOf(r.trackingNumber, r.provider)));
      const synced = rows.filter((r) => r.syncState === 'synced' && r.remote === 'present');
      const failures = rows.filter((r) => r.syncState === 'failed' || r.syncState === 'dead');
      const remote = await remoteKeys(emulator.control, shop.appName);
      const creates = await callsByKey(emulator.control, shop.appName, 'create');
      const gets = await callsByKey(emulator.control, shop.appName, 'get');
      // Mid-create rows whose create had reached the service before the kill: carried out, answer lost.
      const answerLost = [...midCreate].filter((key) => {
        const first = creates.byKey.get(key)?.[0];
        return first !== undefined && Date.parse(first.at) < killAt;
      }).length;
      const repeated = [...creates.byKey.entries()].filter(([, calls]) => calls.length !== 1);
      figures.set('stored', `${stored.length} (${stored.length - unprocessed.length} processed)`);
      figures.set('tracker rows', `${rows.length} (${synced.length} synced)`);
      figures.set('trackers at the emulator', remote.size);
      figures.set('create calls', `${creates.calls.length} (max per tracker ${maxLength(creates.byKey)})`);
      figures.set('  of them created before the kill (answer lost)', answerLost);
      figures.set('get calls (look-ups of unknown outcomes)', gets.calls.length);
      figures.set('failures (failed/dead)', failures.length);
      figures.set('store calls (fulfilment confirmations)', describeConfirmations(store, shop, total));
      figures.set('settled after the restart in', seconds(settleMs));
      const recoveredMs = await ackedRecovered;
      figures.set(
        'acknowledged before the kill: every tracker at the service after the restart in',
        recoveredMs === null ? 'never' : seconds(recoveredMs),
      );

      // One row per delivery, all processed.
      expect(stored).toHaveLength(total);
      expect(new Set(stored.map((d) => d.eventId))).toEqual(new Set(planned.map((d) => d.eventId)));
      expect(unprocessed.slice(0, 5), `${unprocessed.length} deliveries not processed`).toEqual([]);
      // One tracker row per wanted tracker: at the service, or a failure recorded with its reason — and
      // with no faults injected, no failure at all.
      expect(rows).toHaveLength(wanted.size);
      expect(missingFrom(wanted.keys(), rowKeys)).toEqual([]);
      expect(failures.filter((r) => !r.lastErrorReason)).toEqual([]);
      expect(
        failures.slice(0, 5).map((r) => `${r.trackingNumber}: ${r.syncState} ${r.lastErrorReason}`),
        `${failures.length} failures`,
      ).toEqual([]);
      expect(synced).toHaveLength(wanted.size);
      expect(missingFrom(wanted.keys(), remote)).toEqual([]);
      expect(remote.size).toBe(wanted.size);
      // Exactly one create call per (tracking number, provider), including those in flight at the kill.
      expect(
        repeated.slice(0, 5).map(([key, calls]) => `${key}: ${calls.length} creates`),
        `${repeated.length} trackers with more than one create call`,
      ).toEqual([]);
      expect(missingFrom(creates.byKey.keys(), new Set(wanted.keys()))).toEqual([]);
      expect(creates.calls).toHaveLength(wanted.size);
      // Every fulfilment was new to the app: each was confirmed with the store before it was applied.
      expect(confirmationCalls(store, shop).distinct).toBe(total);
      // Recovery in seconds: the dead process's leases ran out and its work was taken over.
      expect(recoveredMs, 'trackers of acknowledged deliveries still missing').not.toBeNull();
      expect(recoveredMs!).toBeLessThanOrEqual(recoveryBudgetMs);
    }));
});
