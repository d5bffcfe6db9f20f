import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCarrierMatcher } from '../../src/carriers/match.js';
import { checkViewToken, viewLinkLifetimeMs, viewToken } from '../../src/proxy/view-link.js';
import { markShopReinstalled, markShopUninstalled } from '../../src/shops/shop-repository.js';
import { applyDelivery } from '../../src/webhooks/topics/index.js';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/app.js';
import { createTracker } from '../helpers/factories.js';
import { installShop } from '../helpers/install.js';
import { clientAddress, signedProxyQuery } from '../helpers/proxy.js';

/**
 * issue 34, break 2: share links of the shoppers' page. Opening a link never hands out a longer-lived one
 * (the page shares the same link, with the same end); the page says until when (day and time, where the
 * store is); a link made before a customers/redact of its order, or before the shop uninstalled the app,
 * opens nothing after it (a reinstall included), while a link made after works.
 */

let app: TestApp;
let shopId: string;
const shop = 'share-links.myshopify.com';
const ORDER = '5100000000001';
const NUMBER = '1ZSHARE000000001';
/** Another customer's order, never redacted here. */
const OTHER_ORDER = '5100000000002';
const OTHER_NUMBER = '1ZSHARE000000002';

beforeAll(async () => {
  app = await startTestApp({ connect: false });
  const row = await app.database.prisma.shop.create({
    data: { domain: shop, timezone: 'Europe/Berlin', profileCheckedAt: new Date() },
  });
  await installShop(app, shop);
  shopId = row.id;
  await addParcel(NUMBER, ORDER);
  await addParcel(OTHER_NUMBER, OTHER_ORDER);
});

/** A delivered parcel of an order, shipped to Berlin. */
async function addParcel(trackingNumber: string, orderId: string): Promise<void> {
  const tracker = await createTracker(app.database.prisma, shopId, {
    trackingNumber,
    desired: 'active',
    remote: 'present',
    syncState: 'synced',
    status: 'delivered',
  });
  await app.database.prisma.trackingLine.create({
    data: {
      shopId,
      fulfillmentId: `f-${orderId}`,
      orderId,
      orderName: `#${orderId.slice(-4)}`,
      trackingNumber,
      carrierName: 'UPS',
      postalCode: '10115',
      destinationCountry: 'DE',
      trackerId: tracker.id,
    },
  });
}
afterAll(async () => {
  await app?.close();
});

async function get(params: Record<string, string>) {
  const query = signedProxyQuery({ shop, path_prefix: '/apps/track', ...params }, TEST_SECRET);
  const res = await fetch(`${app.url}/proxy?${query}`, { headers: { 'x-forwarded-for': clientAddress() } });
  return { status: res.status, body: await res.text() };
}

/** The `view` token of the page's share link, if it has one. */
function sharedToken(body: string): string | null {
  const href = /<a href="([^"]+)">Link to this page<\/a>/.exec(body)?.[1];
  return href ? new URL(href.replaceAll('&amp;', '&'), 'http://x').searchParams.get('view') : null;
}

const opens = (body: string, number = NUMBER) =>
  body.includes(`<dd>${number}`) && !body.includes('This link has expired.');

describe('share links', () => {
  it('a link opened shares that same link: its end is never pushed back, and the page says when it is', async () => {
    // A link about to expire (made 60 days less a minute ago).
    const made = Date.now() - viewLinkLifetimeMs + 60_000;
    const token = viewToken(TEST_SECRET, shopId, { kind: 'parcel', trackingNumber: NUMBER }, made);
    const page = await get({ view: token });
    expect(opens(page.body)).toBe(true);
    const shared = sharedToken(page.body)!;
    expect(shared).toBe(token);
    const checked = checkViewToken(TEST_SECRET, shopId, shared, Date.now());
    expect(checked.ok && checked.expiresAt.getTime()).toBeLessThanOrEqual(made + viewLinkLifetimeMs);
    // Until when, as a day and a time where the store is (Berlin).
    const end = new Date(Math.floor((made + viewLinkLifetimeMs) / 1000) * 1000);
    const time = new Intl.DateTimeFormat('en', {
      hour: 'numeric',
      minute: '2-digit',
      timeZone: 'Europe/Berlin',
    }).format(end);
    expect(page.body).toMatch(
      new RegExp(`Anyone with this link can see this page until \\w+day, \\d+ \\w+ at ${time}\\.`),
    );
    // In German too, the time as German writes it.
    const zeit = new Intl.DateTimeFormat('de', {
      hour: 'numeric',
      minute: '2-digit',
      timeZone: 'Europe/Berlin',
    }).format(end);
    const deBody = (await get({ view: token, locale: 'de' })).body;
    expect(deBody).toContain(`, ${zeit} Uhr aufrufen.`);
    // An order link opened shares itself as well.
    const order = viewToken(TEST_SECRET, shopId, { kind: 'order', orderId: ORDER }, made);
    expect(sharedToken((await get({ view: order })).body)).toBe(order);
  });

  it('a new lookup’s link ends a lifetime from now, and the page says so', async () => {
    const page = await get({ tracking: NUMBER });
    const shared = sharedToken(page.body)!;
    const checked = checkViewToken(TEST_SECRET, shopId, shared, Date.now());
    expect(checked.ok && checked.expiresAt.getTime()).toBeGreaterThan(
      Date.now() + viewLinkLifetimeMs - 60_000,
    );
    expect(page.body).toMatch(/Anyone with this link can see this page until \w+day, \d+ \w+ at \d/);
  });

  it('a link made before a customers/redact of its order opens nothing after it; one made after opens', async () => {
    const before = Date.now() - 5_000;
    const links = [
      viewToken(TEST_SECRET, shopId, { kind: 'parcel', trackingNumber: NUMBER }, before),
      viewToken(TEST_SECRET, shopId, { kind: 'order', orderId: ORDER }, before),
    ];
    for (const token of links) expect(opens((await get({ view: token })).body)).toBe(true);
    const matcher = createCarrierMatcher([]);
    await app.database.prisma.$transaction((tx) =>
      applyDelivery({ tx, shopDomain: shop, matcher }, 'customers/redact', {
        shop_id: 1,
        shop_domain: shop,
        customer: { id: 1, email: 'someone@example.com' },
        orders_to_redact: [Number(ORDER)],
      }),
    );
    for (const token of links) {
      const page = await get({ view: token });
      expect(page.body).toContain('This link has expired.');
      expect(page.body).not.toContain(`<dd>${NUMBER}`);
    }
    // A link made after the redact (a second later: links carry whole seconds) opens.
    const after = viewToken(
      TEST_SECRET,
      shopId,
      { kind: 'parcel', trackingNumber: NUMBER },
      Date.now() + 2_000,
    );
    expect(opens((await get({ view: after })).body)).toBe(true);
  });

  it('a link made before the shop uninstalled the app opens nothing after a reinstall; one made after opens', async () => {
    const token = viewToken(
      TEST_SECRET,
      shopId,
      { kind: 'parcel', trackingNumber: OTHER_NUMBER },
      Date.now() - 5_000,
    );
    expect(opens((await get({ view: token })).body, OTHER_NUMBER)).toBe(true);
    await app.database.prisma.$transaction((tx) => markShopUninstalled(tx, shop));
    expect((await get({ view: token })).status).toBe(404);
    // Reinstalled: the shop is back, its old links are not.
    await app.database.prisma.$transaction((tx) => markShopReinstalled(tx, shopId, { pausedReason: null }));
    await installShop(app, shop);
    expect((await get({ view: token })).body).toContain('This link has expired.');
    const after = viewToken(
      TEST_SECRET,
      shopId,
      { kind: 'parcel', trackingNumber: OTHER_NUMBER },
      Date.now() + 2_000,
    );
    expect(opens((await get({ view: after })).body, OTHER_NUMBER)).toBe(true);
  });

  it('a link of the first format (no issue time) counts as made a lifetime before its end', () => {
    const made = Date.UTC(2026, 10, 1, 12);
    const expires = Math.floor((made + viewLinkLifetimeMs) / 1000);
    const payload = Buffer.from(JSON.stringify([1, shopId, 'p', NUMBER, expires])).toString('base64url');
    const key = createHmac('sha256', TEST_SECRET).update('tracksync shoppers-page view link v1').digest();
    const signature = createHmac('sha256', key)
      .update(payload)
      .digest()
      .subarray(0, 18)
      .toString('base64url');
    const checked = checkViewToken(TEST_SECRET, shopId, `${payload}.${signature}`, made + 1_000);
    expect(checked).toMatchObject({ ok: true, issuedAt: new Date(expires * 1000 - viewLinkLifetimeMs) });
  });
});
