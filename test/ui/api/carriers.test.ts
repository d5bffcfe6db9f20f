import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PageApiHarness, startPageApi, type TestShop } from './harness.js';

let api: PageApiHarness;
let shop: TestShop;

beforeAll(async () => {
  api = await startPageApi();
  shop = await api.connectedShop('carriers');
  await api.fulfil(shop.domain, { trackingNumbers: ['1ZCARRIER0000001'], carrier: 'UPS' });
  await api.fulfil(shop.domain, {
    trackingNumbers: ['SPEEDY-0001', 'SPEEDY-0002'],
    carrier: 'Speedy Parcels Ltd',
  });
  // Two spellings of one carrier: the first on two parcels, the second on one.
  await api.settled(shop.domain);
  await api.fulfil(shop.domain, { trackingNumbers: ['SPEEDY-0003'], carrier: 'speedy parcels ltd.' });
  await api.fulfil(shop.domain, { trackingNumbers: ['AZ0000001'], carrier: 'Aramex' });
  await api.settled(shop.domain);
});
afterAll(async () => {
  api?.expectNoKeyLeaked();
  await api?.close();
});

describe('GET /carriers/seen', () => {
  it('lists every carrier name of the shop, unmapped first, with its shipments and waiting lines', async () => {
    const res = await api.as(shop.domain).get('/carriers/seen');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      carriers: [
        // Two spellings fold to one carrier; the one with the most shipments is shown.
        {
          name: 'Speedy Parcels Ltd',
          mappedTo: null,
          mappedLabel: null,
          source: 'none',
          shipments: 3,
          waiting: 3,
          notFollowed: 0,
          state: 'waiting',
          problem: null,
        },
        {
          name: 'Aramex',
          mappedTo: 'aramex',
          mappedLabel: 'Aramex',
          source: 'platform-name',
          shipments: 1,
          waiting: 0,
          notFollowed: 0,
          state: 'followed',
          problem: null,
        },
        {
          name: 'UPS',
          mappedTo: 'ups',
          mappedLabel: 'UPS',
          source: 'platform-name',
          shipments: 1,
          waiting: 0,
          notFollowed: 0,
          state: 'followed',
          problem: null,
        },
      ],
      next: null,
    });
  });

  it('refuses a cursor that is not a carrier key', async () => {
    const res = await api.as(shop.domain).get(`/carriers/seen?after=${'x'.repeat(201)}`);
    expect(res.status).toBe(400);
    expect(res.body.issues[0].field).toBe('after');
  });
});

describe('GET /carriers', () => {
  it('searches the cached list on slug or label, case-insensitively, within the limit', async () => {
    const dhl = await api.as(shop.domain).get('/carriers?search=DHL');
    expect(dhl.status).toBe(200);
    expect(dhl.body.carriers.length).toBeGreaterThan(1);
    for (const c of dhl.body.carriers) {
      expect(Object.keys(c).sort()).toEqual(['label', 'slug']);
      expect(`${c.slug} ${c.label}`.toLowerCase()).toContain('dhl');
    }
    const byLabel = await api.as(shop.domain).get('/carriers?search=royal%20mail');
    expect(byLabel.body.carriers).toContainEqual({ slug: 'royal-mail', label: expect.any(String) });

    const all = await api.as(shop.domain).get('/carriers');
    expect(all.body.carriers).toHaveLength(50);
    const two = await api.as(shop.domain).get('/carriers?limit=2');
    expect(two.body.carriers).toHaveLength(2);
    const most = await api.as(shop.domain).get('/carriers?limit=200');
    expect(most.body.carriers.length).toBeGreaterThan(100);
    const none = await api.as(shop.domain).get('/carriers?search=zzzz-no-such');
    expect(none.body).toEqual({ carriers: [] });
  });

  it('fills an empty cache through the client first', async () => {
    await api.app.database.prisma.carrier.deleteMany({});
    const res = await api.as(shop.domain).get('/carriers?search=ups');
    expect(res.status).toBe(200);
    expect(res.body.carriers).toContainEqual({ slug: 'ups', label: expect.any(String) });
    expect(await api.app.database.prisma.carrier.count()).toBeGreaterThan(100);
  });

  it('refuses a limit out of range or not a number', async () => {
    for (const q of ['limit=0', 'limit=201', 'limit=ten', 'limit=1.5']) {
      const res = await api.as(shop.domain).get(`/carriers?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body).toEqual({
        error: 'invalid_input',
        issues: [{ field: 'limit', message: expect.any(String) }],
      });
    }
  });
});

describe('PUT /carriers/mapping', () => {
  it('refuses a slug the service does not offer (422) and bad input (400), changing nothing', async () => {
    const unknown = await api
      .as(shop.domain)
      .put('/carriers/mapping', { name: 'Speedy Parcels Ltd', slug: 'speedyy' });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({ error: 'unknown_slug', message: expect.stringContaining('speedyy') });
    for (const body of [{ name: '', slug: 'ups' }, { name: '---', slug: 'ups' }, { name: 'Speedy' }, {}]) {
      const res = await api.as(shop.domain).put('/carriers/mapping', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('invalid_input');
    }
    expect(await api.app.database.prisma.carrierMapping.count({ where: { shopId: shop.id } })).toBe(0);
  });

  it('maps an unmapped name: its waiting lines get trackers, which the worker creates at the service', async () => {
    const res = await api
      .as(shop.domain)
      .put('/carriers/mapping', { name: 'SPEEDY parcels ltd', slug: 'dhl-express' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ remapped: 3, stillWaiting: 0 });

    await api.settled(shop.domain);
    const remote = await api.app.emulator.control.trackers(shop.appName);
    expect(
      remote
        .filter((t) => t.tracking_number.startsWith('SPEEDY'))
        .map((t) => [t.tracking_number, t.tracking_provider])
        .sort(),
    ).toEqual([
      ['SPEEDY-0001', 'dhl-express'],
      ['SPEEDY-0002', 'dhl-express'],
      ['SPEEDY-0003', 'dhl-express'],
    ]);

    const seen = await api.as(shop.domain).get('/carriers/seen');
    expect(seen.body.carriers[1]).toEqual({
      name: 'Speedy Parcels Ltd',
      mappedTo: 'dhl-express',
      mappedLabel: expect.stringContaining('DHL'),
      source: 'override',
      shipments: 3,
      waiting: 0,
      notFollowed: 0,
      state: 'followed',
      problem: null,
    });
    // All mapped now: by name only.
    expect(seen.body.carriers.map((c: { name: string }) => c.name)).toEqual([
      'Aramex',
      'Speedy Parcels Ltd',
      'UPS',
    ]);
  });
});
