import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { recordDelivery } from '../../src/webhooks/record-delivery.js';
import type { VerifiedDelivery } from '../../src/webhooks/verify.js';
import { useOtherConnection, useTestDatabase } from '../helpers/database.js';

const db = useTestDatabase({ reset: true });
const second = useOtherConnection(db);

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

  it('group commit: many concurrent deliveries share writes, each gets its own answer', async () => {
    // 300 at once (more than one statement's 200 rows): 100 distinct events, the first 50 sent three
    // times each, and 10 that were recorded before the burst.
    for (let i = 0; i < 10; i++) await recordDelivery(db.prisma, verified({ eventId: `e-${i}` }));
    const sends: VerifiedDelivery[] = [];
    for (let i = 0; i < 100; i++) sends.push(verified({ eventId: `e-${i}`, rawBody: `{"id":${i}}` }));
    for (let i = 0; i < 50; i++) sends.push(verified({ eventId: `e-${i}` }), verified({ eventId: `e-${i}` }));
    const results = await Promise.all(sends.map((d) => recordDelivery(db.prisma, d)));
    const recorded = results.filter((r) => r.kind === 'recorded');
    expect(recorded).toHaveLength(90);
    expect(results.slice(0, 10).every((r) => r.kind === 'duplicate')).toBe(true);
    expect(results.slice(10, 100).every((r) => r.kind === 'recorded')).toBe(true);
    expect(results.slice(100).every((r) => r.kind === 'duplicate')).toBe(true);
    const rows = await db.prisma.webhookDelivery.findMany({
      select: { id: true, eventId: true, payload: true },
    });
    expect(rows).toHaveLength(100);
    // Each recorded answer names the row that holds its body.
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const [i, r] of results.slice(10, 100).entries()) {
      if (r.kind !== 'recorded') continue;
      expect(byId.get(r.id)).toEqual({ id: r.id, eventId: `e-${i + 10}`, payload: `{"id":${i + 10}}` });
    }
  });

  it('a row the database refuses fails only its own delivery, not the others written with it', async () => {
    // A NOT NULL column left empty stands in for any write the database refuses.
    const bad = verified({ eventId: 'bad', shopDomain: null as unknown as string });
    const results = await Promise.allSettled([
      recordDelivery(db.prisma, verified({ eventId: 'first' })),
      recordDelivery(db.prisma, verified({ eventId: 'good-1' })),
      recordDelivery(db.prisma, bad),
      recordDelivery(db.prisma, verified({ eventId: 'good-2' })),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const stored = await db.prisma.webhookDelivery.findMany({
      select: { eventId: true },
      orderBy: { eventId: 'asc' },
    });
    expect(stored.map((r) => r.eventId)).toEqual(['first', 'good-1', 'good-2']);
  });

  it('stores times exactly as Prisma does, so claims compare them correctly', async () => {
    const before = new Date();
    const result = await recordDelivery(db.prisma, verified({ eventId: 'times' }));
    expect(result.kind).toBe('recorded');
    const due = await db.prisma.webhookDelivery.findMany({ where: { nextAttemptAt: { lte: new Date() } } });
    expect(due.map((d) => d.eventId)).toEqual(['times']);
    expect(due[0]!.receivedAt.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(due[0]!.triggeredAt).toEqual(new Date('2026-11-18T15:21:44Z'));
    // Spelled as Prisma spells it (SQLite compares these as text).
    await db.prisma.webhookDelivery.create({
      data: { shopDomain: 's', topic: 't', eventId: 'by-prisma', webhookId: 'w', payload: '{}' },
    });
    const spelled = await db.prisma.$queryRawUnsafe<{ eventId: string; at: string }[]>(
      `SELECT "eventId", CAST("nextAttemptAt" AS TEXT) AS "at" FROM "WebhookDelivery" ORDER BY "eventId"`,
    );
    const shape = (text: string) => text.replace(/\d/g, '9');
    // Only SQLite's spelling matters: PostgreSQL compares timestamps, and its text form drops trailing
    // zeros of the fraction (.120 → .12), which made this fail there one time in ten.
    if (db.provider === 'sqlite') expect(shape(spelled[1]!.at)).toBe(shape(spelled[0]!.at));
  });
});
