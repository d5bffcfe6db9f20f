import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeWritesPerWindow } from '../../src/shipments/post-store-events.js';
import { maxStoreEventsPerRead } from '../../src/shipments/read-bounds.js';
import { ensurePushToken } from '../../src/status-pushes/token.js';
import { startTestApp, type TestApp, waitFor } from '../helpers/app.js';
import { installShop } from '../helpers/browser.js';
import { type FakeAdminGraphql, startFakeAdminGraphql } from '../helpers/fake-admin-graphql.js';
import { addShop, numberedUpsFulfillment, type ScenarioShop } from '../helpers/scenario.js';

/**
 * Reads cannot rewrite history (issue 21): whoever holds a shop's push URL and service key, or a faulty
 * service, sends pushes that once queued a store call per event, froze a parcel with a far-future date, or
 * turned a delivered parcel back into "in transit" with a push at the same instant. Each is posted here as
 * the attacker did, straight to the push URL, and applied by the app's own worker.
 */

let app: TestApp;
let fake: FakeAdminGraphql;
let n = 900;

beforeAll(async () => {
  [app, fake] = await Promise.all([startTestApp({ connect: false }), startFakeAdminGraphql()]);
});
afterAll(async () => {
  await fake?.close();
  await app?.close();
});

const prisma = () => app.database.prisma;

interface Target {
  shop: ScenarioShop;
  url: string;
  trackingNumber: string;
  fulfillmentId: string;
  trackerId: string;
}

/** A shop with one parcel followed at the emulator (no push registered there: the test posts its own). */
async function target(name: string): Promise<Target> {
  const shop = await addShop(app, name);
  await installShop(app, shop.domain);
  const body = numberedUpsFulfillment(++n);
  await shop.send('fulfillments/create', body);
  await shop.settled();
  const tracker = await prisma().tracker.findFirstOrThrow({ where: { shopId: shop.id } });
  expect(tracker.remote).toBe('present');
  return {
    shop,
    url: `${app.url}/status-webhooks/${await ensurePushToken(prisma(), shop.id)}`,
    trackingNumber: body.tracking_number as string,
    fulfillmentId: String(body.id),
    trackerId: tracker.id,
  };
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, as the service writes its times. */
const serviceTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
/** The same instant written with a zone offset of +05:30. */
const inKolkata = (ms: number) => `${serviceTime(ms + 330 * 60_000)}+05:30`;

const event = (status: string, datetime: string, statusDetail?: string) => ({
  message: statusDetail ?? status,
  status,
  ...(statusDetail ? { status_detail: statusDetail } : {}),
  datetime,
});

/** Posts a push with the shop's key and waits until the worker has applied (or set aside) it. */
async function push(t: Target, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(t.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'service-api-key': t.shop.apiKey },
    body: JSON.stringify({ tracking_number: t.trackingNumber, ...body }),
  });
  expect(res.status).toBe(200);
  let state = 'pending';
  await waitFor(
    'the push applied',
    async () => {
      const rows = await prisma().statusPush.findMany({ where: { shopId: t.shop.id, state: 'pending' } });
      if (rows.length > 0) return false;
      const last = await prisma().statusPush.findFirstOrThrow({
        where: { shopId: t.shop.id },
        orderBy: { receivedAt: 'desc' },
      });
      state = last.state;
      return true;
    },
    15_000,
  );
  return state;
}

const tracker = (t: Target) => prisma().tracker.findUniqueOrThrow({ where: { id: t.trackerId } });
const queued = (t: Target) =>
  prisma().storeFulfillmentEvent.findMany({
    where: { trackerId: t.trackerId },
    orderBy: { happenedAt: 'asc' },
  });

const hour = 3_600_000;

describe('a hostile or faulty push cannot rewrite a parcel’s history', () => {
  it('a 1 MiB push of 13 436 alternating events queues a handful of store events, not one per event', async () => {
    const t = await target('push-flood');
    const count = 13_436;
    const start = Date.now() - 2 * hour - count * 1_000;
    const events = Array.from({ length: count }, (_, i) => ({
      message: '',
      status: i % 2 === 0 ? 'in_transit' : 'delivered',
      datetime: serviceTime(start + i * 1_000),
    }));
    const body = {
      tracking_event_status: 'delivered',
      last_event_time: events.at(-1)!.datetime,
      events,
    };
    expect(JSON.stringify(body).length).toBeLessThan(1024 * 1024);

    const began = Date.now();
    expect(await push(t, body)).toBe('applied');
    const rows = await queued(t);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThanOrEqual(maxStoreEventsPerRead);
    // The newest changes are the ones kept, the last one the parcel's status now.
    expect(rows.at(-1)).toMatchObject({ status: 'DELIVERED' });
    expect(rows.at(-1)!.happenedAt.getTime()).toBe(Date.parse(`${events.at(-1)!.datetime}Z`));
    await waitFor('the store written', async () => (await queued(t)).every((r) => r.state === 'sent'));
    console.log(`13 436-event push → ${rows.length} store events, written in ${Date.now() - began} ms`);
    expect(fake.events(t.shop.domain, t.fulfillmentId).length).toBe(rows.length);

    // The same body again (not a duplicate by content: one event fewer) queues nothing more.
    expect(await push(t, { ...body, events: events.slice(1) })).toBe('applied');
    expect(await queued(t)).toHaveLength(rows.length);
  });

  it('300 separate pushes for one parcel through the push URL: the fulfilment’s write budget, the rest superseded, the latest status kept for the store', async () => {
    const t = await target('push-many');
    const count = 300;
    const start = Date.now() - 10 * 24 * hour;
    const status = (i: number) => (i % 2 === 0 ? 'in_transit' : 'delivered');
    const began = Date.now();
    for (let i = 0; i < count; i++) {
      const at = serviceTime(start + i * 1_000);
      const res = await fetch(t.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-api-key': t.shop.apiKey },
        body: JSON.stringify({
          tracking_number: t.trackingNumber,
          tracking_event_status: status(i),
          last_event_time: at,
          events: [event(status(i), at)],
        }),
      });
      expect(res.status).toBe(200);
    }
    await waitFor(
      'every push applied',
      async () => (await prisma().statusPush.count({ where: { shopId: t.shop.id, state: 'pending' } })) === 0,
      60_000,
    );
    // Settled: each queued change written, superseded, or held for a free write (an hour on).
    await waitFor(
      'the store writes settled',
      async () =>
        (await queued(t)).every(
          (r) =>
            r.state === 'sent' ||
            r.state === 'superseded' ||
            (r.state === 'pending' && r.nextAttemptAt.getTime() > Date.now() + 30 * 60_000),
        ),
      60_000,
    );
    const rows = await queued(t);
    const by = (state: string) => rows.filter((r) => r.state === state);
    const written = fake.events(t.shop.domain, t.fulfillmentId);
    console.log(
      `300 pushes through the push URL → ${rows.length} store events queued, ${written.length} written, ` +
        `${by('superseded').length} superseded, ${by('pending').length} held, in ${Date.now() - began} ms`,
    );
    expect(written.length).toBeLessThanOrEqual(storeWritesPerWindow);
    expect(by('sent')).toHaveLength(written.length);
    expect(by('superseded').length + by('sent').length + by('pending').length).toBe(rows.length);
    expect(by('pending').length).toBeLessThanOrEqual(1);
    // The latest change is never the one superseded: written, or held to be written when a write is free.
    const latest = rows.at(-1)!;
    expect(latest.happenedAt.getTime()).toBe(Date.parse(`${serviceTime(start + (count - 1) * 1_000)}Z`));
    expect(['sent', 'pending']).toContain(latest.state);
    // The parcel itself shows the latest status.
    expect((await tracker(t)).status).toBe(status(count - 1));
  }, 120_000);

  it('a push dated 9999-12-31 does not freeze the parcel: its far-future event is dropped, a later real push applies', async () => {
    const t = await target('push-future');
    const now = Date.now();
    const labelled = event('pre_transit', serviceTime(now - 3 * hour), 'label_created');
    const pickedUp = event('in_transit', serviceTime(now - 2 * hour), 'picked_up');
    const outAt = now - hour;

    expect(
      await push(t, {
        tracking_event_status: 'delivered',
        last_event_time: '9999-12-31 23:59:59',
        events: [labelled, pickedUp, event('delivered', '9999-12-31 23:59:59', 'delivered')],
      }),
    ).toBe('applied');
    let row = await tracker(t);
    // The rest of the read is applied, its status the newest event kept.
    expect(row.status).toBe('in_transit');
    expect(row.lastEventAt?.getTime()).toBe(Date.parse(`${pickedUp.datetime}Z`));
    expect(row.nextPollAt).not.toBeNull();
    expect((await queued(t)).map((r) => r.status)).toEqual(['LABEL_PRINTED', 'CARRIER_PICKED_UP']);

    // A push whose every event is far ahead is set aside whole.
    expect(
      await push(t, {
        tracking_event_status: 'delivered',
        last_event_time: '9999-12-31 23:59:58',
        events: [event('delivered', '9999-12-31 23:59:58', 'delivered')],
      }),
    ).toBe('stale');

    expect(
      await push(t, {
        tracking_event_status: 'in_transit',
        last_event_time: serviceTime(outAt),
        events: [labelled, pickedUp, event('in_transit', serviceTime(outAt), 'out_for_delivery')],
      }),
    ).toBe('applied');
    row = await tracker(t);
    expect(row).toMatchObject({ status: 'in_transit', statusDetail: 'out_for_delivery' });
    expect(row.lastEventAt?.getTime()).toBe(Date.parse(`${serviceTime(outAt)}Z`));
    expect((await queued(t)).map((r) => r.status)).toEqual([
      'LABEL_PRINTED',
      'CARRIER_PICKED_UP',
      'OUT_FOR_DELIVERY',
    ]);
  });

  it.each([
    ['written the same way', serviceTime],
    ['written in another time zone', inKolkata],
  ])(
    'a push at the same instant as “delivered” with another status (%s) does not undo it',
    async (_, spell) => {
      const t = await target('push-tie');
      const now = Date.now();
      const at = now - hour;
      const history = [
        event('pre_transit', serviceTime(now - 3 * hour), 'label_created'),
        event('in_transit', serviceTime(now - 2 * hour), 'picked_up'),
      ];
      expect(
        await push(t, {
          tracking_event_status: 'delivered',
          last_event_time: serviceTime(at),
          events: [...history, event('delivered', serviceTime(at), 'delivered')],
        }),
      ).toBe('applied');
      expect(await tracker(t)).toMatchObject({ status: 'delivered', nextPollAt: null });
      const before = (await queued(t)).map((r) => r.status);
      expect(before.at(-1)).toBe('DELIVERED');

      expect(
        await push(t, {
          tracking_event_status: 'in_transit',
          last_event_time: spell(at),
          events: [...history, event('in_transit', spell(at), 'arrived_at_facility')],
        }),
      ).toBe('stale');
      const row = await tracker(t);
      expect(row).toMatchObject({ status: 'delivered', statusDetail: 'delivered', nextPollAt: null });
      expect(row.lastEventAt?.getTime()).toBe(at - (at % 1_000));
      // Nor is "in transit" at that instant written to the store after "delivered".
      expect((await queued(t)).map((r) => r.status)).toEqual(before);
    },
  );
});
