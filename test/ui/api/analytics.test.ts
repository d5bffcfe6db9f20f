import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/db/client.js';
import { deliveryAnalytics, percentile } from '../../../src/ui/api/analytics.js';
import { createTracker, type TrackerOverrides } from '../../helpers/factories.js';
import { type PageApiHarness, startPageApi, uniqueName } from './harness.js';

/** GET /analytics: delivery figures over 7/30/90 days, checked against numbers worked out by hand. */

let api: PageApiHarness;
let prisma: DatabaseClient;

beforeAll(async () => {
  api = await startPageApi();
  prisma = api.app.database.prisma;
});
afterAll(async () => {
  await api?.close();
});

const deps = () => ({
  prisma,
  shops: api.app.runtime.context.shops,
  carriers: api.app.runtime.context.carriers,
});
const dayMs = 86_400_000;
const now = new Date('2026-11-24T15:00:00.000Z');
const ago = (days: number) => new Date(now.getTime() - days * dayMs);
const dateOf = (d: Date) => d.toISOString().slice(0, 10);
const events = (...list: Array<[Date, string, string?]>) =>
  JSON.stringify(
    list.map(([at, status, statusDetail]) => ({
      at: at.toISOString(),
      status,
      statusDetail: statusDetail ?? null,
      message: status,
      location: null,
    })),
  );

/**
 * UPS: delivered in 2, 4 and 6 days from the first scan (one on time, one a day late, one with no
 * estimate) and one in transit after a failed attempt. DHL: one exception; one delivered 40 days ago (in
 * the 90-day figures only); one no longer wanted (never counted).
 */
async function seed(): Promise<{ domain: string }> {
  const domain = `${uniqueName('analytics')}.myshopify.com`;
  await api.as(domain).get('/shop');
  const { id } = await prisma.shop.findUniqueOrThrow({ where: { domain } });
  const make = (number: string, provider: string, overrides: TrackerOverrides) =>
    createTracker(prisma, id, {
      trackingNumber: number,
      provider,
      desired: 'active',
      remote: 'present',
      syncState: 'synced',
      ...overrides,
    } as TrackerOverrides);
  await make('UPS-ON-TIME', 'ups', {
    createdAt: ago(10),
    status: 'delivered',
    events: events([ago(9), 'in_transit'], [ago(7), 'delivered']),
    estimatedDelivery: dateOf(ago(7)),
  });
  await make('UPS-LATE', 'ups', {
    createdAt: ago(10),
    status: 'delivered',
    events: events([ago(9), 'in_transit'], [ago(5), 'delivered']),
    estimatedDelivery: dateOf(ago(6)),
  });
  await make('UPS-NO-ESTIMATE', 'ups', {
    createdAt: ago(10),
    status: 'delivered',
    events: events([ago(8), 'in_transit'], [ago(2), 'delivered']),
  });
  await make('UPS-ATTEMPT', 'ups', {
    createdAt: ago(3),
    status: 'in_transit',
    events: events([ago(2), 'attempt_fail'], [ago(1), 'in_transit']),
  });
  await make('DHL-EXCEPTION', 'dhl', {
    createdAt: ago(20),
    status: 'exception',
    events: events([ago(19), 'exception']),
  });
  await make('DHL-OLD', 'dhl', {
    createdAt: ago(40),
    status: 'delivered',
    events: events([ago(39), 'in_transit'], [ago(38), 'delivered']),
  });
  await make('DHL-REMOVED', 'dhl', { createdAt: ago(5), desired: 'removed', status: 'delivered' });
  return { domain };
}

describe('deliveryAnalytics', () => {
  it('30 days: by status, transit average and 90th percentile, on time, exceptions and failed attempts', async () => {
    const { domain } = await seed();
    const answer = await deliveryAnalytics(deps(), domain, 30, now);
    expect(answer).toMatchObject({ days: 30, from: '2026-10-26T00:00:00.000Z', to: now.toISOString() });
    expect(answer.byStatus).toMatchObject({ delivered: 3, in_transit: 1, exception: 1, failed_attempt: 0 });
    expect(answer.total).toEqual({
      shipments: 5,
      delivered: 3,
      avgTransitDays: 4,
      p90TransitDays: 6,
      onTime: { measured: 2, onTime: 1, rate: 0.5 },
      exceptions: 1,
      failedAttempts: 1,
    });
    const byCarrier = Object.fromEntries(answer.carriers.map((c) => [c.provider, c]));
    expect(answer.carriers.map((c) => c.provider)).toEqual(['ups', 'dhl']);
    expect(byCarrier.ups).toMatchObject({
      shipments: 4,
      delivered: 3,
      avgTransitDays: 4,
      p90TransitDays: 6,
      onTime: { measured: 2, onTime: 1, rate: 0.5 },
      exceptions: 0,
      failedAttempts: 1,
    });
    expect(byCarrier.dhl).toMatchObject({
      shipments: 1,
      delivered: 0,
      avgTransitDays: null,
      p90TransitDays: null,
      onTime: { measured: 0, onTime: 0, rate: null },
      exceptions: 1,
    });
  });

  it('7 and 90 days take the trackers created in that window only', async () => {
    const { domain } = await seed();
    expect((await deliveryAnalytics(deps(), domain, 7, now)).total.shipments).toBe(1);
    const ninety = await deliveryAnalytics(deps(), domain, 90, now);
    expect(ninety.total).toMatchObject({
      shipments: 6,
      delivered: 4,
      avgTransitDays: 3.3,
      p90TransitDays: 6,
    });
  });

  it('nearest-rank percentile', () => {
    expect(percentile([], 90)).toBeNull();
    expect(percentile([5], 90)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90)).toBe(9);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 90)).toBe(10);
  });
});

describe('GET /analytics', () => {
  it('answers for 7, 30 or 90 days, and refuses anything else', async () => {
    const domain = `${uniqueName('analytics-http')}.myshopify.com`;
    const ok = await api.as(domain).get('/analytics?days=90');
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ days: 90, total: { shipments: 0 }, carriers: [] });
    for (const days of ['', '14', 'abc']) {
      const bad = await api.as(domain).get(`/analytics?days=${days}`);
      expect(bad.status).toBe(400);
      expect(bad.body.issues[0]).toEqual({ field: 'days', message: 'days must be 7, 30 or 90' });
    }
  });
});
