import { z } from 'zod';

/**
 * Text every database can store: NUL and the other C0 control characters (but tab and newlines) dropped,
 * lone UTF-16 surrogates replaced by U+FFFD. PostgreSQL refuses both in text columns; without this one
 * such character made a poison delivery, retried and never applied. For what the platform or the service
 * sends (a webhook, a read), which must not be lost; what a person or a client sends is refused instead
 * (storableString).
 */
export function storableText(value: string): string {
  // Most text is clean already: looked at first, copied only when something must go.
  const kept = controlCharacter.test(value) ? value.replace(controlCharacters, '') : value;
  return kept.isWellFormed() ? kept : kept.toWellFormed();
}

const controlCharacter = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const controlCharacters = new RegExp(controlCharacter.source, 'g');

/** What no supported database stores as text: a NUL (PostgreSQL), a UTF-16 surrogate without its pair. */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && value.isWellFormed();
}

export const unstorableTextMessage = 'must not contain NUL or an unpaired surrogate character';

/**
 * A string input the database can take: every request, command-line and proxy boundary starts its text
 * fields with this, so NUL and lone surrogates are refused there (400, naming the field) and never reach
 * SQL, where PostgreSQL would refuse them with an error. Checked before any other rule, on the raw value.
 */
export function storableString(): z.ZodString {
  return z.string().refine(isStorableText, { message: unstorableTextMessage, abort: true });
}

/** The first `max` code units of `value`, never ending in half of a surrogate pair. */
export function truncateText(value: string, max: number): string {
  const cut = value.slice(0, max);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/**
 * A date every supported database can store: years 1 to 9999. JavaScript dates reach far beyond (year 0,
 * negative years, year 275760), SQLite stores them, PostgreSQL refuses them: one rule for both.
 */
export function isStorableDate(date: Date): boolean {
  const year = date.getUTCFullYear();
  return !Number.isNaN(date.getTime()) && year >= 1 && year <= 9999;
}
