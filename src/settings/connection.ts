import * as z from 'zod/mini';
import { storableTrimmedText } from './text.js';

/**
 * The connection of a shop to its tracking service account: the account's app name and API key. The one
 * schema the API's `PUT /api/connection`, the CLI's `shops connect` and connectShop (src/shops) check
 * them with, and the Settings page's Connection card before saving (`zod/mini`, for the page bundle).
 */
export const connectionSchema = z.object({
  appName: storableTrimmedText().check(z.minLength(1), z.maxLength(255)),
  apiKey: storableTrimmedText().check(
    z.minLength(8, { error: 'looks too short for an API key' }),
    z.maxLength(512),
  ),
});
export type ConnectionInput = z.output<typeof connectionSchema>;

/** The page's words for a field left empty. */
export const connectionEmptyMessages = {
  appName: 'Enter the app name of your tracking service account.',
  apiKey: 'Enter the API key (it is never shown again once saved).',
} as const;
