import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../tools/emulator/clock.js';
import {
  findCarrier,
  type RunningEmulator,
  shipmentSnapshot,
  startEmulator,
  type TrackingEvent,
} from '../../tools/emulator/index.js';
import { call, control, createTracker, dateShape, dateTimeShape, paths } from './http-helpers.js';

const hour = 3600;

describe('VirtualClock', () => {
  it('is start + real elapsed × speed + advanced offset', () => {
    let real = 1000;
    const clock = new VirtualClock({ startMs: 0, speed: 60, realNow: () => real });
    expect(clock.nowMs()).toBe(0);
    real += 1000;
    expect(clock.nowMs()).toBe(60_000);
    clock.advance(30);
    expect(clock.nowMs()).toBe(90_000);
    expect(clock.advancedMs()).toBe(30_000);
  });

  it('refuses to go backwards or past year 9999, and a non-positive speed', () => {
    const clock = new VirtualClock({ startMs: 0 });
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
    expect(() => clock.advance(1e15)).toThrow(RangeError);
    expect(() => new VirtualClock({ speed: 0 })).toThrow(RangeError);
  });
});

describe('shipmentSnapshot (pure)', () => {
  const ups = findCarrier('ups')!;
  const input = (trackingNumber: string) => ({
    trackingNumber,
    carrier: ups,
    createdAtMs: Date.UTC(2025, 0, 1),
    postalCode: '10001',
    destinationCountry: 'US',
  });
  const at = (hours: number) => Date.UTC(2025, 0, 1) + hours * 3_600_000;

  it('with statusVariety, a share of trackers takes the service’s other statuses; without it, none does', () => {
    const seen = new Map<string, number>();
    const numbers = Array.from({ length: 400 }, (_, i) => `VAR${i}`);
    for (const n of numbers) {
      expect(shipmentSnapshot(input(n), at(72)).status).toBe('delivered');
      const statuses = new Set([
        ...[0.1, 1, 29, 45, 72].map((h) => shipmentSnapshot(input(n), at(h), 1).status),
        ...shipmentSnapshot(input(n), at(72), 1).events.map((e) => e.status),
      ]);
      for (const status of statuses) seen.set(status, (seen.get(status) ?? 0) + 1);
    }
    for (const status of [
      'failure',
      'on_hold',
      'available_for_pickup',
      'return_to_sender',
      'label_cancelled',
      'pending_trackship',
      'invalid_tracking',
      'invalid_carrier',
      'exception',
    ]) {
      expect(seen.get(status) ?? 0, status).toBeGreaterThan(0);
    }
    // A returned parcel is never delivered; a failed attempt still is, later.
    const share = numbers.filter(
      (n) => shipmentSnapshot(input(n), at(72), 0.2).status !== 'delivered',
    ).length;
    expect(share).toBeGreaterThan(0);
    expect(share).toBeLessThan(numbers.length * 0.2);
  });

  it('follows pending → pre_transit → in_transit → delivered', () => {
    const statuses = [0, 0.1, 0.5, 3, 7, 21, 41, 49, 500].map(
      (h) => shipmentSnapshot(input('P1'), at(h)).status,
    );
    expect(statuses).toEqual([
      'pending',
      'pending',
      'pre_transit',
      'pre_transit',
      'in_transit',
      'in_transit',
      'in_transit',
      'delivered',
      'delivered',
    ]);
  });

  it('is a pure function of creation time, now and tracking number', () => {
    expect(shipmentSnapshot(input('P2'), at(30))).toEqual(shipmentSnapshot(input('P2'), at(30)));
    expect(shipmentSnapshot(input('P2'), at(49)).events).not.toEqual(
      shipmentSnapshot(input('P3'), at(49)).events,
    );
  });

  it('the events seen earlier stay the same later', () => {
    const early = shipmentSnapshot(input('P4'), at(21)).events;
    const late = shipmentSnapshot(input('P4'), at(49)).events;
    expect(late.slice(0, early.length)).toEqual(early);
  });

  it('out_for_delivery arrives around +40 h and always carries its status_detail', () => {
    for (let i = 0; i < 50; i++) {
      const events = shipmentSnapshot(input(`OFD${i}`), at(41)).events;
      expect(events).toHaveLength(4);
      expect(events[3]?.status_detail).toBe('out_for_delivery');
    }
  });

  it('varies events deterministically so clients must be lenient', () => {
    const all: TrackingEvent[] = [];
    for (let i = 0; i < 40; i++) all.push(...shipmentSnapshot(input(`V${i}`), at(49)).events);
    expect(all).toHaveLength(200);
    expect(all.some((e) => !('object' in e))).toBe(true);
    expect(all.some((e) => e.object === 'TrackingDetail')).toBe(true);
    expect(all.some((e) => !('status_detail' in e))).toBe(true);
    expect(all.some((e) => e.description === '')).toBe(true);
    expect(all.some((e) => !('description' in e))).toBe(true);
    expect(all.some((e) => e.tracking_location.city === '')).toBe(true);
    expect(all.some((e) => !('object' in e.tracking_location))).toBe(true);
    for (const e of all) {
      expect(typeof e.message).toBe('string');
      expect(['pre_transit', 'in_transit', 'delivered']).toContain(e.status);
      expect(e.datetime).toMatch(dateTimeShape);
      expect(e.source).toBe('UPS');
      for (const k of ['city', 'state', 'country', 'zip'] as const)
        expect(typeof e.tracking_location[k]).toBe('string');
    }
  });

  it('international carriers report destination_events (an array), others null', () => {
    const china = { ...input('INT1'), carrier: findCarrier('china-post')! };
    expect(shipmentSnapshot(china, at(1)).destinationEvents).toEqual([]);
    const delivered = shipmentSnapshot(china, at(49));
    expect(delivered.destinationEvents).toHaveLength(2);
    expect(delivered.destinationEvents?.[1]?.datetime).toBe(delivered.lastEventTime);
    expect(shipmentSnapshot(input('INT1'), at(49)).destinationEvents).toBeNull();
  });
});

describe('lifecycle over HTTP with the virtual clock', () => {
  let em: RunningEmulator;

  beforeAll(async () => {
    em = await startEmulator({ port: 0 });
  });

  afterAll(async () => {
    await em.close();
  });

  beforeEach(async () => {
    await control(em, '/reset');
  });

  async function data(trackingNumber: string) {
    const res = await call(em, paths.get, { body: { tracking_number: trackingNumber } });
    expect(res.json.status).toBe('success');
    return res.json.data;
  }

  it('progresses as the clock is advanced; last_event_time is the newest event', async () => {
    await createTracker(em, {
      tracking_number: 'L1',
      tracking_provider: 'canada-post',
      order_id: '5001',
      postal_code: 'K1A 0B1',
      destination_country: 'CA',
    });
    const pending = await data('L1');
    expect(pending.tracking_event_status).toBe('pending');
    expect(pending.events).toEqual([]);
    expect(pending.last_event_time).toBeNull();
    expect(pending.tracking_est_delivery_date).toBeNull();
    expect(pending.origin_country).toBeNull();

    const seen: string[] = [];
    for (const [advance, status, count] of [
      [1 * hour, 'pre_transit', 1],
      [6 * hour, 'in_transit', 2],
      [14 * hour, 'in_transit', 3],
      [20 * hour, 'in_transit', 4],
      [8 * hour, 'delivered', 5],
    ] as const) {
      const clock = await control(em, '/clock/advance', { seconds: advance });
      expect(clock.status).toBe(200);
      const d = await data('L1');
      seen.push(d.tracking_event_status);
      expect(d.tracking_event_status).toBe(status);
      expect(d.events).toHaveLength(count);
      expect(d.last_event_time).toBe(d.events[d.events.length - 1].datetime);
      expect(d.last_event_time).toMatch(dateTimeShape);
      expect(d.tracking_est_delivery_date).toMatch(dateShape);
      expect(d.origin_country).toBe('CA');
      expect(d.destination_country).toBe('CA');
      const times = d.events.map((e: { datetime: string }) => e.datetime);
      expect([...times].sort()).toEqual(times);
    }
    expect(seen).toEqual(['pre_transit', 'in_transit', 'in_transit', 'in_transit', 'delivered']);
    const final = await data('L1');
    expect(final.events[3].status_detail).toBe('out_for_delivery');
    expect(final.events[4].tracking_location.zip).toBe('K1A 0B1');

    const trackers = await control(em, '/trackers', undefined, 'GET');
    expect(trackers.json.trackers[0].status).toBe('delivered');
  });

  it('GET /_emulator/clock tells the virtual time; bad advances are 400', async () => {
    const before = Date.parse((await control(em, '/clock', undefined, 'GET')).json.now);
    await control(em, '/clock/advance', { seconds: 7200 });
    const after = Date.parse((await control(em, '/clock', undefined, 'GET')).json.now);
    expect(after - before).toBeGreaterThanOrEqual(7_200_000);
    for (const bad of [{ seconds: -1 }, { seconds: 'x' }, {}, { seconds: 1e300 }]) {
      const res = await control(em, '/clock/advance', bad);
      expect(res.status).toBe(400);
      expect(res.json.status).toBe('error');
    }
    const notJson = await call(em, '/_emulator/clock/advance', { body: '{', auth: null });
    expect(notJson.status).toBe(400);
  });

  it('clockSpeed makes virtual time run faster', async () => {
    const fast = await startEmulator({ port: 0, clockSpeed: 36_000 });
    try {
      await createTracker(fast, { tracking_number: 'S1', tracking_provider: 'ups', order_id: '1' });
      await new Promise((r) => setTimeout(r, 200));
      const res = await call(fast, paths.get, { body: { tracking_number: 'S1' } });
      // 200 ms × 36 000 = 2 h: past the label (≤ 20 min), before pickup (≥ 5 h 15).
      expect(res.json.data.tracking_event_status).toBe('pre_transit');
    } finally {
      await fast.close();
    }
  });
});
