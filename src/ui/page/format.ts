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
