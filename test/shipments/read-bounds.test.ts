import { describe, expect, it } from 'vitest';
import {
  maxEventLeadMs,
  maxStoreEventsPerRead,
  readSupersedes,
  storeEventChanges,
  withoutFutureEvents,
} from '../../src/shipments/read-bounds.js';
import { statusFromShipment } from '../../src/shipments/status.js';
import { maxEventsPerList, shipmentSchema } from '../../src/tracking/schemas.js';
import type { Shipment, TrackingEvent } from '../../src/tracking/types.js';

/** What one read may do to a parcel's history, whoever sent it (src/shipments/read-bounds.ts). */

const now = new Date('2026-05-01T12:00:00Z');
const hour = 3_600_000;
const serviceTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

function event(status: string, datetime: string, statusDetail: string | null = null): TrackingEvent {
  return {
    message: statusDetail ?? status,
    description: null,
    status,
    statusDetail,
    datetime,
    source: null,
    location: null,
  };
}

function shipment(
  status: string,
  events: TrackingEvent[],
  lastEventTime = events.at(-1)?.datetime,
): Shipment {
  return {
    orderId: null,
    trackingNumber: '1Z1',
    trackingProvider: 'ups',
    status,
    estimatedDeliveryDate: null,
    originCountry: null,
    destinationCountry: null,
    deliveryNumber: null,
    deliveryProvider: null,
    shippingService: null,
    shippingServiceRaw: null,
    lastEventTime: lastEventTime ?? null,
    events,
    destinationEvents: [],
  };
}

describe('withoutFutureEvents', () => {
  const labelled = event('pre_transit', serviceTime(now.getTime() - 2 * hour), 'label_created');
  const pickedUp = event('in_transit', serviceTime(now.getTime() - hour), 'picked_up');

  it('leaves a read with nothing ahead untouched, and allows the furthest zone east of UTC (+14 h) and a skew', () => {
    const local = event('in_transit', serviceTime(now.getTime() + 14 * hour), 'arrived_at_facility');
    const read = shipment('in_transit', [labelled, pickedUp, local]);
    expect(withoutFutureEvents(read, now)).toEqual({ shipment: read, refused: 0, usable: true });
    const edge = shipment('in_transit', [event('in_transit', serviceTime(now.getTime() + maxEventLeadMs))]);
    expect(withoutFutureEvents(edge, now).refused).toBe(0);
  });

  it('refuses an event beyond that slack: 15 hours ahead is no zone’s local time', () => {
    const ahead = shipment('in_transit', [
      labelled,
      event('in_transit', serviceTime(now.getTime() + 15 * hour)),
    ]);
    const bounded = withoutFutureEvents(ahead, now);
    // The event and the read's last event time (the shipment helper dates it by its newest event).
    expect(bounded).toMatchObject({ refused: 2, usable: true });
    expect(bounded.shipment.events).toEqual([labelled]);
    expect(maxEventLeadMs).toBeLessThan(15 * hour);
  });

  it('drops events beyond the slack; status and last event time become the newest kept event’s', () => {
    const read = shipment(
      'delivered',
      [labelled, pickedUp, event('delivered', '9999-12-31 23:59:59', 'delivered')],
      '9999-12-31 23:59:59',
    );
    const bounded = withoutFutureEvents(read, now);
    expect(bounded).toMatchObject({ refused: 2, usable: true });
    expect(bounded.shipment).toMatchObject({ status: 'in_transit', lastEventTime: pickedUp.datetime });
    expect(bounded.shipment.events).toEqual([labelled, pickedUp]);
    const status = statusFromShipment(bounded.shipment);
    expect(status).toMatchObject({ status: 'in_transit', statusDetail: 'picked_up' });
    expect(status.lastEventAt).toEqual(new Date(`${pickedUp.datetime}Z`));
  });

  it('a last_event_time far ahead alone is refused too; a read with no dated event left is not usable', () => {
    const lying = withoutFutureEvents(
      shipment('delivered', [labelled, pickedUp], '9999-12-31 23:59:59'),
      now,
    );
    expect(lying).toMatchObject({ refused: 1, usable: true });
    expect(lying.shipment).toMatchObject({ status: 'in_transit', lastEventTime: pickedUp.datetime });

    const allAhead = shipment('delivered', [
      event('delivered', serviceTime(now.getTime() + 2 * maxEventLeadMs)),
    ]);
    expect(withoutFutureEvents(allAhead, now)).toMatchObject({ refused: 2, usable: false });
    const noEvents = shipment('delivered', [], '9999-12-31 23:59:59');
    expect(withoutFutureEvents(noEvents, now)).toMatchObject({ refused: 1, usable: false });
  });
});

describe('readSupersedes: newer wins, ties follow the lifecycle', () => {
  const at = new Date('2026-05-01T10:00:00Z');
  const earlier = new Date(at.getTime() - 1_000);
  const later = new Date(at.getTime() + 1_000);
  const delivered = { lastEventAt: at, status: 'delivered' };

  it('a newer read applies, an older one does not, whatever the statuses', () => {
    expect(readSupersedes(delivered, { lastEventAt: later, status: 'in_transit' }, now)).toBe(true);
    expect(
      readSupersedes(
        { lastEventAt: at, status: 'in_transit' },
        { lastEventAt: earlier, status: 'delivered' },
        now,
      ),
    ).toBe(false);
    expect(
      readSupersedes({ lastEventAt: null, status: null }, { lastEventAt: earlier, status: 'pending' }, now),
    ).toBe(true);
    expect(readSupersedes(delivered, { lastEventAt: null, status: 'pending' }, now)).toBe(false);
  });

  it('at the same instant a final status is not undone by a non-final one; the other way round it is replaced', () => {
    expect(readSupersedes(delivered, { lastEventAt: new Date(at), status: 'in_transit' }, now)).toBe(false);
    expect(readSupersedes(delivered, { lastEventAt: new Date(at), status: 'delivered' }, now)).toBe(true);
    expect(readSupersedes(delivered, { lastEventAt: new Date(at), status: 'return_to_sender' }, now)).toBe(
      true,
    );
    expect(
      readSupersedes(
        { lastEventAt: at, status: 'in_transit' },
        { lastEventAt: new Date(at), status: 'delivered' },
        now,
      ),
    ).toBe(true);
    expect(
      readSupersedes(
        { lastEventAt: at, status: 'pre_transit' },
        { lastEventAt: new Date(at), status: 'in_transit' },
        now,
      ),
    ).toBe(true);
  });

  it('the same instant written in another zone is the same instant', () => {
    const read = statusFromShipment(
      shipment('in_transit', [event('in_transit', '2026-05-01 15:30:00+05:30')], '2026-05-01 15:30:00+05:30'),
    );
    expect(read.lastEventAt).toEqual(at);
    expect(readSupersedes(delivered, read, now)).toBe(false);
  });

  it('a stored time more than a day ahead (written before the rule) holds no read back', () => {
    const frozen = { lastEventAt: new Date('9999-12-31T23:59:59Z'), status: 'delivered' };
    expect(readSupersedes(frozen, { lastEventAt: earlier, status: 'in_transit' }, now)).toBe(true);
  });
});

describe('storeEventChanges', () => {
  it('13 436 alternating events: the newest few changes, the same ones on every read', () => {
    const start = now.getTime() - 20_000 * 1_000;
    const events = Array.from({ length: 13_436 }, (_, i) =>
      event(i % 2 === 0 ? 'in_transit' : 'delivered', serviceTime(start + i * 1_000)),
    );
    const changes = storeEventChanges(events);
    expect(changes).toHaveLength(maxStoreEventsPerRead);
    expect(changes.at(-1)).toMatchObject({
      status: 'DELIVERED',
      happenedAt: new Date(`${events.at(-1)!.datetime}Z`),
    });
    expect(storeEventChanges(events.slice(1))).toEqual(changes);
  });

  it('a usual lifecycle is written whole', () => {
    const t = (h: number) => serviceTime(now.getTime() - (10 - h) * hour);
    const events = [
      event('pre_transit', t(0), 'label_created'),
      event('in_transit', t(1), 'picked_up'),
      event('in_transit', t(2), 'arrived_at_facility'),
      event('in_transit', t(3), 'out_for_delivery'),
      event('delivered', t(4), 'delivered'),
    ];
    expect(storeEventChanges(events).map((c) => c.status)).toEqual([
      'LABEL_PRINTED',
      'CARRIER_PICKED_UP',
      'IN_TRANSIT',
      'OUT_FOR_DELIVERY',
      'DELIVERED',
    ]);
  });
});

describe('what one read parses', () => {
  it(`keeps the last ${maxEventsPerList} events of a list, as listed`, () => {
    const events = Array.from({ length: maxEventsPerList + 100 }, (_, i) => ({
      message: `scan ${i}`,
      status: 'in_transit',
      datetime: serviceTime(now.getTime() - (1_000 - i) * 60_000),
    }));
    const parsed = shipmentSchema.parse({ tracking_number: '1Z1', events });
    expect(parsed.events).toHaveLength(maxEventsPerList);
    expect(parsed.events[0]!.message).toBe('scan 100');
    expect(parsed.events.at(-1)!.message).toBe(`scan ${maxEventsPerList + 99}`);
  });
});
