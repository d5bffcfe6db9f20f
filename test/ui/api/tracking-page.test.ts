import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shopperLocales } from '../../../src/lib/shopper-locales.js';
import { proxyMessages } from '../../../src/proxy/messages.js';
import {
  defaultTrackingPageSettings,
  type TrackingPageSettings,
} from '../../../src/shops/tracking-page-settings.js';
import { startTestApp, TEST_SECRET, type TestApp } from '../../helpers/app.js';
import { bearer, mintSessionToken } from '../../helpers/session-token.js';

/**
 * GET and PUT /api/tracking-page and POST /api/tracking-page/preview through the app, with the page's
 * session tokens: what the merchant sees, what a save keeps and refuses (400 naming the field), that the
 * preview renders the shoppers' page from the settings sent and stores nothing, and that one shop's
 * settings never reach another's.
 */

let app: TestApp;
const shopA = 'tracking-page-a.myshopify.com';
const shopB = 'tracking-page-b.myshopify.com';

beforeAll(async () => {
  app = await startTestApp({ connect: false });
  await app.database.prisma.shop.create({ data: { domain: shopA, contactEmail: 'help@shop-a.example' } });
  await app.database.prisma.shop.create({ data: { domain: shopB, contactEmail: 'care@shop-b.example' } });
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const token = (shop: string) =>
  mintSessionToken({ shop, apiKey: app.config.shopify.apiKey, secret: TEST_SECRET });
const as = (shop: string) => ({
  get: () =>
    request(app.url)
      .get('/api/tracking-page')
      .set(bearer(token(shop))),
  put: (body: unknown) =>
    request(app.url)
      .put('/api/tracking-page')
      .set(bearer(token(shop)))
      .send(body as object),
  preview: (body: unknown) =>
    request(app.url)
      .post('/api/tracking-page/preview')
      .set(bearer(token(shop)))
      .send(body as object),
});
const storedRow = async (shop: string) => {
  const { id } = await app.database.prisma.shop.findUniqueOrThrow({ where: { domain: shop } });
  return app.database.prisma.trackingPageSettings.findUnique({ where: { shopId: id } });
};

const custom: TrackingPageSettings = {
  accentColor: '#0a7d4f',
  show: { items: false, history: true, estimate: false, location: true },
  messages: { en: 'Parcels leave our workshop within two days.', de: 'Pakete verlassen uns in zwei Tagen.' },
  contact: { kind: 'url', url: 'https://shop-a.example/pages/contact' },
};

describe('GET /api/tracking-page', () => {
  it('answers the defaults, the store’s contact e-mail, the languages and each one’s default text', async () => {
    const res = await as(shopB).get();
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      settings: defaultTrackingPageSettings,
      contactEmail: 'care@shop-b.example',
      locales: [...shopperLocales],
      defaults: Object.fromEntries(shopperLocales.map((l) => [l, proxyMessages(l).intro])),
    });
    expect(res.body.defaults.en).toBe('Enter your order number and the email you ordered with.');
    expect(res.body.defaults.de).toBe(
      'Geben Sie Ihre Bestellnummer und die E-Mail-Adresse Ihrer Bestellung ein.',
    );
  });

  it('needs a session token', async () => {
    const res = await request(app.url).get('/api/tracking-page');
    expect(res.status).toBe(401);
    const preview = await request(app.url)
      .post('/api/tracking-page/preview')
      .send({ settings: custom, locale: 'en' });
    expect(preview.status).toBe(401);
  });
});

describe('PUT /api/tracking-page', () => {
  it('stores the whole document and answers it as it now reads; a reload shows it', async () => {
    const res = await as(shopA).put({
      ...custom,
      accentColor: '#0A7D4F',
      messages: { ...custom.messages, fr: '   ', nl: '  Trimmed.  ' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = { ...custom, messages: { ...custom.messages, nl: 'Trimmed.' } };
    expect(res.body.settings).toEqual(expected);
    expect(res.body.contactEmail).toBe('help@shop-a.example');
    expect((await as(shopA).get()).body.settings).toEqual(expected);
    expect(JSON.parse((await storedRow(shopA))!.settings)).toEqual(expected);
  });

  it('refuses a document that is not whole or not valid, naming the field; nothing changes', async () => {
    await as(shopA).put(custom);
    const before = (await storedRow(shopA))!.settings;
    const refused: Array<[unknown, string]> = [
      [{ ...custom, accentColor: 'green' }, 'accentColor'],
      [{ ...custom, accentColor: '#12345' }, 'accentColor'],
      [{ ...custom, show: { ...custom.show, items: 'yes' } }, 'show.items'],
      [{ ...custom, show: { history: true, estimate: true, location: true } }, 'show.items'],
      [{ ...custom, messages: { de: 'x'.repeat(501) } }, 'messages.de'],
      [{ ...custom, messages: { en: 'with a \u0000 NUL' } }, 'messages.en'],
      [{ ...custom, messages: { xx: 'unknown language' } }, 'messages'],
      [{ ...custom, contact: { kind: 'url', url: 'javascript:alert(1)' } }, 'contact.url'],
      [{ ...custom, contact: { kind: 'url', url: '' } }, 'contact'],
      [{ ...custom, contact: { kind: 'phone', url: '' } }, 'contact.kind'],
      [{ accentColor: '#000000' }, 'show'],
    ];
    for (const [body, field] of refused) {
      const res = await as(shopA).put(body);
      expect(res.status, `${field}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error).toBe('invalid_input');
      expect(
        res.body.issues.map((i: { field: string }) => i.field),
        JSON.stringify(res.body),
      ).toContain(field);
    }
    // An unknown key is refused too (the document is strict).
    const extra = await as(shopA).put({ ...custom, theme: 'dark' });
    expect(extra.status).toBe(400);
    expect((await storedRow(shopA))!.settings).toBe(before);
  });

  it('refuses a body over its bound (413) and one that is not JSON (400)', async () => {
    const big = await as(shopA).put({ ...custom, filler: 'x'.repeat(40_000) });
    expect(big.status).toBe(413);
    const notJson = await request(app.url)
      .put('/api/tracking-page')
      .set(bearer(token(shopA)))
      .set('content-type', 'application/json')
      .send('{"accentColor":');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toBe('invalid_input');
  });

  it('one shop’s save never changes another’s', async () => {
    const b = await as(shopB).put({ ...defaultTrackingPageSettings, accentColor: '#222222' });
    expect(b.status).toBe(200);
    const a = await as(shopA).put({ ...custom, accentColor: '#aa0000', messages: { en: 'Only shop A.' } });
    expect(a.status).toBe(200);
    expect((await as(shopB).get()).body.settings).toEqual({
      ...defaultTrackingPageSettings,
      accentColor: '#222222',
    });
    expect((await as(shopA).get()).body.settings.accentColor).toBe('#aa0000');
    // B's preview is drawn with B's contact e-mail, whatever A saved.
    const preview = await as(shopB).preview({
      settings: { ...defaultTrackingPageSettings, messages: { en: 'Only shop B.' } },
      locale: 'en',
    });
    expect(preview.status).toBe(200);
    expect(preview.body.html).toContain('care@shop-b.example');
    expect(preview.body.html).not.toContain('Only shop A.');
    expect(preview.body.html).not.toContain('help@shop-a.example');
  });
});

describe('POST /api/tracking-page/preview', () => {
  it('renders the whole shoppers’ page with a sample order from the settings sent; nothing is stored', async () => {
    const shop = 'tracking-page-preview.myshopify.com';
    const res = await as(shop).preview({
      settings: {
        ...custom,
        accentColor: '#C0FFEE',
        messages: { en: 'Hello from the <b>workshop</b> {{ shop.name }}.' },
      },
      locale: 'en',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const html = res.body.html as string;
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('<html lang="en"');
    // The sample order's parcels.
    expect(html).toContain('1Z999AA10123456784');
    // The merchant's message, escaped, and the accent colour (as the schema keeps it: lower case).
    expect(html).toContain('Hello from the &lt;b&gt;workshop&lt;/b&gt;');
    expect(html).not.toContain('<b>workshop</b>');
    expect(html).toContain('#c0ffee');
    expect(await storedRow(shop)).toBeNull();
  });

  it('speaks the language asked', async () => {
    const res = await as(shopA).preview({ settings: defaultTrackingPageSettings, locale: 'de' });
    expect(res.status).toBe(200);
    expect(res.body.html).toContain('<html lang="de"');
    expect(res.body.html).toContain(proxyMessages('de').title);
  });

  it('validates the settings as a save does, and the language, naming the field', async () => {
    const refused: Array<[unknown, string]> = [
      [{ settings: { ...custom, accentColor: 'red' }, locale: 'en' }, 'settings.accentColor'],
      [{ settings: { ...custom, messages: { en: 'x'.repeat(501) } }, locale: 'en' }, 'settings.messages.en'],
      [{ settings: custom, locale: 'xx' }, 'locale'],
      [{ settings: custom }, 'locale'],
      [{ locale: 'en' }, 'settings'],
      [{ settings: custom, locale: 'en', width: 390 }, ''],
      [{ settings: custom, locale: 'en', extra: 1 }, ''],
    ];
    for (const [body, field] of refused) {
      const res = await as(shopA).preview(body);
      expect(res.status, `${field}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.issues.map((i: { field: string }) => i.field)).toContain(field);
    }
    const big = await as(shopA).preview({ settings: custom, locale: 'en', filler: 'x'.repeat(40_000) });
    expect(big.status).toBe(413);
  });
});
