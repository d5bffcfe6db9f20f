import type { StoreLinksApi } from '../../src/shipments/tracking-links.js';
import type { ApiQueueWork } from '../../src/db/lease-queue.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import {
  queueLinksForSetting,
  sendTrackingLinks,
  storeTrackingUrl,
} from '../../src/shipments/tracking-links.js';
import { shopifyStoreAdmin } from '../../src/shopify/admin-graphql.js';
import { createShopify } from '../../src/shopify/api.js';
import { changeShopSettings } from '../../src/shipments/shop-settings.js';
import { shopifyStoreLinks } from '../../src/shopify/tracking-info.js';
import { PrismaSessionStorage } from '../../src/shops/session-storage.js';
import { parseKeyring } from '../../src/shops/crypto.js';
import { startTestApp, TEST_SECRET, type TestApp, waitFor } from '../helpers/app.js';
import { installShop } from '../helpers/browser.js';
import { type FakeAdminGraphql, startFakeAdminGraphql } from '../helpers/fake-admin-graphql.js';
import { addShop, type ScenarioShop } from '../helpers/scenario.js';
import { fixture } from '../helpers/webhooks.js';

/**
 * "Send customers to the store's tracking page": with the setting on, every tracked fulfilment's links
 * are set to the store's page through the (fake) store Admin API's fulfillmentTrackingInfoUpdate; turned
 * off, the carrier's links come back. The app's own worker does the writing; failures are driven through
 * sendTrackingLinks directly with a clock ahead.
 */

let app: TestApp;
let fake: FakeAdminGraphql;
let shop: ScenarioShop;

const ups = { id: '5521012345678', number: '1Z999AA10123456784' };
const upsCarrierUrl = 'https://www.ups.com/track?tracknum=1Z999AA10123456784';
const dhl = { id: '5521012345690', numbers: ['1234567890', '1234567891'] };
const dhlUrl = (n: string) => `https://www.dhl.com/en/express/tracking.html?AWB=${n}`;

beforeAll(async () => {
  [app, fake] = await Promise.all([startTestApp({ connect: false }), startFakeAdminGraphql()]);
  shop = await addShop(app, 'links');
  await installShop(app, shop.domain);
  await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));
  await shop.send('fulfillments/create', fixture('fulfillments-create.dhl-two-parcels'));
  await shop.deliveriesDone();
});
afterAll(async () => {
  await fake?.close();
  await app?.close();
});

const prisma = () => app.database.prisma;
const setting = (on: boolean) => changeShopSettings(prisma(), shop.id, { linkToTrackingPage: on });
const updates = () =>
  fake.requests.filter((r) => r.shop === shop.domain && r.operation === 'fulfillmentTrackingInfoUpdate');
const linksSettled = () =>
  waitFor('tracking links written', async () => {
    const open = await prisma().storeTrackingLink.count({
      where: { shopId: shop.id, state: 'pending' },
    });
    return open === 0;
  });

/** The store side as another app process builds it, for driving passes by hand. */
function linkDeps(overrides: Partial<ApiQueueWork<StoreLinksApi>> = {}): ApiQueueWork<StoreLinksApi> {
  const shopify = createShopify({
    apiKey: 'test-api-key',
    apiSecret: TEST_SECRET,
    appUrl: 'http://127.0.0.1:3000',
    sessionStorage: new PrismaSessionStorage(prisma(), {
      keyring: parseKeyring(app.config.encryptionKey),
      connectionRetries: 0,
    }),
  });
  return {
    prisma: prisma(),
    api: shopifyStoreLinks(shopifyStoreAdmin(shopify)),
    logger: silentLogger,
    owner: 'by-hand',
    ...overrides,
  };
}

describe('the tracking-page links setting', () => {
  it('off by default: nothing is written to the store', async () => {
    expect(app.runtime.context.shops).toBeDefined();
    const row = await prisma().shop.findUniqueOrThrow({ where: { id: shop.id } });
    expect(row.linkToTrackingPage).toBe(false);
    expect(await prisma().storeTrackingLink.count({ where: { shopId: shop.id } })).toBe(0);
    expect(updates()).toHaveLength(0);
  });

  it('on: each tracked fulfilment links to the store’s page, numbers and company kept, no customer email', async () => {
    await setting(true);
    await linksSettled();
    expect(fake.trackingInfo(shop.domain, ups.id)).toMatchObject({
      company: 'UPS',
      numbers: [ups.number],
      urls: [`https://${shop.domain}/apps/track?tracking=${ups.number}`],
      notifyCustomer: false,
    });
    expect(fake.trackingInfo(shop.domain, dhl.id)).toMatchObject({
      company: 'DHL Express',
      numbers: dhl.numbers,
      urls: dhl.numbers.map((n) => storeTrackingUrl(shop.domain, n)),
      notifyCustomer: false,
    });
    expect(updates()).toHaveLength(2);
    const rows = await prisma().storeTrackingLink.findMany({ where: { shopId: shop.id } });
    expect(rows.map((r) => [r.state, r.applied, r.error])).toEqual([
      ['sent', 'store', null],
      ['sent', 'store', null],
    ]);
  });

  it('the store’s own update echoing those links queues nothing and keeps the carrier’s link', async () => {
    const echo = {
      ...fixture('fulfillments-create.ups'),
      updated_at: '2026-11-18T11:00:00-05:00',
      tracking_url: storeTrackingUrl(shop.domain, ups.number),
      tracking_urls: [storeTrackingUrl(shop.domain, ups.number)],
    };
    await shop.send('fulfillments/update', echo);
    await shop.deliveriesDone();
    const line = await prisma().trackingLine.findFirstOrThrow({
      where: { shopId: shop.id, trackingNumber: ups.number },
    });
    expect(line.trackingUrl).toBe(upsCarrierUrl);
    expect(await prisma().storeTrackingLink.count({ where: { shopId: shop.id, state: 'pending' } })).toBe(0);
    expect(updates()).toHaveLength(2);
  });

  it('a new fulfilment, and a corrected number, get the store’s links while the setting is on', async () => {
    // Sent together, so that one worker pass usually holds both (a seen fulfilment beside a first-seen one).
    await Promise.all([
      shop.send('fulfillments/update', fixture('fulfillments-update.tracking-corrected')),
      shop.send('fulfillments/create', fixture('fulfillments-create.postnl-needs-postcode')),
    ]);
    await shop.deliveriesDone();
    await linksSettled();
    expect(fake.trackingInfo(shop.domain, dhl.id)?.urls).toEqual([
      storeTrackingUrl(shop.domain, '1234567890'),
      storeTrackingUrl(shop.domain, '1234567899'),
    ]);
    expect(fake.trackingInfo(shop.domain, '5521012345700')).toMatchObject({
      numbers: ['3SABCD0123456'],
      urls: [storeTrackingUrl(shop.domain, '3SABCD0123456')],
    });
  });

  it('off: the carrier’s links come back (none given where the store sent none); off again writes nothing', async () => {
    await setting(false);
    await linksSettled();
    expect(fake.trackingInfo(shop.domain, ups.id)).toMatchObject({
      numbers: [ups.number],
      urls: [upsCarrierUrl],
      company: 'UPS',
    });
    expect(fake.trackingInfo(shop.domain, dhl.id)?.urls).toEqual([
      dhlUrl('1234567890'),
      dhlUrl('1234567899'),
    ]);
    // PostNL came without links: the store is given none, and makes its own where it knows the carrier.
    expect(fake.trackingInfo(shop.domain, '5521012345700')).toMatchObject({ urls: null });
    const count = updates().length;
    await setting(false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(updates()).toHaveLength(count);
    const rows = await prisma().storeTrackingLink.findMany({ where: { shopId: shop.id } });
    expect(rows.every((r) => r.state === 'sent' && r.applied === 'carrier')).toBe(true);
  });
});

describe('sending tracking links (by hand, with a clock ahead)', () => {
  const ahead = (ms: number) => () => new Date(Date.now() + ms);

  it('a store that fails is asked again later; a refusal is kept as failed with its reason', async () => {
    await app.runtime.worker?.stop();
    await prisma().shop.update({ where: { id: shop.id }, data: { linkToTrackingPage: true } });
    expect(await queueLinksForSetting(prisma(), shop.id, true)).toBe(3);
    // The PostNL fulfilment first: the store answers it 503, and later does not know it.
    const postnl = '5521012345700';
    await prisma().storeTrackingLink.updateMany({
      where: { shopId: shop.id, fulfillmentId: postnl },
      data: { nextAttemptAt: new Date(Date.now() - 1_000) },
    });
    fake.failEvents(
      shop.domain,
      { kind: 'http', status: 503 },
      { operation: 'fulfillmentTrackingInfoUpdate' },
    );
    fake.setFulfillments(shop.domain, [ups.id, dhl.id]);

    expect(await sendTrackingLinks(linkDeps(), 10)).toMatchObject({ claimed: 3, sent: 2, retried: 1 });
    const retried = await prisma().storeTrackingLink.findFirstOrThrow({
      where: { shopId: shop.id, fulfillmentId: postnl },
    });
    expect(retried).toMatchObject({ state: 'pending', attempts: 1 });
    expect(retried.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 30_000);

    // Not due yet; due a few minutes on, and then refused for good.
    expect((await sendTrackingLinks(linkDeps(), 10)).claimed).toBe(0);
    expect(await sendTrackingLinks(linkDeps({ now: ahead(5 * 60_000) }), 10)).toMatchObject({
      claimed: 1,
      failed: 1,
    });
    expect(
      await prisma().storeTrackingLink.findFirstOrThrow({
        where: { shopId: shop.id, fulfillmentId: postnl },
      }),
    ).toMatchObject({ state: 'failed', attempts: 2, error: 'Fulfillment does not exist.' });
  });

  it('turning the setting on again retries what failed', async () => {
    await prisma().shop.update({ where: { id: shop.id }, data: { linkToTrackingPage: false } });
    await queueLinksForSetting(prisma(), shop.id, false);
    await sendTrackingLinks(linkDeps(), 10);
    fake.setFulfillments(shop.domain, [ups.id, dhl.id, '5521012345700']);
    await queueLinksForSetting(prisma(), shop.id, true);
    expect(await sendTrackingLinks(linkDeps(), 10)).toMatchObject({ claimed: 3, sent: 3, failed: 0 });
    expect(fake.trackingInfo(shop.domain, '5521012345700')?.urls).toEqual([
      storeTrackingUrl(shop.domain, '3SABCD0123456'),
    ]);
  });

  it('a missing scope (no re-consent yet) waits hours, with the reason kept for the merchant', async () => {
    const session = await prisma().session.findFirstOrThrow({ where: { shop: shop.domain } });
    const stored = await new PrismaSessionStorage(prisma(), {
      keyring: parseKeyring(app.config.encryptionKey),
      connectionRetries: 0,
    }).loadSession(session.id);
    fake.grantScopes(stored!.accessToken!, ['read_orders', 'read_fulfillments', 'write_fulfillments']);
    await queueLinksForSetting(prisma(), shop.id, false);
    expect(await sendTrackingLinks(linkDeps(), 10)).toMatchObject({ retried: 3, sent: 0 });
    const rows = await prisma().storeTrackingLink.findMany({ where: { shopId: shop.id } });
    for (const row of rows) {
      expect(row.state).toBe('pending');
      expect(row.error).toContain('write_merchant_managed_fulfillment_orders');
      expect(row.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 60 * 60_000);
    }
  });
});
