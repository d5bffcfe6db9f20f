import type { NotificationSettingsView } from '../../../api/notifications.js';
import {
  maxRecipients,
  notificationFieldMessages,
  notificationsSchema,
} from '../../../../settings/notifications.js';
import { api } from '../../api-client.js';
import { toast } from '../../app-bridge.js';
import { failureToast, loadFailure } from '../../components/load-failure.js';
import { recipientList } from '../../components/recipient-list.js';
import type { SaveBar } from '../../components/save-bar-form.js';
import { h, replace } from '../../dom.js';
import { disableForms } from '../../session.js';
import { cardSection, placeIssues, type SettingsCard } from './card.js';

/**
 * Notifications: how the merchant hears of shipment problems without opening the app — the daily digest
 * (on or off, its hour in the store's time zone, further e-mail recipients besides the store's contact
 * e-mail) and Slack (a webhook URL, never shown once saved, and instant posts). Checked with the API's
 * schema (src/settings/notifications.ts). `showZone` names the store's time zone beside the hour.
 */
export function notificationsCard(bar: SaveBar): SettingsCard & { showZone(zone: string): void } {
  const notificationsSection = cardSection('notifications', 'Notifications', 'notifications');

  interface NotificationValues {
    digestEnabled: boolean;
    digestHour: number;
    recipients: string[];
    /** A new Slack webhook URL as typed ('' : none typed; the one set is never shown). */
    slackWebhookUrl: string;
    /** "Remove" was pressed: the URL set is removed on Save. */
    removeSlack: boolean;
    slackInstantProblems: boolean;
  }
  const notificationValues = (n: NotificationSettingsView): NotificationValues => ({
    digestEnabled: n.digestEnabled,
    digestHour: n.digestHour,
    recipients: [...n.recipients],
    slackWebhookUrl: '',
    removeSlack: false,
    slackInstantProblems: n.slackInstantProblems,
  });
  let slackConfigured = false;
  let removeSlack = false;

  const smtpNotice = h('div', { class: 'notifications-notice' });
  const digestEnabled = h('s-checkbox', {
    label: 'Send a daily digest of new shipment problems',
    details:
      'What opened since the last digest, kind by kind, with links to the problems: by e-mail to the recipients below, and to Slack when a webhook is set. A day with nothing new sends nothing.',
  });
  const digestHour = h(
    's-select',
    { label: 'Send it at (store time)', class: 'digest-hour' },
    Array.from({ length: 24 }, (_, hour) =>
      h('s-option', { value: String(hour) }, `${String(hour).padStart(2, '0')}:00`),
    ),
  );
  const contactRow = h('div', { class: 'recipient-contact' });
  const recipients = recipientList({
    max: maxRecipients,
    label: (place) => `Further recipient ${place}`,
    changed: () => notifications.form.dispatchEvent(new Event('change')),
  });
  const slackUrl = h('s-text-field', { label: 'Slack webhook URL', autocomplete: 'off' });
  const removeSlackButton = h(
    's-button',
    {
      variant: 'secondary',
      tone: 'critical',
      accessibilityLabel: 'Remove the Slack webhook URL',
      on: {
        click: () => {
          removeSlack = true;
          slackUrl.value = '';
          slackUrl.error = '';
          drawSlack();
          notifications.form.dispatchEvent(new Event('change'));
        },
      },
    },
    'Remove',
  );
  const slackInstant = h('s-checkbox', { label: 'Post each new problem to Slack at once' });

  /** The Slack field's hints: whether a URL is set (never the URL), or that it goes on Save. */
  function drawSlack(): void {
    slackUrl.placeholder = removeSlack
      ? 'Removed when you save'
      : slackConfigured
        ? 'A webhook is set (hidden)'
        : 'Not set: https://hooks.slack.com/…';
    slackUrl.details = removeSlack
      ? 'The webhook URL is removed when you save. Discard keeps it.'
      : slackConfigured
        ? 'A webhook URL is set. It is never shown again; paste a new one to replace it.'
        : 'An incoming webhook of your Slack workspace (Slack: Apps → Incoming Webhooks). It is never shown again once saved.';
    removeSlackButton.hidden = !slackConfigured || removeSlack;
    slackInstant.details =
      slackConfigured && !removeSlack
        ? 'Within minutes of opening, besides the digest.'
        : 'Within minutes of opening, besides the digest. Needs a Slack webhook URL.';
  }

  function drawContact(n: NotificationSettingsView): void {
    replace(
      contactRow,
      n.contactEmail
        ? h('s-text-field', {
            label: 'Store contact e-mail',
            labelAccessibilityVisibility: 'exclusive',
            readOnly: true,
            value: n.contactEmail,
            details: 'The store’s contact e-mail always receives it (change it in your store’s settings).',
          })
        : h(
            's-paragraph',
            { color: 'subdued' },
            'Your store has no contact e-mail: only the addresses below receive it.',
          ),
    );
    replace(
      smtpNotice,
      n.smtpConfigured
        ? null
        : h(
            's-banner',
            { tone: 'warning', heading: 'E-mail digests are not sent yet' },
            'The app’s e-mail (SMTP) is not set up, so no digest e-mail goes out until it is. Slack works meanwhile: the digest and instant posts go to a webhook set below.',
          ),
    );
  }

  const notifications = bar.form<NotificationValues>({
    children: [
      smtpNotice,
      h('s-heading', null, 'Daily digest'),
      digestEnabled,
      digestHour,
      h(
        'div',
        { class: 'recipients', attrs: { role: 'group', 'aria-label': 'E-mail recipients' } },
        h('s-text', { type: 'strong' }, 'E-mail recipients'),
        contactRow,
        recipients.element,
        h('s-text', { color: 'subdued' }, `Up to ${maxRecipients} further addresses.`),
      ),
      h('s-divider'),
      h('s-heading', null, 'Slack'),
      h('div', { class: 'slack-webhook' }, slackUrl, removeSlackButton),
      slackInstant,
    ],
    read: () => ({
      digestEnabled: digestEnabled.checked,
      digestHour: Number(digestHour.value),
      recipients: recipients.values(),
      slackWebhookUrl: slackUrl.value.trim(),
      removeSlack,
      slackInstantProblems: slackInstant.checked,
    }),
    write: (v) => {
      digestEnabled.checked = v.digestEnabled;
      digestHour.value = String(v.digestHour);
      digestHour.error = '';
      recipients.set(v.recipients);
      slackUrl.value = v.slackWebhookUrl;
      slackUrl.error = '';
      removeSlack = v.removeSlack;
      slackInstant.checked = v.slackInstantProblems;
      drawSlack();
    },
    save: async (v) => {
      recipients.clearErrors();
      digestHour.error = '';
      slackUrl.error = '';
      const body: Partial<Omit<NotificationValues, 'removeSlack'>> = {
        digestEnabled: v.digestEnabled,
        digestHour: v.digestHour,
        recipients: v.recipients,
        slackInstantProblems: v.slackInstantProblems,
      };
      if (v.slackWebhookUrl) body.slackWebhookUrl = v.slackWebhookUrl;
      else if (v.removeSlack) body.slackWebhookUrl = '';
      // The API's own schema first: each refused field is said on it without a request.
      const checked = notificationsSchema.safeParse(body);
      if (!checked.success) {
        const fields = checked.error.issues.map((issue) => issue.path.map(String).join('.'));
        if (fields.every(placeField)) return null;
        failureToast(checked.error);
        return null;
      }
      try {
        const answer = await api<NotificationSettingsView>('PUT', '/notifications', body);
        slackConfigured = answer.slackConfigured;
        drawContact(answer);
        toast('Notification settings saved');
        return notificationValues(answer);
      } catch (error) {
        const unplaced = placeIssues(error, ({ field }) => placeField(field));
        if (unplaced) failureToast(error);
        return null;
      }
    },
  });

  async function loadNotifications(): Promise<void> {
    try {
      const view = await api<NotificationSettingsView>('GET', '/notifications');
      slackConfigured = view.slackConfigured;
      drawContact(view);
      notifications.setSaved(notificationValues(view));
      replace(
        notificationsSection,
        h('s-paragraph', { color: 'subdued' }, 'How you hear of shipment problems without opening the app.'),
        notifications.form,
      );
      disableForms(notificationsSection);
    } catch (error) {
      replace(notificationsSection, loadFailure('The notification settings could not be loaded', error));
    }
  }

  /** Puts the page's words on the field a refused `field` names; answers whether it is one of the card's. */
  function placeField(field: string): boolean {
    const [name, place] = field.split('.');
    if (name === 'digestHour') digestHour.error = notificationFieldMessages.digestHour;
    else if (name === 'slackWebhookUrl') slackUrl.error = notificationFieldMessages.slackWebhookUrl;
    else if (name === 'recipients' && place !== undefined)
      recipients.showError(Number(place), notificationFieldMessages.recipients);
    else return false;
    return true;
  }

  return {
    section: notificationsSection,
    load: loadNotifications,
    showZone: (zone) => {
      digestHour.label = `Send it at (store time, ${zone})`;
    },
  };
}
