import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/db/client.js';
import { createTracker } from '../../helpers/factories.js';
import { type PageApiHarness, startPageApi, uniqueName } from './harness.js';

/**
 * Dates the merchant enters reach the database only within a sane range: a snooze after today and at
 * most a year ahead, a list filter from 2000 to a year ahead. Anything else is a 400 naming the field,
 * on either database (PostgreSQL refused year 0 with a 500, SQLite stored it).
 */

let api: PageApiHarness;
let prisma: DatabaseClient;

beforeAll(async () => {
  api = await startPageApi();
  prisma = api.app.database.prisma;
});
afterAll(async () => {
  api?.expectNoKeyLeaked();
  await api?.close();
});

const dayMs = 86_400_000;
const utcDay = (days: number) => new Date(Date.now() + days * dayMs).toISOString().slice(0, 10);

/** A shop (made by its first page call) with one open problem. */
async function shopWithProblem(): Promise<{ domain: string; problemId: string }> {
  const domain = `${uniqueName('dates')}.myshopify.com`;
  expect((await api.as(domain).get('/overview')).status).toBe(200);
  const shop = await prisma.shop.findUniqueOrThrow({ where: { domain } });
  const tracker = await createTracker(prisma, shop.id, { remote: 'present' });
  const problem = await prisma.shipmentProblem.create({
    data: {
      shopId: shop.id,
      trackerId: tracker.id,
      kind: 'stalled',
      since: new Date('2026-11-20T10:00:00Z'),
    },
  });
  return { domain, problemId: problem.id };
}

describe('POST /problems/:id/snooze', () => {
  it.each([
    ['0000-01-01', 'until must be a day after today'],
    ['1970-01-01', 'until must be a day after today'],
    [utcDay(-1), 'until must be a day after today'],
    [utcDay(367), 'until must be within a year from today'],
    ['9999-12-31', 'until must be within a year from today'],
    ['2026-02-30', 'until must be a real date'],
    ['+275760-09-13', 'until must be a date (YYYY-MM-DD)'],
  ])('refuses %s with a 400 naming until (%s); the problem stays as it was', async (until, message) => {
    const { domain, problemId } = await shopWithProblem();
    const res = await api.as(domain).post(`/problems/${problemId}/snooze`, { until });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_input', issues: [{ field: 'until', message }] });
    const row = await prisma.shipmentProblem.findUniqueOrThrow({ where: { id: problemId } });
    expect(row.snoozedUntil).toBeNull();
  });

  it('takes any day from today (UTC: the earliest tomorrow in any zone) to a year ahead', async () => {
    for (const days of [0, 1, 365, 366]) {
      const { domain, problemId } = await shopWithProblem();
      const res = await api.as(domain).post(`/problems/${problemId}/snooze`, { until: utcDay(days) });
      expect(res.status).toBe(200);
      const row = await prisma.shipmentProblem.findUniqueOrThrow({ where: { id: problemId } });
      expect(row.snoozedUntil?.toISOString()).toBe(`${utcDay(days)}T00:00:00.000Z`);
    }
  });
});

describe('GET /shipments date filters', () => {
  it.each([
    ['from', '0000-01-01', 'from must be 2000-01-01 or later'],
    ['to', '1999-12-31', 'to must be 2000-01-01 or later'],
    ['to', '9999-12-31', 'to must be within a year from today'],
    ['from', '2026-02-30', 'from must be a real date'],
  ])('refuses %s=%s with a 400 naming the field', async (field, value, message) => {
    const domain = `${uniqueName('filters')}.myshopify.com`;
    const res = await api.as(domain).get(`/shipments?${field}=${value}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_input', issues: [{ field, message }] });
  });

  it('takes a range from 2000 to a year ahead', async () => {
    const domain = `${uniqueName('filters')}.myshopify.com`;
    const res = await api.as(domain).get(`/shipments?from=2000-01-01&to=${utcDay(366)}`);
    expect(res.status).toBe(200);
  });
});
