import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Runtime, startRuntime } from '../../src/app/runtime.js';
import { silentLogger } from '../../src/logger.js';
import { TEST_ACCOUNT, type TestApp, testConfig, waitFor } from '../helpers/app.js';
import { type ChildAppEnv, explainWith, killChildApps, startChildApp } from '../helpers/child-app.js';
import { useTestDatabase } from '../helpers/database.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { addShop, countByNumber, numberedUpsFulfillment, numbersOf } from '../helpers/scenario.js';
import { fixture } from '../helpers/webhooks.js';
import { type FakeAdminGraphql, startFakeAdminGraphql } from '../helpers/fake-admin-graphql.js';

/**
 * The worker as a real process, killed where it hurts: after the service acted on a create but before the
 * worker wrote down the answer. The write-ahead mark (remote 'unknown') makes the next worker look the
 * tracker up instead of creating it again. And a SIGTERM mid-work finishes the calls in flight, gives the
 * rest back and exits 0.
 *
 * Deliveries reach the database through the web role, in this process (the same database, the same
 * encryption key); the worker children get only environment variables, as in production.
 */

const database = useTestDatabase();
let emulator: TestEmulator;
let store: FakeAdminGraphql;
let web: Runtime;
let app: TestApp;
let env: ChildAppEnv;

beforeAll(async () => {
  emulator = await startTestEmulator({ accounts: [{ ...TEST_ACCOUNT, https: true }] });
  store = await startFakeAdminGraphql();
  const encryptionKey = `t1:${randomBytes(32).toString('base64')}`;
  const config = testConfig(database.url, emulator.baseUrl, { role: 'web', encryptionKey });
  web = await startRuntime(config, { logger: silentLogger, migrate: false });
  app = {
    runtime: web,
    url: web.url!,
    emulator,
    database,
    config,
    store,
    close: async () => {},
  };
  env = {
    DATABASE_URL: database.url,
    TRACKING_API_BASE_URL: emulator.baseUrl,
    ENCRYPTION_KEY: encryptionKey,
    LOG_LEVEL: process.env.E2E_CHILD_LOG_LEVEL ?? 'silent',
    FAKE_STORE_URL: store.baseUrl,
  };
});

afterAll(async () => {
  await killChildApps();
  await web?.close();
  await store?.close();
  await emulator?.close();
});

describe('a worker killed between the service’s answer and the database write', () => {
  it(
    'the next worker resolves the tracker with a get: one tracker, exactly one create',
    { timeout: 60_000 },
    async () => {
      const shop = await addShop(app, 'crash');
      // The service acts on the create at once, then never answers (the answer is "lost in flight").
      await emulator.control.setFaults({ timeoutRate: 1, applyBeforeFault: true, operations: ['create'] });
      await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));

      const first = startChildApp('worker', env);
      await explainWith(
        first,
        waitFor(
          'the create call at the service',
          async () => (await shop.calls('create')).length === 1,
          30_000,
        ),
      );
      // The service holds the tracker; the worker is still waiting for the answer (client timeout 10 s).
      expect(await shop.remote()).toHaveLength(1);
      const [inFlight] = await shop.rows();
      expect(inFlight).toMatchObject({ remote: 'unknown', syncState: 'pending', createCalls: 0 });
      expect(inFlight!.leaseOwner).not.toBeNull();

      first.process.kill('SIGKILL');
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
      const [orphan] = await shop.rows();
      // Nothing was written after the call: the write-ahead mark and the dead worker's lease remain.
      expect(orphan).toMatchObject({
        remote: 'unknown',
        syncState: 'pending',
        leaseOwner: inFlight!.leaseOwner,
      });

      await emulator.control.setFaults({});
      const second = startChildApp('worker', env);
      // The second worker is up and working (it syncs another shop's fulfilment) but leaves the leased row alone.
      const other = await addShop(app, 'crash-bystander');
      await other.send('fulfillments/create', fixture('fulfillments-create.ups'));
      await explainWith(
        second,
        waitFor('the second worker at work', async () => (await other.remote()).length === 1, 30_000),
      );
      expect(await shop.calls()).toHaveLength(1);
      expect((await shop.rows())[0]).toMatchObject({ remote: 'unknown', leaseOwner: inFlight!.leaseOwner });

      // The dead worker's lease runs out (moved into the past instead of waiting its 120 s).
      await database.prisma.tracker.update({
        where: { id: orphan!.id },
        data: { leaseExpiresAt: new Date(Date.now() - 1_000) },
      });
      await explainWith(
        second,
        waitFor('the second worker to resolve the tracker', async () => {
          const [row] = await shop.rows();
          return row?.syncState === 'synced';
        }),
      );

      const [resolved] = await shop.rows();
      expect(resolved).toMatchObject({
        remote: 'present',
        syncState: 'synced',
        leaseOwner: null,
        lastError: null,
      });
      expect(await shop.remote()).toEqual([
        expect.objectContaining({ tracking_number: '1Z999AA10123456784', tracking_provider: 'ups' }),
      ]);
      const creates = await shop.calls('create');
      const gets = await shop.calls('get');
      expect(creates).toHaveLength(1);
      expect(gets.length).toBeGreaterThanOrEqual(1);
      expect(gets[0]).toMatchObject({
        httpStatus: 200,
        body: { tracking_number: '1Z999AA10123456784', tracking_provider: 'ups' },
      });
      expect(Date.parse(gets[0]!.at)).toBeGreaterThan(Date.parse(creates[0]!.at));
      console.info(`crash: 1 tracker, ${creates.length} create call, ${gets.length} get call(s)`);

      second.process.kill('SIGTERM');
      expect(await second.exited).toEqual({ code: 0, signal: null });
    },
  );
});

describe('a worker stopped with SIGTERM mid-work', () => {
  it(
    'finishes the calls in flight, releases every lease, exits 0 promptly',
    { timeout: 60_000 },
    async () => {
      const shop = await addShop(app, 'sigterm');
      const total = 20;
      const numbers: string[] = [];
      for (let n = 0; n < total; n++) {
        const body = numberedUpsFulfillment(n);
        numbers.push(body.tracking_number as string);
        expect((await shop.send('fulfillments/create', body)).status).toBe(200);
      }
      numbers.sort();
      // Each create takes 1.5 s to answer: a stop always finds calls in flight.
      await emulator.control.setFaults({ latencyMs: 1_500, operations: ['create'] });

      const worker = startChildApp('worker', { ...env, WORKER_CONCURRENCY: '4' });
      await explainWith(
        worker,
        waitFor('the first creates answered', async () => (await shop.calls('create')).length >= 1, 30_000),
      );
      // The worker sends the next creates as soon as slots free up; stop it half a second into their 1.5 s.
      await sleep(500);
      const answeredAtStop = (await shop.calls('create')).length;
      const started = Date.now();
      worker.process.kill('SIGTERM');
      const exit = await worker.exited;
      const stopMs = Date.now() - started;
      expect(exit, worker.output()).toEqual({ code: 0, signal: null });
      expect(stopMs).toBeLessThan(5_000);
      // It waited for the calls in flight rather than abandoning them.
      const answeredAfterStop = (await shop.calls('create')).length;
      expect(answeredAfterStop).toBeGreaterThan(answeredAtStop);

      const leasedTrackers = await database.prisma.tracker.count({ where: { leaseOwner: { not: null } } });
      const leasedDeliveries = await database.prisma.webhookDelivery.count({
        where: { leaseOwner: { not: null } },
      });
      expect(leasedTrackers).toBe(0);
      expect(leasedDeliveries).toBe(0);

      // What the database says matches the service: every call in flight was recorded, nothing left unknown.
      const rows = await shop.rows();
      expect(rows).toHaveLength(total);
      expect(rows.filter((r) => r.remote === 'unknown')).toEqual([]);
      const present = rows.filter((r) => r.remote === 'present').map((r) => r.trackingNumber);
      const createdBeforeStop = numbersOf(await shop.remote());
      expect(present.sort()).toEqual(createdBeforeStop);
      expect(createdBeforeStop.length).toBeGreaterThanOrEqual(1);
      expect(createdBeforeStop.length).toBeLessThan(total);
      console.info(
        `sigterm: stopped in ${stopMs} ms; ${answeredAtStop} creates answered before the signal, ` +
          `${answeredAfterStop - answeredAtStop} in flight finished after it, ${createdBeforeStop.length}/${total} created`,
      );

      // Another worker finishes the rest, without creating anything twice.
      await emulator.control.setFaults({});
      const next = startChildApp('worker', env);
      await explainWith(
        next,
        waitFor('the rest created', async () => (await shop.remote()).length === total, 30_000),
      );
      await shop.settled();
      expect(numbersOf(await shop.remote())).toEqual(numbers);
      const creates = await shop.calls('create');
      expect(creates).toHaveLength(total);
      expect([...countByNumber(creates).values()].every((n) => n === 1)).toBe(true);
      next.process.kill('SIGTERM');
      expect(await next.exited).toEqual({ code: 0, signal: null });
    },
  );
});
