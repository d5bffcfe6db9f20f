import { describe, expect, it } from 'vitest';
import { databaseGauges } from '../../src/app/metrics-route.js';
import { useTestDatabase } from '../helpers/database.js';
import { createShop, createTracker } from '../helpers/factories.js';

/** The database gauges of /metrics: read at most every `everyMs`, each figure bounded by `cap` rows. */
const db = useTestDatabase({ reset: true });

const due = (figures: { queue: string; due: number }[], queue: string) =>
  figures.find((q) => q.queue === queue)?.due;

describe('databaseGauges', () => {
  it('reads the database once per interval, whatever the scrapes in between', async () => {
    const shop = await createShop(db.prisma);
    await createTracker(db.prisma, shop.id, { nextAttemptAt: new Date(Date.now() - 1_000) });
    const gauges = databaseGauges(db.prisma, { everyMs: 60_000 });
    expect(due(await gauges.queues(), 'trackers')).toBe(1);
    await createTracker(db.prisma, shop.id, { nextAttemptAt: new Date(Date.now() - 1_000) });
    // Within the interval: the figures read before, for every gauge.
    expect(due(await gauges.queues(), 'trackers')).toBe(1);
    expect(await gauges.trackersByState()).toContainEqual({ syncState: 'pending', count: 1 });
    // A gauge set read afresh sees both.
    const fresh = databaseGauges(db.prisma, { everyMs: 0 });
    expect(due(await fresh.queues(), 'trackers')).toBe(2);
    expect(await fresh.trackersByState()).toContainEqual({ syncState: 'pending', count: 2 });
  });

  it('counts at most `cap` rows of a figure; a paused shop’s trackers are not due', async () => {
    const shop = await createShop(db.prisma);
    const paused = await createShop(db.prisma, {
      pausedReason: 'balance_exhausted',
      pausedAt: new Date(),
      probeAt: new Date(Date.now() + 600_000),
    });
    for (let i = 0; i < 5; i++) {
      await createTracker(db.prisma, shop.id, { nextAttemptAt: new Date(Date.now() - 60_000 + i) });
      await createTracker(db.prisma, paused.id, { nextAttemptAt: new Date(Date.now() - 120_000 + i) });
    }
    const gauges = databaseGauges(db.prisma, { everyMs: 0, cap: 3 });
    const trackers = (await gauges.queues()).find((q) => q.queue === 'trackers')!;
    expect(trackers.due).toBe(3);
    // The oldest of those counted: the running shop's (the paused one's are older, and not due).
    expect(trackers.oldestDueAgeS).toBeGreaterThanOrEqual(59);
    expect(trackers.oldestDueAgeS).toBeLessThan(119);
    expect(await gauges.trackersByState()).toContainEqual({ syncState: 'pending', count: 3 });
    expect(await gauges.pausedShops()).toEqual([{ reason: 'balance_exhausted', count: 1 }]);
  });
});
