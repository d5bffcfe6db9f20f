/** Dates and numbers as the merchant reads them, in the browser's locale. */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const whole = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0 });

/** "12 Mar 2026, 14:05"; null or unreadable: "—". */
export function formatDateTime(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dateTime.format(date);
}

/**
 * A date as the service gives it ("2026-03-12", no time zone stated): shown as that calendar day, never
 * shifted by the browser's time zone.
 */
export function formatDay(value: string | null | undefined): string {
  if (!value) return '—';
  const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (!day) return value;
  return dateOnly.format(new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])));
}

/** A moment as its calendar day where the merchant is ("12 Mar 2026"); null or unreadable: "—". */
export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dateOnly.format(date);
}

/** How long ago a moment was, in whole days: "less than a day ago", "1 day ago", "12 days ago". */
export function daysAgo(value: string, now: Date = new Date()): string {
  const days = Math.floor((now.getTime() - new Date(value).getTime()) / 86_400_000);
  if (!Number.isFinite(days) || days < 1) return 'less than a day ago';
  return `${plural(days, 'day')} ago`;
}

/** The local calendar day `days` from today, as a date field takes it ("2026-03-15"). */
export function dayFromToday(days: number, now: Date = new Date()): string {
  const day = new Date(now.getFullYear(), now.getMonth(), now.getDate() + days);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
}

export function formatCount(value: number): string {
  return whole.format(value);
}

export function formatDays(value: number | null): string {
  return value === null ? '—' : `${oneDecimal.format(value)} d`;
}

export function formatRate(value: number | null): string {
  return value === null ? '—' : percent.format(value);
}

/** "1 shipment", "3 shipments". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}
