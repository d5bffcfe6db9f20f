import { z } from 'zod';
import { storableString } from '../../db/storable-text.js';

/** One problem with the request, named by the field it concerns ('' for the body as a whole). */
export interface InputIssue {
  field: string;
  message: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; issues: InputIssue[] };

/**
 * Parses request input with a zod schema (either build: `zod`, or `zod/mini` for a schema the page shares,
 * src/settings); on failure, field-level issues for the 400 answer.
 */
export function parseInput<S extends z.core.$ZodType>(schema: S, input: unknown): Parsed<z.output<S>> {
  const result = z.safeParse(schema, input);
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => ({
      field: issue.path.map(String).join('.'),
      message: issue.message,
    })),
  };
}

const dayMs = 86_400_000;

/** Today's date (UTC) plus `days`, as YYYY-MM-DD. */
function utcDay(days: number, now = Date.now()): string {
  return new Date(now + days * dayMs).toISOString().slice(0, 10);
}

/** Whether `text` (YYYY-MM-DD) names a day of the calendar: 2026-02-30 and month 13 do not. */
function isCalendarDay(text: string): boolean {
  const at = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(at) && new Date(at).toISOString().slice(0, 10) === text;
}

/** The earliest day the merchant's dates may name: nothing the app keeps is older. */
export const earliestMerchantDay = '2000-01-01';

/** How far ahead a merchant's date may go: a year (the snooze field offers no further), plus a day of zones. */
export const merchantDaysAhead = 366;

/**
 * A day the merchant entered (YYYY-MM-DD), within a sane range: a real calendar day from `from` (a day, or
 * days from today, UTC) to `merchantDaysAhead` days from today. Outside it the request is refused (400, the
 * field named) instead of reaching the database: PostgreSQL cannot take year 0 (P2039), SQLite stores it.
 * `from` and today are read at each request.
 */
export function merchantDay(
  field: string,
  range: { from: string | { daysFromToday: number }; fromMessage: string },
) {
  return storableString()
    .regex(/^\d{4}-\d{2}-\d{2}$/, { error: `${field} must be a date (YYYY-MM-DD)`, abort: true })
    .refine(isCalendarDay, { error: `${field} must be a real date`, abort: true })
    .refine(
      (day) => day >= (typeof range.from === 'string' ? range.from : utcDay(range.from.daysFromToday)),
      range.fromMessage,
    )
    .refine((day) => day <= utcDay(merchantDaysAhead), `${field} must be within a year from today`);
}
