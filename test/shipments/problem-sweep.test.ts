import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { problemEpisodeGapMs, sweepProblems } from '../../src/shipments/problem-sweep.js';
import { useOtherConnection, useTestDatabase } from '../helpers/database.js';
import { createShop, createTracker } from '../helpers/factories.js';

/**
 * The problem sweep on the database: problems open once per episode, close by themselves when the parcel
 * moves on or is delivered, stay closed when the merchant handled them, and two processes sweeping the
 * same shipments at once open each problem once. A status that flaps (closes and raises a problem again
 * within a short time) continues one episode.
 */

const db = useTestDatabase({ reset: true });
const second = useOtherConnection(db);

// Wednesday 25 November 2026, noon UTC.
const now = new Date('2026-11-25T12:00:00Z');
const at = (iso: string) => new Date(iso);
const sweep = (when = now, prisma = db.prisma) =>
  sweepProblems({ prisma, logger: silentLogger, now: () => when }, 200);

async function shipment(over: Parameters<typeof createTracker>[2] = {}) {
  const shop = await createShop(db.prisma);
  const tracker = await createTracker(db.prisma, shop.id, {
    remote: 'present',
    syncState: 'synced',
    createdAt: at('2026-11-16T09:00:00Z'),
    syncedAt: at('2026-11-16T09:05:00Z'),
    status: 'in_transit',
    lastEventAt: at('2026-11-24T08:00:00Z'),
    lastEventMessage: 'Departed facility',
    ...over,
  });
  await db.prisma.tracker.update({ where: { id: tracker.id }, data: { problemCheckAt: now } });
  return { shop, tracker };
}

const problems = (trackerId: string) =>
  db.prisma.shipmentProblem.findMany({ where: { trackerId }, orderBy: { openedAt: 'asc' } });
const checkAt = async (id: string) =>
  (await db.prisma.tracker.findUniqueOrThrow({ where: { id } })).problemCheckAt;

describe('sweepProblems', () => {
  it('opens a carrier exception once, dated by its event; a new event closes it (moved)', async () => {
    const { tracker } = await shipment({ status: 'exception', lastEventMessage: 'Damaged in transit' });
    expect(await sweep()).toEqual({ evaluated: 1, opened: 1, closed: 0, reopened: 0 });
    const [open] = await problems(tracker.id);
    expect(open).toMatchObject({
      kind: 'carrier_exception',
      since: at('2026-11-24T08:00:00Z'),
      detail: 'Damaged in transit',
      closedAt: null,
    });
    // Nothing else can open it by time: not looked at again until the status changes.
    expect(await checkAt(tracker.id)).toBeNull();
    expect(await sweep()).toEqual({ evaluated: 0, opened: 0, closed: 0, reopened: 0 });

    // The parcel moves on (a status read stores a new event and makes it due).
    await db.prisma.tracker.update({
      where: { id: tracker.id },
      data: { status: 'in_transit', lastEventAt: at('2026-11-25T09:00:00Z'), problemCheckAt: now },
    });
    expect(await sweep()).toEqual({ evaluated: 1, opened: 0, closed: 1, reopened: 0 });
    expect((await problems(tracker.id))[0]).toMatchObject({ closedReason: 'moved', closedAt: now });
  });

  it('a waiting rule is looked at when it could fire, and opens then', async () => {
    const { tracker } = await shipment({ lastEventAt: at('2026-11-24T08:00:00Z') });
    expect(await sweep()).toMatchObject({ evaluated: 1, opened: 0 });
    // Tuesday 08:00 + 4 business days: Monday 30 November 08:00.
    expect((await checkAt(tracker.id))?.toISOString()).toBe('2026-11-30T08:00:00.000Z');
    expect(await sweep(at('2026-11-30T07:59:00Z'))).toMatchObject({ evaluated: 0 });
    expect(await sweep(at('2026-11-30T08:00:00Z'))).toMatchObject({ evaluated: 1, opened: 1 });
    expect((await problems(tracker.id)).map((p) => p.kind)).toEqual(['stalled']);
  });

  it('delivered closes what is open (delivered); no longer wanted closes it (ended)', async () => {
    const a = await shipment({ status: 'failure' });
    const b = await shipment({ status: 'on_hold' });
    expect(await sweep()).toMatchObject({ opened: 2 });
    await db.prisma.tracker.update({
      where: { id: a.tracker.id },
      data: { status: 'delivered', lastEventAt: at('2026-11-25T10:00:00Z'), problemCheckAt: now },
    });
    await db.prisma.tracker.update({
      where: { id: b.tracker.id },
      data: { desired: 'removed', problemCheckAt: now },
    });
    expect(await sweep()).toMatchObject({ evaluated: 2, closed: 2 });
    expect((await problems(a.tracker.id))[0]!.closedReason).toBe('delivered');
    expect((await problems(b.tracker.id))[0]!.closedReason).toBe('ended');
  });

  it('handled by the merchant: not opened again while the same episode lasts; a new episode opens anew', async () => {
    const { tracker } = await shipment({ status: 'on_hold' });
    await sweep();
    const [first] = await problems(tracker.id);
    await db.prisma.shipmentProblem.update({
      where: { id: first!.id },
      data: { closedAt: now, closedReason: 'handled', note: 'Called the carrier' },
    });
    await db.prisma.tracker.update({ where: { id: tracker.id }, data: { problemCheckAt: now } });
    expect(await sweep()).toEqual({ evaluated: 1, opened: 0, closed: 0, reopened: 0 });
    // Held again after a new event: a new problem.
    await db.prisma.tracker.update({
      where: { id: tracker.id },
      data: { lastEventAt: at('2026-11-25T11:00:00Z'), problemCheckAt: now },
    });
    expect(await sweep()).toMatchObject({ opened: 1 });
    expect((await problems(tracker.id)).map((p) => [p.closedReason, p.note])).toEqual([
      ['handled', 'Called the carrier'],
      [null, null],
    ]);
  });

  it('two processes sweeping at once open each problem once', async () => {
    const made = [];
    for (let i = 0; i < 30; i++) made.push(await shipment({ status: i % 2 ? 'exception' : 'failure' }));
    const [x, y] = await Promise.all([sweep(now, db.prisma), sweep(now, second.prisma)]);
    expect(x.evaluated + y.evaluated).toBe(30);
    expect(x.opened + y.opened).toBe(30);
    expect(await db.prisma.shipmentProblem.count()).toBe(30);
    // Made due again by both at once (a duplicate push): still one each.
    await db.prisma.tracker.updateMany({ data: { problemCheckAt: now } });
    await Promise.all([sweep(now, db.prisma), sweep(now, second.prisma)]);
    expect(await db.prisma.shipmentProblem.count()).toBe(30);
    expect(made).toHaveLength(30);
  });

  it('a status change while a sweep evaluates: the change is evaluated again, never lost', async () => {
    const { tracker } = await shipment({ status: 'in_transit' });
    // The sweep claims the tracker…
    const claimed = sweep();
    // …and a status read stores an exception meanwhile (it makes the tracker due now).
    await db.prisma.tracker.update({
      where: { id: tracker.id },
      data: { status: 'exception', lastEventAt: at('2026-11-25T11:30:00Z'), problemCheckAt: now },
    });
    await claimed;
    await sweep();
    expect((await problems(tracker.id)).map((p) => p.kind)).toEqual(['carrier_exception']);
  });

  it('slower than usual: from the shop’s transit statistics for the carrier and country', async () => {
    const { shop, tracker } = await shipment({
      destinationCountry: 'DE',
      events: JSON.stringify([{ at: '2026-11-17T09:00:00Z', status: 'in_transit', message: 'Picked up' }]),
      lastEventAt: at('2026-11-24T08:00:00Z'),
    });
    await db.prisma.transitStat.create({
      data: {
        shopId: shop.id,
        provider: 'ups',
        destinationCountry: 'DE',
        samples: 40,
        medianSeconds: 3 * 86_400,
        p90Seconds: 6 * 86_400,
        computedAt: now,
      },
    });
    await sweep();
    // First scan 17 November 09:00 + 6 days: slower than usual since 23 November 09:00.
    expect((await problems(tracker.id)).map((p) => [p.kind, p.since.toISOString()])).toEqual([
      ['slower_than_usual', '2026-11-23T09:00:00.000Z'],
    ]);
  });

  it('a stalled parcel whose status flaps for hundreds of events keeps one problem: one episode, not one per flip', async () => {
    // Pushes of old events, each newer than the last, statuses alternating: stalled (in transit for days)
    // and delivered (closes it), each change made due at once, as a stored read does.
    const { tracker } = await shipment({ status: 'in_transit', lastEventAt: at('2026-11-10T08:00:00Z') });
    const totals = { opened: 0, closed: 0, reopened: 0 };
    for (let i = 0; i < 200; i++) {
      const stalled = i % 2 === 0;
      await db.prisma.tracker.update({
        where: { id: tracker.id },
        data: {
          status: stalled ? 'in_transit' : 'delivered',
          lastEventAt: new Date(at('2026-11-10T08:00:00Z').getTime() + i * 60_000),
          problemCheckAt: now,
        },
      });
      const pass = await sweep(new Date(now.getTime() + i * 1_000));
      totals.opened += pass.opened;
      totals.closed += pass.closed;
      totals.reopened += pass.reopened;
    }
    const rows = await problems(tracker.id);
    expect(rows.map((p) => p.kind)).toEqual(['stalled']);
    // Opened once, then closed by each "delivered" and continued by each "in transit" after it.
    expect(totals).toEqual({ opened: 1, closed: 100, reopened: 99 });
    expect(rows[0]).toMatchObject({
      since: at('2026-11-10T08:00:00Z'),
      openedAt: now,
      closedReason: 'delivered',
    });
  }, 60_000);

  it('an exception raised again after the episode gap is a new problem; one the merchant handled is not reopened', async () => {
    const { tracker } = await shipment({ status: 'exception', lastEventAt: at('2026-11-25T08:00:00Z') });
    await sweep();
    const moveTo = async (status: string, lastEventAt: Date) =>
      db.prisma.tracker.update({
        where: { id: tracker.id },
        data: { status, lastEventAt, problemCheckAt: new Date('2026-01-01T00:00:00Z') },
      });
    // A new exception event while it is open: the same problem goes on (not closed and opened anew).
    await moveTo('exception', at('2026-11-25T09:00:00Z'));
    expect(await sweep()).toEqual({ evaluated: 1, opened: 0, closed: 0, reopened: 0 });
    await moveTo('in_transit', at('2026-11-25T10:00:00Z'));
    expect(await sweep()).toMatchObject({ closed: 1 });
    // Raised again a day and a minute after it closed: a new episode.
    const later = new Date(now.getTime() + problemEpisodeGapMs + 60_000);
    await moveTo('exception', at('2026-11-26T11:00:00Z'));
    expect(await sweep(later)).toMatchObject({ opened: 1, reopened: 0 });
    let rows = await problems(tracker.id);
    expect(rows.map((p) => [p.kind, p.closedReason])).toEqual([
      ['carrier_exception', 'moved'],
      ['carrier_exception', null],
    ]);
    // The merchant handles it; the parcel moves and has an exception again at once: not reopened, a new one.
    await db.prisma.shipmentProblem.update({
      where: { id: rows[1]!.id },
      data: { closedAt: later, closedReason: 'handled' },
    });
    await moveTo('exception', at('2026-11-26T12:00:00Z'));
    expect(await sweep(later)).toMatchObject({ opened: 1, reopened: 0 });
    rows = await problems(tracker.id);
    expect(rows.map((p) => p.closedReason)).toEqual(['moved', 'handled', null]);
  });
});
