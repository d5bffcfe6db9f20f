import type { AppContext } from '../context/app-context.js';
import type { Mailer } from './mailer.js';
import type { SlackPoster } from './slack-poster.js';

/** The merchant's channels: built once by the composition root and handed to the worker. */
export interface Notifiers {
  /** null: SMTP_URL is unset, and no e-mail digest is sent (mailerFromSettings said so once). */
  mailer: Mailer | null;
  slack: SlackPoster;
  /** The app's client id (SHOPIFY_API_KEY): the admin's links to the app's pages carry it. */
  appApiKey: string;
}

/**
 * What the digest and instant-post passes work with: the context's database, logger and shops (which open
 * the sealed Slack webhook URLs), the channels, and the clock (tests set it).
 */
export interface NotifyWork extends Pick<AppContext, 'prisma' | 'logger' | 'shops'>, Notifiers {
  now?: () => Date;
}
