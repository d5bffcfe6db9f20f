import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/app.js';
import { type Captured, captureLogger } from '../helpers/capture-logger.js';
import { clientAddress, signedProxyQuery } from '../helpers/proxy.js';

/**
 * GET /proxy with input the database cannot take (NUL: PostgreSQL refuses it in text) or a locale that
 * names an Object prototype member: answered as a page, never a 500, nothing counted, nothing logged as
 * an error. On both databases.
 */

let app: TestApp;
let logs: Captured;
let shopId: string;
const shop = 'proxy-unstorable.myshopify.com';

beforeAll(async () => {
  logs = captureLogger('debug');
  app = await startTestApp({ connect: false, runtime: { logger: logs.logger } });
  shopId = (await app.database.prisma.shop.create({ data: { domain: shop } })).id;
});
afterAll(async () => {
  await app?.close();
});

async function get(params: Record<string, string>, headers: Record<string, string> = {}) {
  const query = signedProxyQuery({ shop, path_prefix: '/apps/track', ...params }, TEST_SECRET);
  const res = await fetch(`${app.url}/proxy?${query}`, {
    headers: { 'x-forwarded-for': clientAddress(), ...headers },
  });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

const lookups = async () =>
  (await app.database.prisma.shop.findUniqueOrThrow({ where: { id: shopId } })).trackingPageLookups;
const errorLogs = () => logs.records.filter((r) => r.level >= 50);

describe('GET /proxy locale', () => {
  it('looks a locale up by the translations’ own names only: constructor, __proto__ and toString are English', async () => {
    for (const locale of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const page = await get({ locale, format: 'html' });
      expect(page.status, locale).toBe(200);
      expect(page.body, locale).toContain('<html lang="en"');
      expect(page.body).toContain('Track your order');
      // The form does not carry a locale the page does not speak.
      expect(page.body).not.toContain(`value="${locale}"`);
    }
    expect(errorLogs()).toEqual([]);
  });

  it('so does Accept-Language; a real language after such a name still counts', async () => {
    for (const header of ['constructor', '__proto__', 'toString;q=0.9', 'constructor-DE']) {
      const page = await get({ format: 'html' }, { 'accept-language': header });
      expect(page.status, header).toBe(200);
      expect(page.body, header).toContain('<html lang="en"');
    }
    const german = await get(
      { format: 'html' },
      { 'accept-language': 'constructor, __proto__;q=0.9, de;q=0.8' },
    );
    expect(german.body).toContain('<html lang="de"');
    expect(errorLogs()).toEqual([]);
  });
});

describe('GET /proxy with a NUL in a value', () => {
  it('answers 400 with the page, naming the field, before any lookup is counted or made', async () => {
    const before = await lookups();
    for (const [params, label] of [
      [{ tracking: '\u0000' }, 'Tracking number'],
      [{ tracking: '1Z\u0000999' }, 'Tracking number'],
      [{ order: '\u0000', email: 'jane@example.com' }, 'Order number'],
      [{ order: '1001', email: 'jane\u0000@example.com' }, 'Email'],
    ] as const) {
      const page = await get(params);
      expect(page.status, JSON.stringify(params)).toBe(400);
      expect(page.type).toBe('application/liquid; charset=utf-8');
      expect(page.body).toContain(`${label}:`);
      expect(page.body).toContain('<form class="ts-form"');
      // The refused value is never written back into the page.
      expect(page.body).not.toContain('\u0000');
    }
    expect(await lookups()).toBe(before);
    expect(errorLogs()).toEqual([]);
  });

  it('in the store’s language, as a whole document for direct links, for any parameter', async () => {
    const page = await get({ tracking: '\u0000', locale: 'de', format: 'html' });
    expect(page.status).toBe(400);
    expect(page.type).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<html lang="de"');
    expect(page.body).toContain('Sendungsnummer:');
    const other = await get({ logged_in_customer_id: '\u0000' });
    expect(other.status).toBe(400);
    expect(other.body).toContain('logged_in_customer_id:');
    expect(errorLogs()).toEqual([]);
  });
});
