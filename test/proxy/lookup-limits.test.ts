import { describe, expect, it } from 'vitest';
import { createRetention } from '../../src/jobs/retention.js';
import type { LookupLimits } from '../../src/config.js';
import { createLookupLimiter, type LookupLimiter } from '../../src/proxy/lookup-limits.js';
import { useTestDatabase } from '../helpers/database.js';

/**
 * The limits' rules on the database, with a clock of our own. Every limiter here is a new instance on the
 * same database: what one counted, another sees (as another process, or the same after a restart).
 */

const database = useTestDatabase();
let clock = Date.parse('2026-11-25T12:00:00Z');
const limits: Partial<LookupLimits> = {
  failuresBeforeBackoff: 3,
  failuresBeforeBackoffUnderAttack: 1,
  backoffMs: 2_000,
  backoffMaxMs: 60_000,
  shopFailuresPerMinute: 10,
  serviceCallsPerMinute: 4,
};
const limiter = (overrides: Partial<LookupLimits> = {}): LookupLimiter =>
  createLookupLimiter({
    prisma: database.prisma,
    secret: 'limits-secret',
    limits: { ...limits, ...overrides },
    now: () => clock,
  });

async function newShop(): Promise<string> {
  return (await database.prisma.shop.create({ data: { domain: `limits-${Math.random()}.myshopify.com` } }))
    .id;
}

/** Looks up and fails once through `l`; the wait asked (0: the lookup went ahead). */
async function failOnce(l: LookupLimiter, shopId: string, address: string): Promise<number> {
  const gate = await l.check(shopId, address);
  if (!gate.ok) return gate.retryAfterS;
  await l.failed(gate.visitor);
  return 0;
}

describe('failed lookups', () => {
  it('hold a visitor back after its allowance, 2 s then doubling up to the cap, counted across limiters', async () => {
    const shopId = await newShop();
    const holds: number[] = [];
    for (let i = 0; i < 9; i++) {
      // Each failure through a new limiter (another process, a restart).
      const l = limiter();
      expect(await failOnce(l, shopId, '203.0.113.9')).toBe(0);
      const gate = await limiter().check(shopId, '203.0.113.9');
      holds.push(gate.ok ? 0 : gate.retryAfterS);
      if (!gate.ok) clock += gate.retryAfterS * 1000;
    }
    expect(holds).toEqual([0, 0, 0, 2, 4, 8, 16, 32, 60]);
    // Another visitor, and the same address at another shop, are not held.
    expect((await limiter().check(shopId, '203.0.113.10')).ok).toBe(true);
    expect((await limiter().check(await newShop(), '203.0.113.9')).ok).toBe(true);
  });

  it('are keyed by the address (an IPv6 /56 is one visitor), never by anything else the visitor sends', async () => {
    const shopId = await newShop();
    for (let i = 0; i < 4; i++) await failOnce(limiter(), shopId, `2001:db8:1:ab0${i}::${i + 1}`);
    const gate = await limiter().check(shopId, '2001:db8:1:abff::77');
    expect(gate).toEqual({ ok: false, retryAfterS: 2 });
    const rows = await database.prisma.lookupLimit.findMany({ where: { shopId, kind: 'visitor' } });
    expect(rows).toHaveLength(1);
    // Only a keyed hash of the address is kept.
    expect(rows[0]!.id).not.toContain('2001');
    expect(rows[0]!.count).toBe(4);
  });

  it('are forgotten a day after the last one; a found lookup neither counts nor clears them', async () => {
    const shopId = await newShop();
    for (let i = 0; i < 3; i++) await failOnce(limiter(), shopId, '198.51.100.1');
    // Found lookups in between: check() alone, no failed().
    for (let i = 0; i < 5; i++) expect((await limiter().check(shopId, '198.51.100.1')).ok).toBe(true);
    expect(await failOnce(limiter(), shopId, '198.51.100.1')).toBe(0);
    expect((await limiter().check(shopId, '198.51.100.1')).ok).toBe(false);
    clock += 24 * 3_600_000 + 1;
    for (let i = 0; i < 3; i++) expect(await failOnce(limiter(), shopId, '198.51.100.1')).toBe(0);
    expect((await limiter().check(shopId, '198.51.100.1')).ok).toBe(true);
  });

  it("a shop under attack holds every visitor after one failure; nobody else's failures hold a visitor back", async () => {
    const shopId = await newShop();
    // Ten visitors fail once each within a minute: the shop is under attack.
    for (let i = 0; i < 10; i++) expect(await failOnce(limiter(), shopId, `192.0.2.${i + 1}`)).toBe(0);
    // A new visitor is answered (its lookup goes ahead)…
    const shopper = await limiter().check(shopId, '192.0.2.200');
    expect(shopper.ok).toBe(true);
    // …and after one failure may try once more, then waits.
    await limiter().failed((shopper as { ok: true; visitor: never }).visitor);
    expect(await failOnce(limiter(), shopId, '192.0.2.200')).toBe(0);
    expect(await limiter().check(shopId, '192.0.2.200')).toEqual({ ok: false, retryAfterS: 2 });
    // A minute later the attack's count is over: the usual allowance again.
    clock += 61_000;
    for (let i = 0; i < 3; i++) expect(await failOnce(limiter(), shopId, '192.0.2.201')).toBe(0);
    expect((await limiter().check(shopId, '192.0.2.201')).ok).toBe(true);
  });

  it('count every one of many concurrent failures (the database adds, not the process)', async () => {
    const shopId = await newShop();
    const gates = await Promise.all(Array.from({ length: 6 }, () => limiter().check(shopId, '192.0.2.99')));
    await Promise.all(gates.map((g) => (g.ok ? limiter().failed(g.visitor) : null)));
    const row = await database.prisma.lookupLimit.findFirstOrThrow({ where: { shopId, kind: 'visitor' } });
    expect(row.count).toBe(6);
    const shop = await database.prisma.lookupLimit.findFirstOrThrow({
      where: { shopId, kind: 'shop_failures' },
    });
    expect(shop.count).toBe(6);
  });
});

describe('visitors remembered per shop', () => {
  /** A distinct IPv6 /56 per i (the 4th group's high byte and the 3rd group): one visitor each. */
  const prefix = (i: number) => `2001:db8:${(i >> 8).toString(16)}:${((i & 0xff) << 8).toString(16)}::1`;
  const visitorRows = (shopId: string) =>
    database.prisma.lookupLimit.count({ where: { shopId, kind: 'visitor' } });

  it('2 200 failures from distinct /56 prefixes leave at most the bound of rows; beyond it the shop-wide hold takes over', async () => {
    const shopId = await newShop();
    const bound = 50;
    const l = limiter({ visitorRowsPerShop: bound });
    const start = clock;
    let answered = 0;
    let held = 0;
    // One new address a second, for 2 200 s.
    for (let i = 0; i < 2_200; i++) {
      const gate = await l.check(shopId, prefix(i));
      if (gate.ok) {
        answered++;
        await l.failed(gate.visitor);
      } else {
        held++;
        expect(gate.retryAfterS).toBeLessThanOrEqual(60);
      }
      clock += 1_000;
    }
    expect(await visitorRows(shopId)).toBe(bound);
    // Beyond the bound, new visitors share the shop's failures a minute (10 here, and the one a minute that
    // counts the rows again): the rest are held.
    const perMinute = 10 + 1;
    const minutes = Math.ceil((clock - start) / 60_000) + 1;
    expect(answered).toBeLessThanOrEqual(bound + perMinute * minutes);
    expect(held).toBe(2_200 - answered);

    // Under attack now (ten failures in this minute): a new visitor is held until the minute ends…
    clock += 61_000;
    for (let i = 0; i < 10; i++) await failOnce(l, shopId, prefix(5_000 + i));
    const stranger = await l.check(shopId, prefix(6_000));
    expect(stranger.ok).toBe(false);
    expect((stranger as { retryAfterS: number }).retryAfterS).toBeLessThanOrEqual(60);
    // …a visitor with a row of its own keeps its own rules (one failure, far under its allowance)…
    expect((await l.check(shopId, prefix(0))).ok).toBe(true);
    // …and the next minute the new visitor is answered again; still no new row.
    clock += 61_000;
    expect(await failOnce(l, shopId, prefix(6_000))).toBe(0);
    expect(await visitorRows(shopId)).toBe(bound);

    // Once retention has deleted the rows (a day after their last failure), new visitors get rows again.
    clock += 24 * 3_600_000 + 1;
    await createRetention({ prisma: database.prisma }).runPass({ now: new Date(clock + 3_600_000 + 1) });
    expect(await visitorRows(shopId)).toBe(0);
    expect(await failOnce(l, shopId, prefix(7_000))).toBe(0);
    expect(await visitorRows(shopId)).toBe(1);
  }, 120_000);

  it('another shop’s visitors are not held by one shop’s bound', async () => {
    const full = await newShop();
    const other = await newShop();
    const l = limiter({ visitorRowsPerShop: 3 });
    for (let i = 0; i < 20; i++) await failOnce(l, full, prefix(i));
    expect(await visitorRows(full)).toBe(3);
    expect((await l.check(full, prefix(100))).ok).toBe(false);
    expect((await l.check(other, prefix(100))).ok).toBe(true);
    for (let i = 0; i < 3; i++) await failOnce(l, other, prefix(i));
    expect(await visitorRows(other)).toBe(3);
  });
});

describe('service calls caused by lookups', () => {
  it('stay within the shop’s budget a minute, across limiters, and the next minute has its own', async () => {
    const shopId = await newShop();
    const taken = await Promise.all(Array.from({ length: 10 }, () => limiter().takeServiceCall(shopId)));
    expect(taken.filter(Boolean)).toHaveLength(4);
    expect(await limiter().takeServiceCall(await newShop())).toBe(true);
    clock += 60_001;
    expect(await limiter().takeServiceCall(shopId)).toBe(true);
    expect(await limiter({ serviceCallsPerMinute: 0 }).takeServiceCall(shopId)).toBe(false);
  });
});

describe('storage', () => {
  it('retention deletes counters once they say nothing; a shop takes its counters with it', async () => {
    const shopId = await newShop();
    await failOnce(limiter(), shopId, '203.0.113.50');
    await limiter().takeServiceCall(shopId);
    const count = () => database.prisma.lookupLimit.count({ where: { shopId } });
    expect(await count()).toBe(3);
    const retention = createRetention({ prisma: database.prisma });
    await retention.runPass({ now: new Date(clock + 3_600_000) });
    expect(await count()).toBe(3);
    await retention.runPass({ now: new Date(clock + 24 * 3_600_000 + 1) });
    expect(await count()).toBe(0);

    await failOnce(limiter(), shopId, '203.0.113.50');
    await database.prisma.shop.delete({ where: { id: shopId } });
    expect(await count()).toBe(0);
  });
});
