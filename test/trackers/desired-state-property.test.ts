import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCarrierMatcher } from '../../src/carriers/match.js';
import type { Shop } from '../../src/generated/sqlite/client.js';
import { applyFulfillment, applyOrderCancelled } from '../../src/trackers/desired-state.js';
import { orderCancelledPayload } from '../../src/trackers/fulfillment-payload.js';
import { useTestDatabase } from '../helpers/database.js';
import { createShop, fulfillment } from '../helpers/factories.js';

/**
 * Order of delivery does not matter: whatever order (and however many times) the store's events arrive
 * in, the trackers wanted at the end are those of each fulfilment's newest event, none for a cancelled
 * fulfilment (cancel wins) nor, when the shop deletes on cancel, for a cancelled order.
 */

const db = useTestDatabase();

const matcher = createCarrierMatcher([]);
/** Carriers as merchants type them, and the provider each maps to (null: none, the line waits). */
const carriers: Record<string, string | null> = {
  UPS: 'ups',
  FedEx: 'fedex',
  'DHL Express': 'dhl-express',
  Acme: null,
};
const numbers = ['N1', 'N2', 'N3', 'N4'];
const orders = [100, 200];

interface FulfillmentEvent {
  type: 'fulfilment';
  fulfillmentId: number;
  orderId: number;
  cancelled: boolean;
  minute: number;
  numbers: string[];
  carrier: string;
}
interface OrderCancelEvent {
  type: 'order-cancelled';
  orderId: number;
}
type StoreEvent = FulfillmentEvent | OrderCancelEvent;

/** One fulfilment's events: distinct updated_at, any numbers and carrier each, some cancellations. */
function fulfillmentEvents(fulfillmentId: number, allowCancel: boolean): fc.Arbitrary<FulfillmentEvent[]> {
  return fc
    .tuple(
      fc.constantFrom(...orders),
      fc.uniqueArray(fc.integer({ min: 0, max: 59 }), { minLength: 1, maxLength: 4 }),
    )
    .chain(([orderId, minutes]) =>
      fc.tuple(
        ...minutes.map((minute) =>
          fc.record({
            type: fc.constant('fulfilment' as const),
            fulfillmentId: fc.constant(fulfillmentId),
            orderId: fc.constant(orderId),
            cancelled: allowCancel ? fc.integer({ min: 0, max: 4 }).map((n) => n === 0) : fc.constant(false),
            minute: fc.constant(minute),
            numbers: fc.subarray(numbers),
            carrier: fc.constantFrom(...Object.keys(carriers)),
          }),
        ),
      ),
    );
}

/** Events of up to three fulfilments (and maybe order cancellations), shuffled, some delivered twice. */
function deliveries(options: { fulfillmentCancels: boolean; orderCancels: boolean }) {
  return fc
    .tuple(
      fc
        .integer({ min: 1, max: 3 })
        .chain((n) =>
          fc.tuple(
            ...Array.from({ length: n }, (_, i) => fulfillmentEvents(i + 1, options.fulfillmentCancels)),
          ),
        ),
      options.orderCancels ? fc.subarray(orders) : fc.constant([] as number[]),
    )
    .chain(([perFulfillment, cancelledOrders]) => {
      const events: StoreEvent[] = [
        ...perFulfillment.flat(),
        ...cancelledOrders.map((orderId) => ({ type: 'order-cancelled' as const, orderId })),
      ];
      return fc
        .tuple(
          fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }),
          fc.array(fc.nat(events.length - 1), { maxLength: 3 }),
        )
        .map(([order, repeats]) => ({
          events,
          delivered: [...order, ...repeats.map((i) => order[i]!)],
        }));
    });
}

/** The oracle: "number@provider" of every tracker that should be wanted. */
function expectedWanted(events: StoreEvent[], deleteOnCancel: boolean): string[] {
  const cancelledOrders = new Set(
    events.filter((e): e is OrderCancelEvent => e.type === 'order-cancelled').map((e) => e.orderId),
  );
  const byFulfillment = new Map<number, FulfillmentEvent[]>();
  for (const e of events) {
    if (e.type !== 'fulfilment') continue;
    byFulfillment.set(e.fulfillmentId, [...(byFulfillment.get(e.fulfillmentId) ?? []), e]);
  }
  const wanted = new Set<string>();
  for (const list of byFulfillment.values()) {
    if (list.some((e) => e.cancelled)) continue; // cancel wins
    if (deleteOnCancel && cancelledOrders.has(list[0]!.orderId)) continue;
    const newest = list.reduce((a, b) => (b.minute > a.minute ? b : a));
    const provider = carriers[newest.carrier];
    if (provider == null) continue;
    for (const n of newest.numbers) wanted.add(`${n}@${provider}`);
  }
  return [...wanted].sort();
}

async function deliver(shop: Shop, event: StoreEvent): Promise<void> {
  await db.prisma.$transaction(async (tx) => {
    if (event.type === 'order-cancelled') {
      await applyOrderCancelled(
        tx,
        shop,
        orderCancelledPayload.parse({ id: event.orderId, cancelled_at: '2026-11-19T00:00:00Z' }),
      );
      return;
    }
    const payload = fulfillment({
      id: event.fulfillmentId,
      orderId: event.orderId,
      status: event.cancelled ? 'cancelled' : 'success',
      updatedAt: new Date(Date.UTC(2026, 10, 18, 12, event.minute)),
      trackingNumbers: event.numbers,
      carrier: event.carrier,
      name: `#${event.orderId}.${event.fulfillmentId}`,
    });
    await applyFulfillment(tx, shop, payload, { matcher, overrides: new Map() });
  });
}

async function actualWanted(shop: Shop): Promise<string[]> {
  const rows = await db.prisma.tracker.findMany({ where: { shopId: shop.id, desired: 'active' } });
  return rows.map((t) => `${t.trackingNumber}@${t.provider}`).sort();
}

/** Desired state is self-consistent: a tracker is wanted exactly when an active line points at it. */
async function checkConsistency(shop: Shop): Promise<void> {
  const trackers = await db.prisma.tracker.findMany({ where: { shopId: shop.id } });
  const lines = await db.prisma.trackingLine.findMany({ where: { shopId: shop.id, active: true } });
  const wantedIds = new Set(lines.map((l) => l.trackerId).filter((id) => id !== null));
  for (const t of trackers) {
    expect(t.desired).toBe(wantedIds.has(t.id) ? 'active' : 'removed');
    // Nothing was ever created remotely here, so every tracker not wanted is in sync, every wanted one pending.
    expect(t.syncState).toBe(t.desired === 'active' ? 'pending' : 'synced');
  }
}

const runs = Number(process.env.PROPERTY_RUNS ?? 30);
const timeout = 90_000;

describe('desired state does not depend on delivery order (property)', () => {
  it(
    'fulfilment creates, updates and cancellations, in any order and repeated',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          deliveries({ fulfillmentCancels: true, orderCancels: false }),
          async ({ events, delivered }) => {
            const shop = await createShop(db.prisma);
            for (const event of delivered) await deliver(shop, event);
            expect(await actualWanted(shop)).toEqual(expectedWanted(events, true));
            await checkConsistency(shop);
          },
        ),
        { numRuns: runs },
      );
    },
    timeout,
  );

  it(
    'with order cancellations too (the shop deletes trackers on cancel)',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          deliveries({ fulfillmentCancels: true, orderCancels: true }),
          async ({ events, delivered }) => {
            const shop = await createShop(db.prisma);
            for (const event of delivered) await deliver(shop, event);
            expect(await actualWanted(shop)).toEqual(expectedWanted(events, true));
            await checkConsistency(shop);
          },
        ),
        { numRuns: runs },
      );
    },
    timeout,
  );

  it(
    'with order cancellations, for a shop that keeps trackers on cancel',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          deliveries({ fulfillmentCancels: false, orderCancels: true }),
          async ({ events, delivered }) => {
            const shop = await createShop(db.prisma, { deleteOnCancel: false });
            for (const event of delivered) await deliver(shop, event);
            expect(await actualWanted(shop)).toEqual(expectedWanted(events, false));
            await checkConsistency(shop);
          },
        ),
        { numRuns: runs },
      );
    },
    timeout,
  );

  it(
    'replaying every delivery once more changes nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          deliveries({ fulfillmentCancels: true, orderCancels: true }),
          async ({ delivered }) => {
            const shop = await createShop(db.prisma);
            for (const event of delivered) await deliver(shop, event);
            const snapshot = async () =>
              db.prisma.tracker.findMany({ where: { shopId: shop.id }, orderBy: { id: 'asc' } });
            const before = await snapshot();
            for (const event of delivered) await deliver(shop, event);
            expect(await snapshot()).toEqual(before);
          },
        ),
        { numRuns: Math.ceil(runs / 2) },
      );
    },
    timeout,
  );
});
