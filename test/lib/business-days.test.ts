import { describe, expect, it } from 'vitest';
import { addBusinessDays, endOfLocalDay, isWeekend, knownTimeZone } from '../../src/lib/business-days.js';

describe('business days in the shop’s time zone', () => {
  it('skips the weekend: Friday evening + 3 business days is Wednesday evening, not Monday', () => {
    // Friday 27 November 2026, 18:00 in New York (23:00 UTC).
    const friday = new Date('2026-11-27T23:00:00Z');
    expect(addBusinessDays(friday, 3, 'America/New_York').toISOString()).toBe('2026-12-02T23:00:00.000Z');
    expect(addBusinessDays(friday, 1, 'America/New_York').toISOString()).toBe('2026-11-30T23:00:00.000Z');
  });

  it('a weekend start counts from Monday’s first hour where the shop is', () => {
    // Saturday 28 November 2026, 10:00 in Berlin: counted from Monday 00:00 there (23:00 UTC on Sunday), so
    // one business day later is Tuesday 00:00 there.
    const saturday = new Date('2026-11-28T09:00:00Z');
    expect(addBusinessDays(saturday, 1, 'Europe/Berlin').toISOString()).toBe('2026-11-30T23:00:00.000Z');
  });

  it('weekdays by the zone, not by UTC', () => {
    // 23:30 UTC on Friday is already Saturday in Tokyo.
    const at = new Date('2026-11-27T23:30:00Z');
    expect(isWeekend(at, 'UTC')).toBe(false);
    expect(isWeekend(at, 'Asia/Tokyo')).toBe(true);
  });

  it('the end of a calendar day where the shop is', () => {
    expect(endOfLocalDay('2026-11-27', 'UTC')?.toISOString()).toBe('2026-11-28T00:00:00.000Z');
    expect(endOfLocalDay('2026-11-27', 'America/New_York')?.toISOString()).toBe('2026-11-28T05:00:00.000Z');
    expect(endOfLocalDay('2026-07-01', 'Europe/Berlin')?.toISOString()).toBe('2026-07-01T22:00:00.000Z');
    expect(endOfLocalDay('not a date', 'UTC')).toBeNull();
  });

  it('an unknown zone is read as UTC', () => {
    expect(knownTimeZone('Mars/Olympus')).toBe('UTC');
    expect(knownTimeZone(null)).toBe('UTC');
    expect(knownTimeZone('Europe/Paris')).toBe('Europe/Paris');
  });
});
