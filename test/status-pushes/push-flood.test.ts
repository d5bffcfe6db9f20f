import { randomUUID } from 'node:crypto';
import { Session } from '@shopify/shopify-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { parcelsWithProblemsOpened } from '../../src/notifications/queries/digests.js';
import {
  postStoreEvents,
  storeWritesPerWindow,
  storeWriteWindowMs,
} from '../../src/shipments/post-store-events.js';
import { sweepProblems } from '../../src/shipments/problem-sweep.js';
import { shopifyStoreAdmin } from '../../src/shopify/admin-graphql.js';
import { appScopes, createShopify } from '../../src/shopify/api.js';
import { shopifyStoreEvents } from '../../src/shopify/fulfillment-events.js';
import { PrismaSessionStorage } from '../../src/shops/session-storage.js';
import { applyStatusPushes } from '../../src/status-pushes/apply.js';
import { dedupeKeyOf, parsePush } from '../../src/status-pushes/payload.js';
import { TEST_SECRET } from '../helpers/app.js';
import { useTestDatabase } from '../helpers/database.js';
import { createTracker, testKeyring, uniqueDomain } from '../helpers/factories.js';
import { type FakeAdminGraphql, startFakeAdminGraphql } from '../helpers/fake-admin-graphql.js';

/**
 * Issue 34, break 3: 2 000 separate pushes for one parcel (each one newer event, statuses alternating
 * between "in transit" days ago and "delivered"), as whoever holds the shop's push URL and key sends them.
 * Each push is applied on its own by the worker's use case (applyStatusPushes), with the store writer
 * (postStoreEvents, against the fake Admin GraphQL API) and the problem sweep running in between as the
 * worker runs them. Before: about 1 900 store events and writes for the one fulfilment, a "stalled" problem
 * opened per flip, and a digest counting each. Now: the fulfilment's write budget and then the latest
 * status; one problem episode; one parcel in the digest.
 */

const db = useTestDatabase();
let fake: FakeAdminGraphql;
const keyring = testKeyring();

beforeAll(async () => {
  fake = await startFakeAdminGraphql();
});
afterAll(async () => {
  await fake?.close();
});

const work = (now?: () => Date) => ({
  prisma: db.prisma,
  logger: silentLogger,
  owner: 'worker-flood',
  ...(now ? { now } : {}),
});

function storeApi() {
  const shopify = createShopify({
    apiKey: 'test-api-key',
    apiSecret: TEST_SECRET,
    appUrl: 'http://127.0.0.1:3000',
    sessionStorage: new PrismaSessionStorage(db.prisma, { keyring, connectionRetries: 0 }),
  });
  return shopifyStoreEvents(shopifyStoreAdmin(shopify));
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, as the service writes its times. */
const serviceTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

describe('2 000 separate pushes for one parcel', () => {
  it('make at most 20 store writes (the rest superseded, counted), the latest status last; one problem episode; one parcel in the digest', async () => {
    const domain = uniqueDomain('push-flood');
    const shop = await db.prisma.shop.create({ data: { domain, postFulfillmentEvents: true } });
    const accessToken = `shpat_test_${randomUUID().slice(0, 8)}`;
    await new PrismaSessionStorage(db.prisma, { keyring, connectionRetries: 0 }).storeSession(
      new Session({
        id: `offline_${domain}`,
        shop: domain,
        state: 'installed',
        isOnline: false,
        scope: appScopes.join(','),
        accessToken,
      }),
    );
    fake.grantScopes(accessToken, appScopes);
    const fulfillmentId = '5500000009901';
    const start = Date.now() - 10 * 24 * 3_600_000;
    const tracker = await createTracker(db.prisma, shop.id, {
      remote: 'present',
      syncState: 'synced',
      createdAt: new Date(start - 3_600_000),
      syncedAt: new Date(start - 3_600_000),
    });
    await db.prisma.trackingLine.create({
      data: {
        shopId: shop.id,
        fulfillmentId,
        orderId: '6120000000001',
        trackingNumber: tracker.trackingNumber,
        trackerId: tracker.id,
        active: true,
      },
    });

    const count = 2_000;
    const api = storeApi();
    const totals = { applied: 0, sent: 0, superseded: 0, opened: 0, reopened: 0 };
    const status = (i: number) => (i % 2 === 0 ? 'in_transit' : 'delivered');
    const began = Date.now();
    for (let i = 0; i < count; i++) {
      // One push, one newer event (ten days ago, a second after the last), recorded as intake does.
      const at = serviceTime(start + i * 1_000);
      const payload = JSON.stringify({
        tracking_number: tracker.trackingNumber,
        tracking_provider: 'ups',
        tracking_event_status: status(i),
        last_event_time: at,
        events: [{ message: status(i), status: status(i), datetime: at }],
      });
      const parsed = parsePush(payload);
      if (!parsed.ok) throw new Error(parsed.message);
      await db.prisma.statusPush.create({
        data: { shopId: shop.id, dedupeKey: dedupeKeyOf(parsed.shipment), payload },
      });
      totals.applied += (await applyStatusPushes(work(), 10)).applied;
      // The worker's other loops, between pushes (the sweep every 7th: it sees either status).
      if (i % 10 === 9) {
        const posted = await postStoreEvents({ ...work(), api }, 50);
        totals.sent += posted.sent;
        totals.superseded += posted.superseded;
      }
      if (i % 7 === 6) {
        const swept = await sweepProblems(work(), 50);
        totals.opened += swept.opened;
        totals.reopened += swept.reopened;
      }
    }
    // An hour later the held newest goes (a pass or two: a dropped idle connection is retried).
    for (let k = 1; k <= 3; k++) {
      const later = await postStoreEvents(
        { ...work(() => new Date(Date.now() + storeWriteWindowMs + k * 10 * 60_000)), api },
        50,
      );
      totals.sent += later.sent + later.alreadyThere;
      totals.superseded += later.superseded;
    }
    const ms = Date.now() - began;

    expect(totals.applied).toBe(count);
    const written = fake.events(domain, fulfillmentId);
    expect(written.length).toBeLessThanOrEqual(20);
    expect(written).toHaveLength(storeWritesPerWindow + 1);
    expect(totals.sent).toBe(written.length);
    // Every push's change was queued; all but the written ones superseded, and counted so.
    const states = await db.prisma.storeFulfillmentEvent.groupBy({
      by: ['state'],
      where: { trackerId: tracker.id },
      _count: { _all: true },
    });
    expect(Object.fromEntries(states.map((g) => [g.state, g._count._all]))).toEqual({
      sent: written.length,
      superseded: count - written.length,
    });
    expect(totals.superseded).toBe(count - written.length);
    // The last written is the parcel's latest status.
    expect(written.at(-1)).toMatchObject({
      status: 'DELIVERED',
      happenedAt: `${serviceTime(start + (count - 1) * 1_000).replace(' ', 'T')}Z`,
    });

    // One "stalled" episode: opened once, continued with each flip.
    const problems = await db.prisma.shipmentProblem.findMany({ where: { trackerId: tracker.id } });
    expect(problems.map((p) => p.kind)).toEqual(['stalled']);
    expect(totals.opened).toBe(1);
    expect(totals.reopened).toBeGreaterThan(0);
    // The digest's count: one parcel.
    const digest = await parcelsWithProblemsOpened(
      db.prisma,
      shop.id,
      new Date(began - 60_000),
      new Date(Date.now() + 60_000),
    );
    expect(digest).toEqual({ byKind: [{ kind: 'stalled', parcels: 1 }], parcels: 1 });
    console.log(
      `${db.provider}: 2 000 pushes for one parcel → ${written.length} store writes, ${totals.superseded} superseded, ` +
        `${problems.length} problem (${totals.reopened} reopenings), in ${ms} ms`,
    );
  }, 600_000);
});
