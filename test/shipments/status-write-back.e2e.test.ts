import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Runtime, startRuntime } from '../../src/app/runtime.js';
import { silentLogger } from '../../src/logger.js';
import { parseServiceTime, type PollPolicy } from '../../src/shipments/status.js';
import { startTestApp, TEST_ACCOUNT, TEST_SECRET, TEST_SHOP, type TestApp, waitFor } from '../helpers/app.js';
import { installShop } from '../helpers/browser.js';
import { type FakeAdminGraphql, startFakeAdminGraphql } from '../helpers/fake-admin-graphql.js';
import { numberedUpsFulfillment } from '../helpers/scenario.js';
import { deliver } from '../helpers/webhooks.js';
import { fullLifecycleStatuses, keepsEveryDetail, stepOffsetsSeconds } from './lifecycle.js';

/**
 * The whole write-back: a signed fulfilment webhook, the worker creating the tracker at the emulator,
 * reading its status as the emulator's clock moves it through its lifecycle, and writing each platform
 * status change to the (fake) store as a fulfilment event, exactly once, also across a restart.
 */

/** Read statuses as often as the worker allows (nextPollAt is at least a second away). */
const pollPolicy: PollPolicy = {
  firstPollMs: 50,
  preTransitMs: 200,
  movingMs: 200,
  outForDeliveryMs: 200,
  stalledMs: 200,
  stalledAfterMs: 30 * 24 * 3_600_000,
  giveUpAfterMs: 365 * 24 * 3_600_000,
  jitter: 0,
};
const runtimeOptions = { pollPolicy, reconciler: { firstPollMs: pollPolicy.firstPollMs } };

let app: TestApp;
let fake: FakeAdminGraphql;
let restarted: Runtime | null = null;

beforeAll(async () => {
  [app, fake] = await Promise.all([startTestApp({ runtime: runtimeOptions }), startFakeAdminGraphql()]);
  await installShop(app, TEST_SHOP);
});
afterAll(async () => {
  await restarted?.close();
  await fake?.close();
  await app?.close();
});

/** The first numbered UPS fulfilment whose tracking number keeps every status_detail at the emulator. */
function fulfillment(): { body: Record<string, unknown>; id: string; trackingNumber: string } {
  for (let n = 1; n < 10_000; n++) {
    const body = numberedUpsFulfillment(n);
    const trackingNumber = body.tracking_number as string;
    if (keepsEveryDetail(trackingNumber)) return { body, id: String(body.id), trackingNumber };
  }
  throw new Error('no tracking number found');
}

describe('status write-back, end to end', () => {
  it('one store event per platform status change, at the events’ times, and none twice after a restart', async () => {
    const prisma = app.database.prisma;
    const { body, id: fulfillmentId, trackingNumber } = fulfillment();
    fake.setFulfillments(TEST_SHOP, [fulfillmentId]);
    const creates = () =>
      fake.requests.filter((r) => r.shop === TEST_SHOP && r.operation === 'fulfillmentEventCreate');
    const statuses = () => fake.events(TEST_SHOP).map((e) => e.status);

    const sent = await deliver(app.url, {
      topic: 'fulfillments/create',
      shop: TEST_SHOP,
      body,
      secret: TEST_SECRET,
    });
    expect(sent.status).toBe(200);
    await waitFor('the tracker created at the service and read once', async () => {
      const tracker = await prisma.tracker.findFirst({ where: { trackingNumber } });
      return tracker?.remote === 'present' && tracker.status === 'pending';
    });
    expect(fake.events(TEST_SHOP)).toEqual([]);

    const steps = [
      stepOffsetsSeconds.labelCreated,
      stepOffsetsSeconds.pickedUp,
      stepOffsetsSeconds.arrivedAtFacility,
      stepOffsetsSeconds.outForDelivery,
      stepOffsetsSeconds.delivered,
    ];
    let advanced = 0;
    for (const [i, offset] of steps.entries()) {
      await app.emulator.control.advanceClock(offset - advanced);
      advanced = offset;
      await waitFor(
        `store event ${i + 1} (${fullLifecycleStatuses[i]})`,
        async () => fake.events(TEST_SHOP).length >= i + 1,
        10_000,
      );
      expect(statuses()).toEqual(fullLifecycleStatuses.slice(0, i + 1));
    }

    await waitFor('the tracker delivered, no longer polled, every event sent', async () => {
      const tracker = await prisma.tracker.findFirstOrThrow({ where: { trackingNumber } });
      const unsent = await prisma.storeFulfillmentEvent.count({ where: { state: { not: 'sent' } } });
      return tracker.status === 'delivered' && tracker.nextPollAt === null && unsent === 0;
    });

    // The store's events are the service's, at the service's times, on the webhook's fulfilment.
    const shipment = await app.runtime.context.client.getShipment(
      { apiKey: TEST_ACCOUNT.apiKey, appName: TEST_ACCOUNT.appName },
      { trackingNumber, trackingProvider: 'ups' },
    );
    if (!shipment.ok) throw new Error(shipment.error.message);
    expect(shipment.value.events).toHaveLength(5);
    const events = fake.events(TEST_SHOP);
    expect(events.map((e) => e.happenedAt)).toEqual(
      shipment.value.events.map((e) => parseServiceTime(e.datetime)!.toISOString().replace('.000Z', 'Z')),
    );
    expect(events.map((e) => e.message)).toEqual(shipment.value.events.map((e) => e.message));
    for (const e of events) expect(e.fulfillmentId).toBe(`gid://shopify/Fulfillment/${fulfillmentId}`);
    expect(creates()).toHaveLength(5);
    const rows = await prisma.storeFulfillmentEvent.findMany({ orderBy: { happenedAt: 'asc' } });
    expect(rows.map((r) => [r.status, r.state, r.storeEventId])).toEqual(
      events.map((e) => [e.status, 'sent', e.id]),
    );

    // Stop, and start again on the same database. The new process reads the whole history again (the
    // tracker made due by hand) and finds one row `sending` (as a crash right after the write leaves it).
    await app.runtime.close();
    await prisma.tracker.updateMany({ where: { trackingNumber }, data: { nextPollAt: new Date() } });
    await prisma.storeFulfillmentEvent.update({
      where: { id: rows.at(-1)!.id },
      data: { state: 'sending', leaseOwner: 'crashed-worker', leaseExpiresAt: new Date(Date.now() - 1_000) },
    });
    const restartedAt = new Date();
    restarted = await startRuntime(app.config, {
      logger: silentLogger,
      migrate: false,
      idlePollMs: 25,
      ...runtimeOptions,
    });
    await waitFor('the status read again and the `sending` row settled after the restart', async () => {
      const tracker = await prisma.tracker.findFirstOrThrow({ where: { trackingNumber } });
      const unsent = await prisma.storeFulfillmentEvent.count({ where: { state: { not: 'sent' } } });
      return tracker.statusCheckedAt! > restartedAt && tracker.nextPollAt === null && unsent === 0;
    });
    for (let i = 0; i < 3; i++) await restarted.worker!.runOnce();

    expect(statuses()).toEqual([...fullLifecycleStatuses]);
    expect(creates()).toHaveLength(5);
    expect(
      fake.requests.filter((r) => r.shop === TEST_SHOP && r.operation === 'fulfillmentEvents'),
    ).toHaveLength(1);
    expect(await prisma.storeFulfillmentEvent.count()).toBe(5);
    // The service was asked to create the tracker once.
    const createCalls = await app.emulator.control.calls({
      appName: TEST_ACCOUNT.appName,
      operation: 'create',
    });
    expect(createCalls).toHaveLength(1);
  }, 90_000);
});
