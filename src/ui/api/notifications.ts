import { z } from 'zod';
import { storableString } from '../../db/storable-text.js';
import { nextDigestTime } from '../../notifications/digest-schedule.js';
import {
  isEmailAddress,
  maxRecipients,
  parseRecipients,
  storedRecipients,
  uniqueAddresses,
} from '../../notifications/recipients.js';
import { isSlackWebhookUrl } from '../../notifications/slack-poster.js';
import type { Shop, ShopRepository } from '../../shops/shop-repository.js';
import { currentShop } from './current-shop.js';

/**
 * The notification settings (src/notifications): the daily digest (on or off, its local hour, further
 * recipients besides the store's contact e-mail) and Slack (an incoming-webhook URL, and whether each new
 * problem is posted at once). The Slack URL is a secret: it is stored sealed and never answered, only
 * whether one is set; no message about it repeats it.
 */

const onOff = (name: string) => z.boolean({ error: `${name} must be true or false` });
const hourMessage = 'digestHour must be a whole hour from 0 to 23';
const recipientMessage = 'must be an e-mail address (name@example.com)';
const slackMessage =
  'slackWebhookUrl must be a Slack incoming-webhook URL (https://hooks.slack.com/…), or empty to remove it';

export const notificationsBody = z
  .object({
    digestEnabled: onOff('digestEnabled'),
    digestHour: z
      .number({ error: hourMessage })
      .int({ error: hourMessage, abort: true })
      .min(0, { error: hourMessage, abort: true })
      .max(23, { error: hourMessage }),
    recipients: z
      .array(
        storableString()
          .trim()
          .refine((v) => isEmailAddress(v), { error: recipientMessage }),
        { error: 'recipients must be a list of e-mail addresses' },
      )
      // A refinement, not .max(): zod would also measure a string given in place of the list.
      .refine((list) => list.length <= maxRecipients, {
        error: `recipients may hold at most ${maxRecipients} addresses`,
      }),
    slackWebhookUrl: storableString()
      .trim()
      .max(500, { error: slackMessage, abort: true })
      .refine((v) => v === '' || isSlackWebhookUrl(v), { error: slackMessage }),
    slackInstantProblems: onOff('slackInstantProblems'),
  })
  .partial()
  .strict();
export type NotificationsBody = z.output<typeof notificationsBody>;

export interface NotificationSettingsView {
  digestEnabled: boolean;
  /** The local hour (0–23, the store's time zone) the digest is sent at. */
  digestHour: number;
  /** Further recipients besides the contact e-mail. */
  recipients: string[];
  /** The store's contact e-mail (from the store): always a recipient. */
  contactEmail: string | null;
  /** Whether a Slack webhook URL is set (never the URL). */
  slackConfigured: boolean;
  slackInstantProblems: boolean;
  /** Whether the app can send e-mail at all (SMTP_URL): without it, only Slack digests go. */
  smtpConfigured: boolean;
}

export interface NotificationsDeps {
  shops: ShopRepository;
  /** SMTP_URL is set (unset: false). */
  smtpConfigured?: boolean;
}

function viewOf(shop: Shop, smtpConfigured: boolean): NotificationSettingsView {
  return {
    digestEnabled: shop.digestEnabled,
    digestHour: shop.digestHour,
    recipients: parseRecipients(shop.digestRecipients),
    contactEmail: shop.contactEmail,
    slackConfigured: shop.slackWebhookCiphertext !== null,
    slackInstantProblems: shop.slackInstantProblems,
    smtpConfigured,
  };
}

export async function getNotificationSettings(
  deps: NotificationsDeps,
  domain: string,
): Promise<NotificationSettingsView> {
  return viewOf(await currentShop(deps.shops, domain), deps.smtpConfigured ?? false);
}

/**
 * Changes any of the settings; the others stay. A new hour (or a first save) sets when the next digest is
 * due; switching instant Slack posts on starts them from now (nothing older is posted).
 */
export async function saveNotificationSettings(
  deps: NotificationsDeps,
  domain: string,
  body: NotificationsBody,
  now: Date = new Date(),
): Promise<NotificationSettingsView> {
  const shop = await currentShop(deps.shops, domain);
  if (body.slackWebhookUrl !== undefined)
    await deps.shops.saveSlackWebhook(shop.id, body.slackWebhookUrl === '' ? null : body.slackWebhookUrl);

  const data: Parameters<ShopRepository['updateNotifications']>[1] = {};
  if (body.digestEnabled !== undefined) data.digestEnabled = body.digestEnabled;
  if (body.recipients !== undefined)
    data.digestRecipients = storedRecipients(uniqueAddresses(body.recipients));
  if (body.slackInstantProblems !== undefined) {
    data.slackInstantProblems = body.slackInstantProblems;
    if (body.slackInstantProblems && !shop.slackInstantProblems) data.slackPostedThrough = now;
  }
  const hour = body.digestHour ?? shop.digestHour;
  if (body.digestHour !== undefined) data.digestHour = hour;
  if (shop.nextDigestAt === null || hour !== shop.digestHour)
    data.nextDigestAt = nextDigestTime({ digestHour: hour, timezone: shop.timezone }, now);

  const updated = await deps.shops.updateNotifications(shop.id, data);
  return viewOf(updated, deps.smtpConfigured ?? false);
}
