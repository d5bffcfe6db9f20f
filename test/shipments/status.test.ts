import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lifecycleSchedule } from '../../tools/emulator/lifecycle.js';
import {
  defaultPollPolicy,
  describeLocation,
  isTroubleStatus,
  isFinalStatus,
  maxStoredEvents,
  nextPollAt,
  nextReadAt,
  parseServiceTime,
  platformStatusFor,
  type PollPolicy,
  statusChanges,
  statusFromShipment,
} from '../../src/shipments/status.js';
import { normaliseStatusCode } from '../../src/shipments/parcel-model.js';
import { shipmentSchema } from '../../src/tracking/schemas.js';
import type { Shipment, TrackingEvent } from '../../src/tracking/types.js';
import { dropsPickedUpDetail, emulatorEvents, keepsEveryDetail, pickNumbers } from './lifecycle.js';

/** Pure parts of src/shipments/status.ts: mapping, change detection, times, and the poll schedule. */

function event(
  datetime: string,
  status: string,
  statusDetail: string | null = null,
  extra: Partial<TrackingEvent> = {},
): TrackingEvent {
  return {
    message: `${status}/${statusDetail ?? '-'} at ${datetime}`,
    description: null,
    status,
    statusDetail,
    datetime,
    source: 'UPS',
    location: { city: 'Louisville', state: 'KY', country: 'US', zip: '40003' },
    ...extra,
  };
}

/** A shipment as the client hands it over, from the service's wire format. */
function fromWire(data: Record<string, unknown>): Shipment {
  return shipmentSchema.parse(data);
}

describe('platformStatusFor', () => {
  /** Every (status, status_detail) the emulator's lifecycle sends, with the detail kept and dropped. */
  const emulatorCases: Array<[string, string | null, string]> = [
    ['pre_transit', 'label_created', 'LABEL_PRINTED'],
    ['pre_transit', null, 'LABEL_PRINTED'],
    ['in_transit', 'picked_up', 'CARRIER_PICKED_UP'],
    ['in_transit', 'arrived_at_facility', 'IN_TRANSIT'],
    ['in_transit', 'out_for_delivery', 'OUT_FOR_DELIVERY'],
    ['in_transit', null, 'IN_TRANSIT'],
    ['delivered', 'delivered', 'DELIVERED'],
    ['delivered', null, 'DELIVERED'],
  ];

  it.each(emulatorCases)('%s / %s → %s', (status, detail, expected) => {
    expect(platformStatusFor({ status, statusDetail: detail })).toBe(expected);
  });

  it('covers every step of the emulator’s lifecycle (a new step must be added above)', () => {
    const covered = new Set(emulatorCases.map(([s, d]) => `${s}/${d}`));
    for (const step of lifecycleSchedule) {
      expect(covered, `${step.status}/${step.statusDetail}`).toContain(`${step.status}/${step.statusDetail}`);
      if (!step.keepStatusDetail) expect(covered).toContain(`${step.status}/null`);
    }
  });

  it('maps every event of real emulator histories, with and without dropped details', () => {
    const numbers = [
      ...pickNumbers(3, (i) => `1ZSTAT${String(i).padStart(8, '0')}`, keepsEveryDetail),
      ...pickNumbers(3, (i) => `1ZDROP${String(i).padStart(8, '0')}`, dropsPickedUpDetail),
    ];
    for (const number of numbers) {
      for (const e of emulatorEvents(number)) {
        expect(platformStatusFor({ status: e.status, statusDetail: e.status_detail ?? null })).not.toBeNull();
      }
    }
  });

  it.each([
    ['In Transit', null, 'IN_TRANSIT'],
    ['IN-TRANSIT', null, 'IN_TRANSIT'],
    ['  in   transit ', null, 'IN_TRANSIT'],
    ['transit', null, 'IN_TRANSIT'],
    ['in_transit', 'Out For Delivery', 'OUT_FOR_DELIVERY'],
    ['in_transit', 'out-for-delivery', 'OUT_FOR_DELIVERY'],
    ['Pre-Transit', 'Label Created', 'LABEL_PRINTED'],
    ['pre_transit', 'label_printed', 'LABEL_PRINTED'],
    ['info_received', null, 'LABEL_PRINTED'],
    ['out_for_delivery', null, 'OUT_FOR_DELIVERY'],
    ['available_for_pickup', null, 'READY_FOR_PICKUP'],
    ['in_transit', 'ready_for_pickup', 'READY_FOR_PICKUP'],
    ['in_transit', 'Available For Pickup', 'READY_FOR_PICKUP'],
    ['attempt_fail', null, 'ATTEMPTED_DELIVERY'],
    ['in_transit', 'failed_attempt', 'ATTEMPTED_DELIVERY'],
    ['in_transit', 'delivery_attempted', 'ATTEMPTED_DELIVERY'],
    ['delayed', null, 'DELAYED'],
    ['exception', null, 'DELAYED'],
    ['in_transit', 'weather_delay', 'DELAYED'],
    ['Delivered', null, 'DELIVERED'],
    // The service's "Delivery Failure" is a failed attempt, not a parcel that will not arrive.
    ['failure', null, 'ATTEMPTED_DELIVERY'],
    ['in_transit', 'failure', 'ATTEMPTED_DELIVERY'],
    ['on_hold', null, 'DELAYED'],
    ['in_transit', 'on_hold', 'DELAYED'],
    ['available_for_pickup', null, 'READY_FOR_PICKUP'],
    ['failed', null, 'FAILURE'],
    ['undeliverable', null, 'FAILURE'],
    ['return_to_sender', null, 'FAILURE'],
    ['in_transit', 'return_to_sender', 'FAILURE'],
  ])('lenient spelling %j / %j → %s', (status, detail, expected) => {
    expect(platformStatusFor({ status, statusDetail: detail })).toBe(expected);
  });

  it.each([
    'label_cancelled',
    'pending_trackship',
    'connection_issue',
    'invalid_tracking',
    'invalid_carrier',
    'carrier_unsupported',
    'deleted',
    'expired',
    'some_status_added_later',
  ])('%s is never written to the store, whatever its detail', (status) => {
    expect(platformStatusFor({ status, statusDetail: null })).toBeNull();
    if (status !== 'some_status_added_later')
      expect(platformStatusFor({ status, statusDetail: 'delivered' })).toBeNull();
  });

  it('stops polling a tracker the service will not follow, keeps polling one it has not fetched yet', () => {
    for (const s of [
      'deleted',
      'expired',
      'invalid_tracking',
      'invalid_carrier',
      'carrier_unsupported',
      'label_cancelled',
    ])
      expect(isFinalStatus(s), s).toBe(true);
    for (const s of ['pending_trackship', 'connection_issue', 'on_hold'])
      expect(isFinalStatus(s), s).toBe(false);
  });

  it('a precise status_detail wins over the status; an unknown detail falls back to the status', () => {
    expect(platformStatusFor({ status: 'in_transit', statusDetail: 'delivered' })).toBe('DELIVERED');
    expect(platformStatusFor({ status: 'delivered', statusDetail: 'no_such_detail' })).toBe('DELIVERED');
    expect(platformStatusFor({ status: 'in_transit', statusDetail: '' })).toBe('IN_TRANSIT');
  });

  it.each([
    ['pending', null],
    ['unknown', null],
    ['', null],
    ['cancelled', null],
    ['expired', null],
    ['returned', null],
    ['teleported', 'beamed_up'],
    ['in transit!', null],
  ])('no platform counterpart: %j / %j → null', (status, detail) => {
    expect(platformStatusFor({ status, statusDetail: detail })).toBeNull();
  });

  it('normalises case, spaces and hyphens; final and exception statuses are recognised leniently', () => {
    expect(normaliseStatusCode('  Out-For  Delivery ')).toBe('out_for_delivery');
    expect(normaliseStatusCode(null)).toBe('');
    expect(normaliseStatusCode(undefined)).toBe('');
    for (const s of [
      'delivered',
      'Delivered',
      'returned',
      'Return To Sender',
      'expired',
      'cancelled',
      'canceled',
    ])
      expect(isFinalStatus(s), s).toBe(true);
    for (const s of ['pending', 'pre_transit', 'in_transit', 'out_for_delivery', 'failure', '', null])
      expect(isFinalStatus(s), String(s)).toBe(false);
    for (const s of [
      'failure',
      'Exception',
      'attempt-fail',
      'delayed',
      'return_to_sender',
      'invalid_tracking',
    ])
      expect(isTroubleStatus(s), s).toBe(true);
    for (const s of ['in_transit', 'delivered', 'pending', null]) expect(isTroubleStatus(s)).toBe(false);
  });
});

describe('statusChanges', () => {
  it('one change per platform status change: repeated scans collapse', () => {
    const changes = statusChanges([
      event('2026-11-18 10:15:00', 'pre_transit', 'label_created'),
      event('2026-11-18 16:00:00', 'in_transit', 'picked_up'),
      event('2026-11-18 18:00:00', 'in_transit', null),
      event('2026-11-19 06:00:00', 'in_transit', 'arrived_at_facility'),
      event('2026-11-20 02:00:00', 'in_transit', 'out_for_delivery'),
      event('2026-11-20 02:30:00', 'in_transit', 'out_for_delivery'),
      event('2026-11-20 10:00:00', 'delivered', 'delivered'),
      event('2026-11-20 10:00:05', 'delivered', null),
    ]);
    expect(changes.map((c) => [c.status, c.happenedAt.toISOString()])).toEqual([
      ['LABEL_PRINTED', '2026-11-18T10:15:00.000Z'],
      ['CARRIER_PICKED_UP', '2026-11-18T16:00:00.000Z'],
      ['IN_TRANSIT', '2026-11-18T18:00:00.000Z'],
      ['OUT_FOR_DELIVERY', '2026-11-20T02:00:00.000Z'],
      ['DELIVERED', '2026-11-20T10:00:00.000Z'],
    ]);
  });

  it('a status that comes back after another is a new change', () => {
    const changes = statusChanges([
      event('2026-11-18 10:00:00', 'in_transit'),
      event('2026-11-18 11:00:00', 'delayed'),
      event('2026-11-18 12:00:00', 'in_transit'),
    ]);
    expect(changes.map((c) => c.status)).toEqual(['IN_TRANSIT', 'DELAYED', 'IN_TRANSIT']);
  });

  it('skips events with no counterpart without breaking a run, and events whose time is unreadable', () => {
    const changes = statusChanges([
      event('2026-11-18 10:00:00', 'in_transit'),
      event('2026-11-18 11:00:00', 'unknown'),
      event('2026-11-18 11:30:00', 'pending'),
      event('2026-11-18 12:00:00', 'in_transit'),
      event('soon', 'delivered'),
      event('', 'delivered'),
      event('2026-02-30 10:00:00', 'delivered'),
    ]);
    expect(changes.map((c) => [c.status, c.happenedAt.toISOString()])).toEqual([
      ['IN_TRANSIT', '2026-11-18T10:00:00.000Z'],
    ]);
  });

  it('sorts by time (a list out of order is not trusted); equal times keep their order', () => {
    const changes = statusChanges([
      event('2026-11-20 10:00:00', 'delivered'),
      event('2026-11-18 10:15:00', 'pre_transit'),
      event('2026-11-20 02:00:00', 'in_transit', 'out_for_delivery'),
      event('2026-11-19T06:00:00Z', 'in_transit'),
      event('2026-11-19 06:00:00', 'delayed'),
    ]);
    expect(changes.map((c) => c.status)).toEqual([
      'LABEL_PRINTED',
      'IN_TRANSIT',
      'DELAYED',
      'OUT_FOR_DELIVERY',
      'DELIVERED',
    ]);
  });

  it('carries the event’s message and location; empty location parts are null', () => {
    const [withPlace, empty, none] = statusChanges([
      event('2026-11-18 10:00:00', 'pre_transit', null, { message: 'Label created' }),
      event('2026-11-18 11:00:00', 'in_transit', null, {
        location: { city: '', state: null, country: 'US', zip: '' },
      }),
      event('2026-11-18 12:00:00', 'delivered', null, { location: null }),
    ]);
    expect(withPlace).toMatchObject({
      message: 'Label created',
      city: 'Louisville',
      province: 'KY',
      country: 'US',
      zip: '40003',
    });
    expect(empty).toMatchObject({ city: null, province: null, country: 'US', zip: null });
    expect(none).toMatchObject({ city: null, province: null, country: null, zip: null });
  });

  it('the same history gives the same list; a longer history extends it (the write-back key is stable)', () => {
    const statuses = ['pre_transit', 'in_transit', 'delayed', 'out_for_delivery', 'delivered', 'unknown'];
    const details = [null, 'picked_up', 'label_created', 'out_for_delivery', 'bogus'];
    const history = fc
      .array(
        fc.record({
          minutes: fc.integer({ min: 0, max: 100_000 }),
          status: fc.constantFrom(...statuses),
          detail: fc.constantFrom(...details),
        }),
        { maxLength: 25 },
      )
      .map((list) =>
        list
          .sort((a, b) => a.minutes - b.minutes)
          .map((e) =>
            event(
              new Date(Date.UTC(2026, 10, 18) + e.minutes * 60_000)
                .toISOString()
                .slice(0, 19)
                .replace('T', ' '),
              e.status,
              e.detail,
            ),
          ),
      );
    fc.assert(
      fc.property(history, fc.nat(), (events, cut) => {
        const full = statusChanges(events);
        expect(statusChanges([...events])).toEqual(full);
        const prefix = statusChanges(events.slice(0, cut % (events.length + 1)));
        expect(full.slice(0, prefix.length)).toEqual(prefix);
        for (let i = 1; i < full.length; i++) expect(full[i]!.status).not.toBe(full[i - 1]!.status);
      }),
    );
  });
});

describe('parseServiceTime', () => {
  it.each([
    ['2026-11-18 10:21:43', '2026-11-18T10:21:43.000Z'],
    ['2026-11-18T10:21:43', '2026-11-18T10:21:43.000Z'],
    ['  2026-11-18 10:21:43  ', '2026-11-18T10:21:43.000Z'],
    ['2026-11-18 10:21', '2026-11-18T10:21:00.000Z'],
    ['2026-11-18 10:21:43.5', '2026-11-18T10:21:43.500Z'],
    ['2026-11-18 10:21:43.123456', '2026-11-18T10:21:43.123Z'],
    ['2028-02-29 12:00:00', '2028-02-29T12:00:00.000Z'],
  ])('%j without a zone is UTC → %s', (text, iso) => {
    expect(parseServiceTime(text)?.toISOString()).toBe(iso);
  });

  it.each([
    ['2026-11-18T10:21:43Z', '2026-11-18T10:21:43.000Z'],
    ['2026-11-18T10:21:43z', '2026-11-18T10:21:43.000Z'],
    ['2026-11-18 10:21:43+05:30', '2026-11-18T04:51:43.000Z'],
    ['2026-11-18 10:21:43+0530', '2026-11-18T04:51:43.000Z'],
    ['2026-11-18 10:21:43 -05:00', '2026-11-18T15:21:43.000Z'],
    ['2026-11-18T23:30:00-0100', '2026-11-19T00:30:00.000Z'],
  ])('%j with a zone → %s', (text, iso) => {
    expect(parseServiceTime(text)?.toISOString()).toBe(iso);
  });

  it('a date alone is midnight UTC', () => {
    expect(parseServiceTime('2026-11-20')?.toISOString()).toBe('2026-11-20T00:00:00.000Z');
  });

  it('does not depend on the process time zone', () => {
    // Fixed offsets only: the parser never reads the local zone.
    const a = parseServiceTime('2026-03-29 01:30:00');
    expect(a?.getTime()).toBe(Date.UTC(2026, 2, 29, 1, 30, 0));
  });

  it.each([
    null,
    undefined,
    '',
    '   ',
    'garbage',
    'yesterday',
    '18/11/2026 10:21:43',
    '2026-11-18 25:00:00',
    '2026-11-18 10:61:00',
    '2026-13-01',
    '2026-13-01 10:00:00',
    '2026-02-30',
    '2026-02-30 10:00:00',
    '2027-02-29 10:00:00',
    '2026-04-31',
    '2026-11-18 10:21:43 PST',
    '2026-11-18T10:21:43+25:00',
    '1763461303',
  ])('garbage %j → null', (text) => {
    expect(parseServiceTime(text)).toBeNull();
  });
});

describe('nextPollAt', () => {
  const policy: PollPolicy = {
    firstPollMs: 60_000,
    preTransitMs: 6 * 3_600_000,
    movingMs: 3 * 3_600_000,
    outForDeliveryMs: 3_600_000,
    stalledMs: 12 * 3_600_000,
    stalledAfterMs: 3 * 86_400_000,
    giveUpAfterMs: 90 * 86_400_000,
    jitter: 0,
  };
  const now = new Date('2026-11-20T12:00:00Z');
  const created = new Date('2026-11-18T12:00:00Z');
  const recent = new Date('2026-11-20T11:00:00Z');
  const inMs = (status: string, statusDetail: string | null = null, lastEventAt: Date | null = recent) => {
    const at = nextPollAt({ status, statusDetail, lastEventAt }, created, now, policy);
    return at === null ? null : at.getTime() - now.getTime();
  };

  it.each([
    ['pending', null, policy.preTransitMs],
    ['unknown', null, policy.preTransitMs],
    ['', null, policy.preTransitMs],
    ['pre_transit', 'label_created', policy.preTransitMs],
    ['Pre Transit', null, policy.preTransitMs],
    ['in_transit', 'picked_up', policy.movingMs],
    ['in_transit', null, policy.movingMs],
    ['in_transit', 'arrived_at_facility', policy.movingMs],
    ['in_transit', 'out_for_delivery', policy.outForDeliveryMs],
    ['out_for_delivery', null, policy.outForDeliveryMs],
    ['exception', null, policy.movingMs],
    ['failure', null, policy.movingMs],
    ['something_new', null, policy.movingMs],
  ])('%j / %j → in %d ms', (status, detail, ms) => {
    expect(inMs(status, detail)).toBe(ms);
  });

  it.each(['delivered', 'Delivered', 'returned', 'return_to_sender', 'expired', 'cancelled', 'canceled'])(
    'a final status (%j) stops polling',
    (status) => {
      expect(inMs(status, 'delivered')).toBeNull();
    },
  );

  it('no new event for stalledAfterMs: read at most every stalledMs', () => {
    const quiet = new Date(now.getTime() - policy.stalledAfterMs);
    const almost = new Date(now.getTime() - policy.stalledAfterMs + 1);
    expect(inMs('in_transit', null, quiet)).toBe(policy.stalledMs);
    expect(inMs('in_transit', null, almost)).toBe(policy.movingMs);
    expect(inMs('in_transit', 'out_for_delivery', quiet)).toBe(policy.stalledMs);
    expect(inMs('pending', null, quiet)).toBe(policy.stalledMs);
    // A stalled interval shorter than the status's own keeps the longer one.
    const odd = { ...policy, stalledMs: 60_000 };
    const at = nextPollAt({ status: 'pending', statusDetail: null, lastEventAt: quiet }, created, now, odd);
    expect(at!.getTime() - now.getTime()).toBe(policy.preTransitMs);
    // No event yet, or an event "in the future" (the service's clock ahead): not stalled.
    expect(inMs('pending', null, null)).toBe(policy.preTransitMs);
    expect(inMs('in_transit', null, new Date(now.getTime() + 86_400_000))).toBe(policy.movingMs);
  });

  it('gives up giveUpAfterMs after the tracker was created, whatever the status', () => {
    const old = new Date(now.getTime() - policy.giveUpAfterMs);
    const younger = new Date(now.getTime() - policy.giveUpAfterMs + 1);
    expect(
      nextPollAt({ status: 'in_transit', statusDetail: null, lastEventAt: recent }, old, now, policy),
    ).toBe(null);
    expect(
      nextPollAt({ status: 'in_transit', statusDetail: null, lastEventAt: recent }, younger, now, policy),
    ).not.toBeNull();
  });

  it('jitter spreads ± the policy’s fraction, never below a second', () => {
    const jittered = { ...policy, jitter: 0.2 };
    const at = (random: number) =>
      nextPollAt(
        { status: 'in_transit', statusDetail: null, lastEventAt: recent },
        created,
        now,
        jittered,
        () => random,
      )!.getTime() - now.getTime();
    expect(at(0)).toBe(Math.round(policy.movingMs * 0.8));
    expect(at(0.5)).toBe(policy.movingMs);
    expect(at(0.999999)).toBeLessThanOrEqual(Math.round(policy.movingMs * 1.2));
    expect(at(0.999999)).toBeGreaterThan(Math.round(policy.movingMs * 1.19));
    for (let i = 0; i < 200; i++) {
      const ms =
        nextPollAt(
          { status: 'in_transit', statusDetail: null, lastEventAt: recent },
          created,
          now,
          jittered,
        )!.getTime() - now.getTime();
      expect(ms).toBeGreaterThanOrEqual(policy.movingMs * 0.8);
      expect(ms).toBeLessThanOrEqual(policy.movingMs * 1.2);
    }
    const tiny = { ...policy, movingMs: 10, jitter: 0.5 };
    expect(
      nextPollAt(
        { status: 'in_transit', statusDetail: null, lastEventAt: recent },
        created,
        now,
        tiny,
        () => 0,
      )!.getTime() - now.getTime(),
    ).toBe(1_000);
  });

  it('the default policy is the documented one', () => {
    expect(defaultPollPolicy).toMatchObject({
      firstPollMs: 15 * 60_000,
      preTransitMs: 6 * 3_600_000,
      movingMs: 3 * 3_600_000,
      outForDeliveryMs: 3_600_000,
      jitter: 0.2,
    });
    const at = nextPollAt({ status: 'in_transit', statusDetail: null, lastEventAt: recent }, created, now);
    expect(at!.getTime() - now.getTime()).toBeGreaterThanOrEqual(3_600_000 * 3 * 0.8);
    expect(at!.getTime() - now.getTime()).toBeLessThanOrEqual(3_600_000 * 3 * 1.2);
  });
});

describe('nextReadAt: polling as the safety net while status pushes arrive', () => {
  const hour = 3_600_000;
  const policy: PollPolicy = { ...defaultPollPolicy, jitter: 0 };
  const now = new Date('2026-11-20T12:00:00Z');
  const created = new Date('2026-11-19T12:00:00Z');
  const recent = new Date('2026-11-20T11:00:00Z');
  const at = (status: string, shop: { lastStatusPushAt: Date | null; pushSafetyPollHours: number }) =>
    nextReadAt({ status, statusDetail: null, lastEventAt: recent }, created, now, shop, policy);
  const inHours = (d: Date | null) => (d === null ? null : (d.getTime() - now.getTime()) / hour);
  const pushing = { lastStatusPushAt: new Date(now.getTime() - hour), pushSafetyPollHours: 24 };

  it('without pushes, or once they stopped for the safety interval: the usual schedule', () => {
    for (const lastStatusPushAt of [null, new Date(now.getTime() - 24 * hour)]) {
      const shop = { lastStatusPushAt, pushSafetyPollHours: 24 };
      for (const status of ['pending', 'in_transit', 'out_for_delivery', 'delivered'])
        expect(at(status, shop)).toEqual(
          nextPollAt({ status, statusDetail: null, lastEventAt: recent }, created, now, policy),
        );
    }
  });

  it('with pushes: once a day, sooner when a push is overdue for the status (4 usual intervals)', () => {
    expect(inHours(at('pending', pushing))).toBe(24);
    expect(inHours(at('in_transit', pushing))).toBe(12);
    expect(inHours(at('out_for_delivery', pushing))).toBe(4);
    expect(at('delivered', pushing)).toBeNull();
    // The shop's own safety interval bounds it.
    expect(inHours(at('pending', { ...pushing, pushSafetyPollHours: 6 }))).toBe(6);
  });
});

describe('statusFromShipment', () => {
  it('a shipment with only its tracking number (every other field missing)', () => {
    expect(statusFromShipment(fromWire({ tracking_number: '1Z1' }))).toEqual({
      status: 'unknown',
      statusDetail: null,
      estimatedDelivery: null,
      lastEventAt: null,
      lastEventMessage: null,
      lastEventLocation: null,
      events: [],
    });
  });

  it('null and empty fields are absent', () => {
    const status = statusFromShipment(
      fromWire({
        tracking_number: '1Z1',
        tracking_event_status: '',
        tracking_est_delivery_date: '  ',
        last_event_time: null,
        events: null,
        destination_events: null,
      }),
    );
    expect(status).toMatchObject({
      status: 'unknown',
      statusDetail: null,
      estimatedDelivery: null,
      lastEventAt: null,
      events: [],
    });
  });

  it('events with missing object, description, status_detail and location fields', () => {
    const status = statusFromShipment(
      fromWire({
        tracking_number: '1Z1',
        tracking_event_status: ' In Transit ',
        tracking_est_delivery_date: '2026-11-20',
        events: [
          {
            message: 'Shipping label created',
            status: 'pre_transit',
            datetime: '2026-11-18 10:15:00',
            source: 'UPS',
            tracking_location: { city: '', state: '', country: 'US', zip: '' },
          },
          {
            object: 'TrackingDetail',
            message: 'Picked up by the carrier',
            description: '',
            status: 'in_transit',
            datetime: '2026-11-18 16:00:00',
            tracking_location: { object: 'TrackingLocation', city: 'Memphis', state: 'TN', country: 'US' },
          },
        ],
      }),
    );
    expect(status).toEqual({
      status: 'in_transit',
      statusDetail: null,
      estimatedDelivery: '2026-11-20',
      // No last_event_time: the newest event's time.
      lastEventAt: new Date('2026-11-18T16:00:00Z'),
      lastEventMessage: 'Picked up by the carrier',
      lastEventLocation: 'Memphis, TN, US',
      events: [
        {
          at: '2026-11-18T10:15:00.000Z',
          status: 'pre_transit',
          statusDetail: null,
          message: 'Shipping label created',
          location: 'US',
        },
        {
          at: '2026-11-18T16:00:00.000Z',
          status: 'in_transit',
          statusDetail: null,
          message: 'Picked up by the carrier',
          location: 'Memphis, TN, US',
        },
      ],
    });
  });

  it('the latest event by time, not by position; last_event_time wins when readable', () => {
    const wire = {
      tracking_number: '1Z1',
      tracking_event_status: 'in_transit',
      events: [
        {
          message: 'Out for delivery',
          status: 'in_transit',
          status_detail: 'Out-For-Delivery',
          datetime: '2026-11-20 02:00:00',
          tracking_location: null,
        },
        {
          message: 'Shipping label created',
          status: 'pre_transit',
          status_detail: 'label_created',
          datetime: '2026-11-18 10:15:00',
          tracking_location: { city: 'Louisville', state: 'KY', country: 'US' },
        },
        { message: 'Broken time', status: 'in_transit', datetime: 'later', tracking_location: 'nowhere' },
      ],
    };
    const status = statusFromShipment(fromWire(wire));
    expect(status).toMatchObject({
      statusDetail: 'out_for_delivery',
      lastEventAt: new Date('2026-11-20T02:00:00Z'),
      lastEventMessage: 'Out for delivery',
      lastEventLocation: null,
    });
    expect(status.events.map((e) => e.at)).toEqual([
      '2026-11-20T02:00:00.000Z',
      '2026-11-18T10:15:00.000Z',
      null,
    ]);
    expect(
      statusFromShipment(fromWire({ ...wire, last_event_time: '2026-11-20 02:00:05' })).lastEventAt,
    ).toEqual(new Date('2026-11-20T02:00:05Z'));
    expect(statusFromShipment(fromWire({ ...wire, last_event_time: 'garbage' })).lastEventAt).toEqual(
      new Date('2026-11-20T02:00:00Z'),
    );
  });

  it('malformed events are left out, the rest kept; at most the newest maxStoredEvents are stored', () => {
    const many = Array.from({ length: maxStoredEvents + 20 }, (_, i) => ({
      message: `scan ${i}`,
      status: 'in_transit',
      datetime: new Date(Date.UTC(2026, 10, 18) + i * 60_000).toISOString().slice(0, 19).replace('T', ' '),
    }));
    const status = statusFromShipment(
      fromWire({
        tracking_number: '1Z1',
        tracking_event_status: 'in_transit',
        events: [{ status: 'in_transit' }, 'not an event', null, ...many],
      }),
    );
    expect(status.events).toHaveLength(maxStoredEvents);
    expect(status.events[0]!.message).toBe('scan 20');
    expect(status.events.at(-1)!.message).toBe(`scan ${maxStoredEvents + 19}`);
    expect(status.lastEventMessage).toBe(`scan ${maxStoredEvents + 19}`);
  });

  it('describeLocation joins the parts there are', () => {
    expect(describeLocation({ city: 'Köln', state: 'NW', country: 'DE', zip: '50667' })).toBe('Köln, NW, DE');
    expect(describeLocation({ city: ' ', state: null, country: 'GB', zip: null })).toBe('GB');
    expect(describeLocation({ city: null, state: null, country: null, zip: '1' })).toBeNull();
    expect(describeLocation(null)).toBeNull();
  });
});
