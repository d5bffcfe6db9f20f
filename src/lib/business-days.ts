import { wallOf } from './local-time.js';

/**
 * Business days (Monday to Friday) in a shop's time zone, for rules such as "no scan 3 business days after
 * fulfilment": a parcel handed over on Friday evening is not overdue on Monday morning, so a weekend never
 * makes a rule fire in bulk. Public holidays are not known here.
 */

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

const weekdayFormats = new Map<string, Intl.DateTimeFormat>();

/** Each zone's verdict, asked of Intl once (a formatter is costly to build; the problem sweep asks per parcel). */
const zoneVerdicts = new Map<string, string>();

/** A time zone Intl knows, else UTC (a shop's stored zone is the platform's IANA name). */
export function knownTimeZone(timeZone: string | null | undefined): string {
  if (!timeZone) return 'UTC';
  let verdict = zoneVerdicts.get(timeZone);
  if (verdict === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone });
      verdict = timeZone;
    } catch {
      verdict = 'UTC';
    }
    // Bounded: a few hundred zones exist; anything past that is not worth keeping.
    if (zoneVerdicts.size < 1_000) zoneVerdicts.set(timeZone, verdict);
  }
  return verdict;
}

function weekdayFormat(timeZone: string): Intl.DateTimeFormat {
  let format = weekdayFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short' });
    weekdayFormats.set(timeZone, format);
  }
  return format;
}

/** Saturday or Sunday where the shop is. */
export function isWeekend(at: Date, timeZone: string): boolean {
  const day = weekdayFormat(timeZone).format(at);
  return day === 'Sat' || day === 'Sun';
}

/**
 * The instant `days` business days after `from` in the time zone: counted from `from` (or, when it falls on a
 * weekend, from the start of the next Monday), skipping Saturdays and Sundays.
 */
export function addBusinessDays(from: Date, days: number, timeZone: string): Date {
  let at = from.getTime();
  // A weekend start counts from Monday's first hour (within the hour: day-sized rules need no more).
  for (let i = 0; i < 72 && isWeekend(new Date(at), timeZone); i++)
    at = Math.floor(at / hourMs) * hourMs + hourMs;
  for (let left = days; left > 0;) {
    at += dayMs;
    if (!isWeekend(new Date(at), timeZone)) left--;
  }
  return new Date(at);
}

/** The first instant after the calendar day `date` (YYYY-MM-DD) ends in the time zone. */
export function endOfLocalDay(date: string, timeZone: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(date);
  if (!m) return null;
  const midnightUtc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1);
  if (Number.isNaN(midnightUtc)) return null;
  // The zone's offset at that moment: local midnight is UTC midnight minus the offset.
  return new Date(midnightUtc - offsetMs(new Date(midnightUtc), timeZone));
}

/** How far the zone's wall clock is ahead of UTC at this instant. */
function offsetMs(at: Date, timeZone: string): number {
  const w = wallOf(at, timeZone);
  const wall = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return wall - Math.floor(at.getTime() / 1000) * 1000;
}
