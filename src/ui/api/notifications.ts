import type { AppContext } from '../../context/app-context.js';
import { nextDigestTime } from '../../notifications/digest-schedule.js';
import { parseRecipients, storedRecipients, uniqueAddresses } from '../../notifications/recipients.js';
import type { NotificationsInput } from '../../settings/notifications.js';
import type { Shop, ShopRepository } from '../../shops/shop-repository.js';
import { currentShop } from './current-shop.js';

/**
 * The notification settings (src/notifications): the daily digest (on or off, its local hour, further
 * recipients besides the store's contact e-mail) and Slack (an incoming-webhook URL, and whether each new
 * problem is posted at once). The Slack URL is a secret: it is stored sealed and never answered, only
 * whether one is set; no message about it repeats it.
 */

/** The body of `PUT /api/notifications` is parsed with `notificationsSchema` (src/settings/notifications.ts). */
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
  ctx: Pick<AppContext, 'shops'>,
  domain: string,
  smtpConfigured: boolean,
): Promise<NotificationSettingsView> {
  return viewOf(await currentShop(ctx.shops, domain), smtpConfigured);
}

/**
 * Changes any of the settings; the others stay. A new hour (or a first save) sets when the next digest is
 * due; switching instant Slack posts on starts them from now (nothing older is posted).
 */
export async function saveNotificationSettings(
  ctx: Pick<AppContext, 'shops'>,
  domain: string,
  body: NotificationsInput,
  smtpConfigured: boolean,
  now: Date = new Date(),
): Promise<NotificationSettingsView> {
  const shop = await currentShop(ctx.shops, domain);
  if (body.slackWebhookUrl !== undefined)
    await ctx.shops.saveSlackWebhook(shop.id, body.slackWebhookUrl === '' ? null : body.slackWebhookUrl);

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

  const updated = await ctx.shops.updateNotifications(shop.id, data);
  return viewOf(updated, smtpConfigured);
}
