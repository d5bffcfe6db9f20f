import * as z from 'zod/mini';
import { storableTrimmedText } from './text.js';

/**
 * The notification settings of a shop (src/notifications): the daily digest (on or off, its local hour,
 * further recipients besides the store's contact e-mail) and Slack (an incoming-webhook URL, '' to remove
 * it, and whether each new problem is posted at once). The one schema `PUT /api/notifications` parses
 * with and the Settings page checks its Notifications card with before saving (`zod/mini`, so the page
 * bundle carries a few kB of it). No message repeats the Slack URL, a secret.
 */

/** Further recipients a shop may add besides its contact e-mail. */
export const maxRecipients = 10;

/** One plain address: local@domain.tld, no spaces, brackets, quotes, commas or semicolons. */
const addressPattern = /^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\.]+(?:\.[^\s@<>(),;:"[\]\\.]+)+$/;

export function isEmailAddress(value: string): boolean {
  return value.length <= 254 && addressPattern.test(value);
}

/** How a Slack incoming-webhook URL starts (the schema checks the rest). */
export const slackUrlStart = 'https://hooks.slack.com/';

/**
 * Whether the URL is a Slack incoming webhook, as the merchant may set one: https://hooks.slack.com/ and a
 * path, nothing else (no other host or port, no credentials, no fragment).
 */
export function isSlackWebhookUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (
    url.protocol === 'https:' &&
    url.hostname === 'hooks.slack.com' &&
    url.port === '' &&
    url.username === '' &&
    url.password === '' &&
    url.hash === '' &&
    url.pathname.length > 1
  );
}

const onOff = (name: string) => z.boolean({ error: `${name} must be true or false` });
const hourMessage = 'digestHour must be a whole hour from 0 to 23';
const recipientMessage = 'must be an e-mail address (name@example.com)';
const slackMessage =
  'slackWebhookUrl must be a Slack incoming-webhook URL (https://hooks.slack.com/…), or empty to remove it';
export const notificationsSchema = z.strictObject({
  digestEnabled: z.optional(onOff('digestEnabled')),
  digestHour: z.optional(
    z.number({ error: hourMessage }).check(
      z.refine((n) => Number.isSafeInteger(n), { error: hourMessage, abort: true }),
      z.gte(0, { error: hourMessage, abort: true }),
      z.lte(23, { error: hourMessage }),
    ),
  ),
  recipients: z.optional(
    z
      .array(storableTrimmedText().check(z.refine((v) => isEmailAddress(v), { error: recipientMessage })), {
        error: 'recipients must be a list of e-mail addresses',
      })
      // A refinement, not a length check: zod would also measure a string given in place of the list.
      .check(
        z.refine((list) => list.length <= maxRecipients, {
          error: `recipients may hold at most ${maxRecipients} addresses`,
        }),
      ),
  ),
  slackWebhookUrl: z.optional(
    storableTrimmedText().check(
      z.maxLength(500, { error: slackMessage, abort: true }),
      z.refine((v) => v === '' || isSlackWebhookUrl(v), { error: slackMessage }),
    ),
  ),
  slackInstantProblems: z.optional(onOff('slackInstantProblems')),
});
export type NotificationsInput = z.output<typeof notificationsSchema>;

/** The page's words for a refused field. */
export const notificationFieldMessages = {
  digestHour: 'Choose an hour from 00:00 to 23:00.',
  recipients: 'Enter an e-mail address, such as name@example.com.',
  slackWebhookUrl: `Enter a Slack incoming-webhook URL: it starts with ${slackUrlStart}`,
} as const;
