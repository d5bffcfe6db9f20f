import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.js';
import { recordDelivery } from '../../src/webhooks/record-delivery.js';
import type { VerifiedDelivery } from '../../src/webhooks/verify.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { resetDatabase } from '../helpers/factories.js';

let db: TestDatabase;
let second: Database;

beforeAll(async () => {
  db = await createTestDatabase();
  second = await createDatabase(db.url);
});
afterAll(async () => {
  await second?.close();
  await db?.cleanup();
});
beforeEach(async () => {
  await resetDatabase(db.prisma);
});

function verified(overrides: Partial<VerifiedDelivery> = {}): VerifiedDelivery {
  const rawBody = overrides.rawBody ?? '{"id":1}';
  return {
    topic: 'fulfillments/create',
    shopDomain: 'record-shop.myshopify.com',
    webhookId: randomUUID(),
    eventId: 'event-1',
    apiVersion: '2026-10',
    triggeredAt: new Date('2026-11-18T15:21:44Z'),
    rawBody,
    payload: JSON.parse(rawBody) as Record<string, unknown>,
    ...overrides,
  };
}

describe('recordDelivery', () => {
  it('stores the delivery, pending and due now', async () => {
    const before = Date.now();
    const result = await recordDelivery(db.prisma, verified());
    expect(result.kind).toBe('recorded');
    const row = await db.prisma.webhookDelivery.findFirstOrThrow();
    expect(result).toEqual({ kind: 'recorded', id: row.id });
    expect(row).toMatchObject({
      shopDomain: 'record-shop.myshopify.com',
      topic: 'fulfillments/create',
      eventId: 'event-1',
      apiVersion: '2026-10',
      triggeredAt: new Date('2026-11-18T15:21:44Z'),
      payload: '{"id":1}',
      state: 'pending',
      attempts: 0,
      leaseOwner: null,
    });
    expect(row.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(row.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('answers duplicate for the same shop, topic and event id, whatever the webhook id and body', async () => {
    expect((await recordDelivery(db.prisma, verified())).kind).toBe('recorded');
    expect((await recordDelivery(db.prisma, verified({ rawBody: '{"id":2}' }))).kind).toBe('duplicate');
    expect(await db.prisma.webhookDelivery.count()).toBe(1);
    expect((await db.prisma.webhookDelivery.findFirstOrThrow()).payload).toBe('{"id":1}');
  });

  it('records the same event id under another topic or another shop', async () => {
    expect((await recordDelivery(db.prisma, verified())).kind).toBe('recorded');
    expect((await recordDelivery(db.prisma, verified({ topic: 'fulfillments/update' }))).kind).toBe(
      'recorded',
    );
    expect((await recordDelivery(db.prisma, verified({ shopDomain: 'other.myshopify.com' }))).kind).toBe(
      'recorded',
    );
    expect(await db.prisma.webhookDelivery.count()).toBe(3);
  });

  it('records one of many concurrent duplicates from two connections', async () => {
    const attempts = Array.from({ length: 8 }, (_, i) =>
      recordDelivery(i % 2 === 0 ? db.prisma : second.prisma, verified({ eventId: 'burst' })),
    );
    const results = await Promise.all(attempts);
    expect(results.filter((r) => r.kind === 'recorded')).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'duplicate')).toHaveLength(7);
    expect(await db.prisma.webhookDelivery.count()).toBe(1);
  });
});
