/**
 * Wall-clock times in a shop's time zone (IANA), for "every day at 8 where the shop is": the local day of
 * an instant, and the next instant the zone's clock shows a given hour. Daylight saving is taken as the
 * zone's clocks take it: an hour skipped in spring happens at the first instant after the gap (02:00 in
 * New York on the day clocks go forward is 03:00 EDT), an hour that happens twice in autumn counts once,
 * at its first occurrence.
 */

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

const wallFormats = new Map<string, Intl.DateTimeFormat>();

function wallFormat(timeZone: string): Intl.DateTimeFormat {
  let format = wallFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    wallFormats.set(timeZone, format);
  }
  return format;
}

export interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** What the zone's clock shows at this instant. */
export function wallOf(at: Date, timeZone: string): Wall {
  const parts = Object.fromEntries(
    wallFormat(timeZone)
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** The wall time written as if it were UTC, in ms. */
const wallMs = (w: Wall) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);

/** How far the zone's clock is ahead of UTC at this instant. */
function offsetMs(at: number, timeZone: string): number {
  const whole = Math.floor(at / 1000) * 1000;
  return wallMs(wallOf(new Date(whole), timeZone)) - whole;
}

/** The local calendar day (YYYY-MM-DD) of the instant in the zone. */
export function localDay(at: Date, timeZone: string): string {
  const w = wallOf(at, timeZone);
  return `${String(w.year).padStart(4, '0')}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
}

/**
 * The instant the zone's clock first shows `hour`:00 on the local day `date` (YYYY-MM-DD); when that
 * hour is skipped (clocks go forward), the first instant after the gap.
 */
export function localHourOn(date: string, hour: number, timeZone: string): Date {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(year, month - 1, day, hour);
  // The offsets in force a day either side: any change of offset near this hour lies between them.
  const before = offsetMs(wall - dayMs, timeZone);
  const after = offsetMs(wall + dayMs, timeZone);
  const candidates = [wall - before, wall - after]
    .filter((at) => wallMs(wallOf(new Date(at), timeZone)) === wall)
    .sort((a, b) => a - b);
  // None shows the hour: it is skipped. The offset before the change puts it just after the gap.
  return new Date(candidates[0] ?? wall - before);
}

/** The first instant strictly after `after` at which the zone's clock shows `hour`:00 (0–23). */
export function nextLocalHour(after: Date, hour: number, timeZone: string): Date {
  if (!Number.isInteger(hour) || hour < 0 || hour > 23) throw new RangeError(`hour ${hour} is not 0–23`);
  const today = localDay(after, timeZone);
  const atToday = localHourOn(today, hour, timeZone);
  return atToday.getTime() > after.getTime() ? atToday : localHourOn(nextDay(today), hour, timeZone);
}

/** The calendar day after `date` (YYYY-MM-DD). */
export function nextDay(date: string): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + 1)).toISOString().slice(0, 10);
}
