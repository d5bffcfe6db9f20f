import { describe, expect, it } from 'vitest';
import { localDay, localHourOn, nextDay, nextLocalHour } from '../../src/lib/local-time.js';

/** Local days and "the next 8 o'clock where the shop is", across zones and daylight-saving changes. */

const at = (iso: string) => new Date(iso);
const iso = (d: Date) => d.toISOString();

describe('localDay', () => {
  it('is the calendar day on the zone’s clock', () => {
    expect(localDay(at('2026-11-25T23:30:00Z'), 'UTC')).toBe('2026-11-25');
    expect(localDay(at('2026-11-25T23:30:00Z'), 'Europe/Paris')).toBe('2026-11-26');
    expect(localDay(at('2026-11-25T03:00:00Z'), 'America/Los_Angeles')).toBe('2026-11-24');
    expect(localDay(at('2026-11-25T12:00:00Z'), 'Pacific/Kiritimati')).toBe('2026-11-26');
  });
});

describe('nextDay', () => {
  it('rolls months and years over', () => {
    expect(nextDay('2026-11-30')).toBe('2026-12-01');
    expect(nextDay('2026-12-31')).toBe('2027-01-01');
    expect(nextDay('2028-02-28')).toBe('2028-02-29');
  });
});

describe('nextLocalHour', () => {
  it('today’s hour when it is still ahead, else tomorrow’s (UTC)', () => {
    expect(iso(nextLocalHour(at('2026-11-25T07:59:59Z'), 8, 'UTC'))).toBe('2026-11-25T08:00:00.000Z');
    expect(iso(nextLocalHour(at('2026-11-25T08:00:00Z'), 8, 'UTC'))).toBe('2026-11-26T08:00:00.000Z');
    expect(iso(nextLocalHour(at('2026-11-25T23:00:00Z'), 0, 'UTC'))).toBe('2026-11-26T00:00:00.000Z');
  });

  it('the hour on the shop’s clock, in zones behind and ahead of UTC', () => {
    // New York in winter is UTC-5: 08:00 there is 13:00 UTC.
    expect(iso(nextLocalHour(at('2026-12-01T12:00:00Z'), 8, 'America/New_York'))).toBe(
      '2026-12-01T13:00:00.000Z',
    );
    // At 13:30 UTC it is 08:30 there: the next one is tomorrow's.
    expect(iso(nextLocalHour(at('2026-12-01T13:30:00Z'), 8, 'America/New_York'))).toBe(
      '2026-12-02T13:00:00.000Z',
    );
    // Tokyo is UTC+9: 08:00 there is 23:00 UTC the day before.
    expect(iso(nextLocalHour(at('2026-12-01T12:00:00Z'), 8, 'Asia/Tokyo'))).toBe('2026-12-01T23:00:00.000Z');
    // India is UTC+5:30.
    expect(iso(nextLocalHour(at('2026-12-01T00:00:00Z'), 9, 'Asia/Kolkata'))).toBe(
      '2026-12-01T03:30:00.000Z',
    );
  });

  it('follows daylight saving: the offset of the day itself', () => {
    // New York, summer (UTC-4): 08:00 is 12:00 UTC.
    expect(iso(nextLocalHour(at('2026-07-01T00:00:00Z'), 8, 'America/New_York'))).toBe(
      '2026-07-01T12:00:00.000Z',
    );
    // The evening before clocks go forward (8 March 2026), the next 08:00 is already EDT.
    expect(iso(nextLocalHour(at('2026-03-08T02:00:00Z'), 8, 'America/New_York'))).toBe(
      '2026-03-08T12:00:00.000Z',
    );
    // The evening before clocks go back (1 November 2026), the next 08:00 is EST.
    expect(iso(nextLocalHour(at('2026-11-01T02:00:00Z'), 8, 'America/New_York'))).toBe(
      '2026-11-01T13:00:00.000Z',
    );
  });

  it('an hour skipped when clocks go forward happens just after the gap; a repeated one, once', () => {
    // 02:00 does not exist in New York on 8 March 2026: it is 03:00 EDT (07:00 UTC).
    expect(iso(localHourOn('2026-03-08', 2, 'America/New_York'))).toBe('2026-03-08T07:00:00.000Z');
    // 01:00 happens twice on 1 November 2026: the first (EDT, 05:00 UTC).
    expect(iso(localHourOn('2026-11-01', 1, 'America/New_York'))).toBe('2026-11-01T05:00:00.000Z');
    // After the first 01:00, the next is the following day's, not the repeat an hour later.
    expect(iso(nextLocalHour(at('2026-11-01T05:00:00Z'), 1, 'America/New_York'))).toBe(
      '2026-11-02T06:00:00.000Z',
    );
    // Europe goes forward at 02:00 local on 29 March 2026: 02:00 is 03:00 CEST (01:00 UTC).
    expect(iso(localHourOn('2026-03-29', 2, 'Europe/Berlin'))).toBe('2026-03-29T01:00:00.000Z');
  });

  it('never skips a day across a short (23-hour) day', () => {
    // 23:30 on 7 March in New York (04:30 UTC on the 8th): the next 08:00 is the 8th's.
    expect(iso(nextLocalHour(at('2026-03-08T04:30:00Z'), 8, 'America/New_York'))).toBe(
      '2026-03-08T12:00:00.000Z',
    );
    // Every day of a year at 08:00 in Sydney (its own changes in April and October): one a day.
    let from = at('2026-01-01T00:00:00Z');
    const days = new Set<string>();
    for (let i = 0; i < 366; i++) {
      const next = nextLocalHour(from, 8, 'Australia/Sydney');
      expect(next.getTime()).toBeGreaterThan(from.getTime());
      const day = localDay(next, 'Australia/Sydney');
      expect(days.has(day)).toBe(false);
      days.add(day);
      expect(
        new Intl.DateTimeFormat('en-GB', {
          timeZone: 'Australia/Sydney',
          hour: '2-digit',
          hourCycle: 'h23',
        }).format(next),
      ).toBe('08');
      from = next;
    }
  });

  it('refuses an hour outside 0–23', () => {
    expect(() => nextLocalHour(at('2026-11-25T00:00:00Z'), 24, 'UTC')).toThrow(RangeError);
    expect(() => nextLocalHour(at('2026-11-25T00:00:00Z'), -1, 'UTC')).toThrow(RangeError);
  });
});
