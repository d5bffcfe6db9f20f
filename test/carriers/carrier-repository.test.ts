import { describe, expect, it } from 'vitest';
import {
  carrierOverrides,
  carrierRefreshIntervalMs,
  createCarrierRepository,
} from '../../src/carriers/carrier-repository.js';
import { useOtherConnection, useTestDatabase } from '../helpers/database.js';
import { createShop } from '../helpers/factories.js';

const db = useTestDatabase({ reset: true });
/** Extra connections to the same database: separate "processes" for the concurrency tests. */
const others = Array.from({ length: 3 }, () => useOtherConnection(db));

const list = [
  { slug: 'ups', label: 'UPS' },
  { slug: 'dhl-express', label: 'DHL Express' },
];

describe('replaceProviders', () => {
  it('refuses an empty list and keeps the cached one', async () => {
    const carriers = createCarrierRepository(db.prisma);
    await carriers.replaceProviders(list);
    await expect(carriers.replaceProviders([])).rejects.toThrow(/empty/);
    expect(await carriers.providers()).toHaveLength(2);
  });

  it('replaces the whole list, de-duplicating by slug, and records when', async () => {
    const carriers = createCarrierRepository(db.prisma);
    await carriers.replaceProviders(list);
    const before = Date.now();
    const count = await carriers.replaceProviders([
      { slug: 'usps', label: 'USPS' },
      { slug: 'fedex', label: 'FedEx' },
      { slug: 'usps', label: 'USPS (again)' },
    ]);
    expect(count).toBe(2);
    expect(await carriers.providers()).toEqual([
      { slug: 'fedex', label: 'FedEx' },
      { slug: 'usps', label: 'USPS (again)' },
    ]);
    expect((await carriers.lastRefreshedAt())!.getTime()).toBeGreaterThanOrEqual(before - 1);
  });

  it('rebuilds the matcher after a replace, even within its TTL', async () => {
    const carriers = createCarrierRepository(db.prisma, { matcherTtlMs: 60_000 });
    await carriers.replaceProviders([{ slug: 'acme', label: 'Acme' }]);
    expect((await carriers.matcher()).match('Acme').slug).toBe('acme');
    await carriers.replaceProviders([{ slug: 'acme-2', label: 'Acme' }]);
    expect((await carriers.matcher()).match('Acme').slug).toBe('acme-2');
  });

  it('hasProvider: any slug while the list is empty, then only listed slugs', async () => {
    const carriers = createCarrierRepository(db.prisma);
    expect(await carriers.hasProvider('anything')).toBe(true);
    await carriers.replaceProviders(list);
    expect(await carriers.hasProvider('ups')).toBe(true);
    expect(await carriers.hasProvider('anything')).toBe(false);
  });
});

describe('claimRefresh', () => {
  it('is true once when never refreshed, then false until the interval has passed', async () => {
    const carriers = createCarrierRepository(db.prisma);
    const t0 = new Date('2026-11-20T00:00:00Z');
    expect(await carriers.claimRefresh(t0)).toBe(true);
    expect(await carriers.claimRefresh(t0)).toBe(false);
    expect(await carriers.claimRefresh(new Date(t0.getTime() + carrierRefreshIntervalMs - 1))).toBe(false);
    expect(await carriers.claimRefresh(new Date(t0.getTime() + carrierRefreshIntervalMs))).toBe(true);
  });

  it('after a failed refresh, is due again in about an hour', async () => {
    const carriers = createCarrierRepository(db.prisma);
    expect(await carriers.claimRefresh(new Date())).toBe(true);
    await carriers.scheduleRefreshRetry();
    expect(await carriers.claimRefresh(new Date(Date.now() + 50 * 60_000))).toBe(false);
    expect(await carriers.claimRefresh(new Date(Date.now() + 61 * 60_000))).toBe(true);
  });

  it('a refresh just done is not due', async () => {
    const carriers = createCarrierRepository(db.prisma);
    await carriers.replaceProviders(list);
    expect(await carriers.claimRefresh(new Date())).toBe(false);
  });

  it('is true for exactly one of many concurrent callers when never refreshed', async () => {
    for (let round = 0; round < 5; round++) {
      await db.prisma.appState.deleteMany({});
      const now = new Date();
      const repos = [db.prisma, ...others.map((o) => o.prisma)].map((p) => createCarrierRepository(p));
      const results = await Promise.all(
        [...repos, ...repos].map((r) => r.claimRefresh(new Date(now.getTime() + Math.random() * 1000))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    }
  });

  it('is true for exactly one of many concurrent callers once due', async () => {
    for (let round = 0; round < 5; round++) {
      const now = new Date(Date.now() + (round + 1) * 2 * carrierRefreshIntervalMs);
      const repos = [db.prisma, ...others.map((o) => o.prisma)].map((p) => createCarrierRepository(p));
      const results = await Promise.all([...repos, ...repos].map((r) => r.claimRefresh(now)));
      expect(results.filter(Boolean)).toHaveLength(1);
    }
  });
});

describe('overrides', () => {
  it('setOverride keys by normalised name, updates in place, and carrierOverrides reads them per shop', async () => {
    const carriers = createCarrierRepository(db.prisma);
    const shop = await createShop(db.prisma);
    const other = await createShop(db.prisma);
    await carriers.setOverride(db.prisma, shop.id, 'Acme  Couriers!', 'acme');
    await carriers.setOverride(db.prisma, shop.id, 'ACME couriers', 'acme-express');
    await carriers.setOverride(db.prisma, other.id, 'Acme Couriers', 'other-slug');

    expect(await carrierOverrides(db.prisma, shop.id)).toEqual(new Map([['acmecouriers', 'acme-express']]));
    expect(await carrierOverrides(db.prisma, other.id)).toEqual(new Map([['acmecouriers', 'other-slug']]));
    const rows = await db.prisma.carrierMapping.findMany({ where: { shopId: shop.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ carrierName: 'ACME couriers', slug: 'acme-express' });

    const matcher = await carriers.matcher();
    expect(matcher.match('acme couriers', await carrierOverrides(db.prisma, shop.id))).toEqual({
      slug: 'acme-express',
      source: 'override',
    });
  });

  it('refuses a name with no letter or digit', async () => {
    const carriers = createCarrierRepository(db.prisma);
    const shop = await createShop(db.prisma);
    await expect(carriers.setOverride(db.prisma, shop.id, ' -- ', 'acme')).rejects.toThrow(/letter or digit/);
  });

  it('works inside a transaction, and rolls back with it', async () => {
    const carriers = createCarrierRepository(db.prisma);
    const shop = await createShop(db.prisma);
    await expect(
      db.prisma.$transaction(async (tx) => {
        await carriers.setOverride(tx, shop.id, 'Acme', 'acme');
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await carrierOverrides(db.prisma, shop.id)).toEqual(new Map());
  });
});
