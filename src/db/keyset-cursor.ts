import { z } from 'zod';
import { storableString } from './storable-text.js';

/**
 * The position after a page's last row in a list ordered by (a time, id), newest first: the next page
 * starts below it (keyset paging: the database seeks there by index, whatever the page number, and rows
 * added meanwhile never shift a page). Handed to the page as opaque text (base64url JSON).
 */
export interface KeysetCursor {
  /** The last row's time; null when the list's time is unknown for it (such rows come last). */
  at: Date | null;
  id: string;
}

export function encodeCursor(cursor: KeysetCursor): string {
  return Buffer.from(JSON.stringify({ at: cursor.at?.toISOString() ?? null, id: cursor.id })).toString(
    'base64url',
  );
}

const decoded = z.object({
  at: z.iso.datetime().nullable(),
  id: storableString().min(1).max(100),
});

/** Text from a page back to a cursor; null when it is not one this app made. */
export function decodeCursor(text: string): KeysetCursor | null {
  try {
    const parsed = decoded.safeParse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
    if (!parsed.success) return null;
    return { at: parsed.data.at === null ? null : new Date(parsed.data.at), id: parsed.data.id };
  } catch {
    return null;
  }
}

/** A query parameter holding a cursor: refused (400) unless it decodes. */
export const keysetCursorParam = storableString()
  .max(300)
  .transform((text, context) => {
    const cursor = decodeCursor(text);
    if (!cursor) {
      context.addIssue({ code: 'custom', message: 'Not a page cursor' });
      return z.NEVER;
    }
    return cursor;
  });

export interface KeysetPage<T> {
  rows: T[];
  /** The cursor of the next page; null on the last. */
  next: string | null;
}

/**
 * A page from rows fetched with `take: limit + 1` in the list's order: the first `limit` rows, and a
 * cursor after the last of them when the extra row shows there is more.
 */
export function keysetPage<T extends { id: string }>(
  rows: readonly T[],
  limit: number,
  at: (row: T) => Date | null,
): KeysetPage<T> {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return {
    rows: shown,
    next: rows.length > limit && last ? encodeCursor({ at: at(last), id: last.id }) : null,
  };
}
