import { createTransport } from 'nodemailer';
import type { MailSettings } from '../config.js';
import { safeReason } from '../errors/safe-reason.js';
import type { Logger } from '../logger.js';

/**
 * The digest's e-mail client: one message to a few recipients through the SMTP server of SMTP_URL, with
 * nodemailer. It never throws: the outcome says whether the server took the message, and when it did not,
 * why (one safe line) and whether the server itself is the trouble (unreachable, refused the login), so
 * a pass stops sending to it instead of waiting out a timeout per shop.
 */

export interface MailMessage {
  to: readonly string[];
  subject: string;
  text: string;
  html: string;
}

export type MailOutcome =
  { ok: true; accepted: number; rejected: number } | { ok: false; reason: string; serverDown: boolean };

export interface Mailer {
  send(message: MailMessage): Promise<MailOutcome>;
  /** Closes the connections it holds (none between sends: each send opens and closes its own). */
  close(): void;
}

export interface SmtpMailerOptions {
  /** smtp://host:port, smtps://host:465, with user:password@ when the server wants a login. */
  smtpUrl: string;
  /** The sender: `address@domain` or `Name <address@domain>`. */
  from: string;
  /** Each step (connect, greeting, every command) gives up after this long. Default 10 s. */
  timeoutMs?: number;
}

/** nodemailer's error codes that concern one message (its recipients or content), not the server. */
const messageErrorCodes = new Set(['EENVELOPE', 'EMESSAGE']);

export function createSmtpMailer(options: SmtpMailerOptions): Mailer {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const transport = createTransport(
    {
      url: options.smtpUrl,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      dnsTimeout: timeoutMs,
      // Only the text given is sent: no attachments read from files or URLs, whatever a message says.
      disableFileAccess: true,
      disableUrlAccess: true,
    },
    { from: options.from },
  );
  return {
    async send(message) {
      try {
        const info = await transport.sendMail({
          to: [...message.to],
          subject: message.subject,
          text: message.text,
          html: message.html,
        });
        return { ok: true, accepted: info.accepted.length, rejected: info.rejected.length };
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        return {
          ok: false,
          reason: safeReason(error, 200),
          serverDown: !(typeof code === 'string' && messageErrorCodes.has(code)),
        };
      }
    },
    close() {
      transport.close();
    },
  };
}

/**
 * The mailer the settings give: null when SMTP_URL is unset, which is logged here, once (call it once per
 * process). The URL itself is never logged: it may hold a password.
 */
export function mailerFromSettings(settings: MailSettings | undefined, logger: Logger): Mailer | null {
  if (!settings?.smtpUrl || !settings.from) {
    logger.info('SMTP_URL is not set: daily digest e-mails are not sent (Slack digests still are)');
    return null;
  }
  return createSmtpMailer({ smtpUrl: settings.smtpUrl, from: settings.from });
}
