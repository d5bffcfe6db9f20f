import * as z from 'zod/mini';
import { isStorableText, unstorableTextMessage } from '../db/storable-text.js';

/**
 * The settings schemas' text field (`zod/mini`, for the page bundle): text every database can store
 * (src/db/storable-text.ts, the rule `storableString` applies on the API's other inputs), checked first on
 * the raw value, then trimmed.
 */
export function storableTrimmedText(): z.ZodMiniString {
  return z.string().check(
    z.refine(isStorableText, { error: unstorableTextMessage, abort: true }),
    z.overwrite((v) => v.trim()),
  );
}
