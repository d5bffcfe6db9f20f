import type { SeenCarrier } from '../../api/carriers-seen.js';
import type { NotificationSettingsView } from '../../api/notifications.js';
import type { ProblemRulesView } from '../../api/problems.js';
import type { ShopOverview } from '../../api/shop-overview.js';
import type { StatusPushView } from '../../api/status-push.js';
import type { ShippingProvider } from '../../../tracking/types.js';
import { connectionRefusals, pauseWords, problemKindLabels, problemRuleWords } from '../../vocabulary.js';
import { api, ApiError } from '../api-client.js';
import { toast } from '../app-bridge.js';
import { failureToast, isSessionError, loadFailure } from '../components/load-failure.js';
import { recipientList } from '../components/recipient-list.js';
import { hasUnsavedChanges, saveBarForm } from '../components/save-bar-form.js';
import { h, replace } from '../dom.js';
import { formatCount, formatDateTime, plural } from '../format.js';
import type { PageModule } from '../page.js';
import { disableForms } from '../session.js';

/**
 * Settings: the tracking service connection, what the app does (behaviour), which shipment problems are
 * reported and after how many business days, how the merchant hears of them (the daily digest by e-mail
 * and Slack, instant Slack posts), the status push URL, and which of the service's carriers each carrier
 * name of the store stands for. The connection, behaviour, problem rules and notifications forms save
 * through the admin's save bar.
 */

type Settings = ShopOverview['settings'];
type Behaviour = Settings;

function behaviourOf(settings: Settings): Behaviour {
  return {
    createOnFulfillment: settings.createOnFulfillment,
    deleteOnCancel: settings.deleteOnCancel,
    orderIdSource: settings.orderIdSource,
    postFulfillmentEvents: settings.postFulfillmentEvents,
    showOrderDelivered: settings.showOrderDelivered,
    linkToTrackingPage: settings.linkToTrackingPage,
    pushSafetyPollHours: settings.pushSafetyPollHours,
  };
}

export const settingsPage: PageModule = (context) => {
  const connectionSection = h('s-section', { heading: 'Connection' }, spinner('connection'));
  const behaviourSection = h('s-section', { heading: 'Behaviour' }, spinner('settings'));
  const carriersSection = h('s-section', { heading: 'Carrier mapping' }, spinner('carriers'));
  const problemsSection = h('s-section', { heading: 'Shipment problems' }, spinner('problem rules'));
  const notificationsSection = h('s-section', { heading: 'Notifications' }, spinner('notifications'));
  const pushSection = h('s-section', { heading: 'Status updates in seconds' }, spinner('status push'));
  connectionSection.id = 'connection';
  problemsSection.id = 'problems';
  notificationsSection.id = 'notifications';
  pushSection.id = 'status-push';
  behaviourSection.id = 'behaviour';
  carriersSection.id = 'carriers';

  /* ---------------------------------------------------------------- connection */

  const appName = h('s-text-field', { label: 'App name', autocomplete: 'off', required: true });
  const apiKey = h('s-password-field', { label: 'API key', autocomplete: 'new-password', required: true });
  const status = h('div', { class: 'connection-status' });
  const connection = saveBarForm({
    id: 'connection-save-bar',
    children: [appName, apiKey],
    read: () => ({ appName: appName.value.trim(), apiKey: apiKey.value }),
    write: (v) => {
      appName.value = v.appName;
      apiKey.value = v.apiKey;
      appName.error = '';
      apiKey.error = '';
    },
    save: async (v) => {
      appName.error = '';
      apiKey.error = '';
      if (!v.appName) appName.error = 'Enter the app name of your tracking service account.';
      if (!v.apiKey) apiKey.error = 'Enter the API key (it is never shown again once saved).';
      if (!v.appName || !v.apiKey) return null;
      try {
        const answer = await api<{ ok: true; shop: ShopOverview }>('PUT', '/connection', v);
        drawConnection(answer.shop);
        toast('Connected');
        return { appName: answer.shop.connection.appName ?? v.appName, apiKey: '' };
      } catch (error) {
        if (error instanceof ApiError && error.status === 422) {
          apiKey.error = connectionRefusals[error.reason ?? ''] ?? error.message;
          toast(`Not saved: ${apiKey.error}`, { isError: true });
        } else if (error instanceof ApiError && error.issues.length > 0) {
          for (const issue of error.issues) {
            if (issue.field === 'appName') appName.error = issue.message;
            else apiKey.error = issue.message;
          }
        } else failureToast(error);
        return null;
      }
    },
  });

  function drawConnection(shop: ShopOverview): void {
    const c = shop.connection;
    apiKey.details = c.hasApiKey ? 'A key is stored. It is never shown again; enter it to change it.' : '';
    const connected = c.hasApiKey && !c.paused;
    const facts = h(
      's-stack',
      { direction: 'inline', gap: 'small-200', alignItems: 'center' },
      h(
        's-badge',
        { tone: connected ? 'success' : c.paused?.reason === 'not_connected' ? 'neutral' : 'critical' },
        connected ? 'Connected' : c.paused?.reason === 'not_connected' ? 'Not connected' : 'Paused',
      ),
      connected
        ? h(
            's-text',
            { data: { testid: 'balance' } },
            c.trackersBalance !== null
              ? `${plural(c.trackersBalance, 'tracker')} left${c.userPlan ? ` · ${c.userPlan} plan` : ''}`
              : 'Balance and plan: not known yet — shown after the first tracker is created.',
          )
        : null,
    );
    replace(
      status,
      facts,
      c.paused
        ? h(
            's-banner',
            { tone: c.paused.reason === 'not_connected' ? 'info' : 'critical' },
            pauseWords(c.paused.reason, c.paused.message),
          )
        : null,
      connected && c.lowBalance
        ? h('s-banner', { tone: 'warning' }, 'Few trackers left: top up your tracking service account.')
        : null,
    );
  }

  /* ---------------------------------------------------------------- behaviour */

  const createOnFulfillment = h('s-checkbox', { label: 'Create a tracker when an order is fulfilled' });
  const deleteOnCancel = h('s-checkbox', {
    label: 'Delete the tracker when a fulfilment or its order is cancelled',
  });
  const orderIdSource = h(
    's-choice-list',
    { label: 'Order id sent to the tracking service', name: 'orderIdSource' },
    h('s-choice', { value: 'id' }, "The store's order id (for example 6120000000001)"),
    h('s-choice', { value: 'name' }, 'The order name without # (for example 1001)'),
  );
  const postFulfillmentEvents = h('s-checkbox', {
    label: "Write tracking updates to the order's timeline in your store",
    details: 'Each status change (in transit, out for delivery, delivered…) is added to the fulfilment.',
  });
  const showOrderDelivered = h('s-checkbox', {
    label: 'Mark an order delivered when all its parcels are',
  });
  const linkToTrackingPage = h('s-checkbox', {
    label: "Send customers to the store's tracking page",
    details:
      'Shipping emails and the order status page link to your store’s tracking page instead of the carrier’s site (fulfilments of the last 90 days and every new one). Turning it off puts the carriers’ links back.',
  });
  const pushSafetyPollHours = h('s-number-field', {
    label: 'While status pushes arrive, still read each shipment every (hours)',
    details: 'A safety net in case a push is lost. Sooner when a push is overdue for the status.',
    min: 1,
    max: 168,
    step: 1,
  });
  const behaviour = saveBarForm<Behaviour>({
    id: 'settings-save-bar',
    children: [
      createOnFulfillment,
      deleteOnCancel,
      orderIdSource,
      postFulfillmentEvents,
      showOrderDelivered,
      linkToTrackingPage,
      pushSafetyPollHours,
    ],
    read: () => ({
      createOnFulfillment: createOnFulfillment.checked,
      deleteOnCancel: deleteOnCancel.checked,
      orderIdSource: orderIdSource.values[0] === 'name' ? 'name' : 'id',
      postFulfillmentEvents: postFulfillmentEvents.checked,
      showOrderDelivered: showOrderDelivered.checked,
      linkToTrackingPage: linkToTrackingPage.checked,
      pushSafetyPollHours: Number(pushSafetyPollHours.value),
    }),
    write: (v) => {
      createOnFulfillment.checked = v.createOnFulfillment;
      deleteOnCancel.checked = v.deleteOnCancel;
      orderIdSource.values = [v.orderIdSource];
      postFulfillmentEvents.checked = v.postFulfillmentEvents;
      showOrderDelivered.checked = v.showOrderDelivered;
      linkToTrackingPage.checked = v.linkToTrackingPage;
      pushSafetyPollHours.value = String(v.pushSafetyPollHours);
      pushSafetyPollHours.error = '';
    },
    save: async (v) => {
      pushSafetyPollHours.error = '';
      if (
        !Number.isInteger(v.pushSafetyPollHours) ||
        v.pushSafetyPollHours < 1 ||
        v.pushSafetyPollHours > 168
      ) {
        pushSafetyPollHours.error = 'Enter a whole number of hours from 1 to 168.';
        return null;
      }
      try {
        const answer = await api<{ settings: Settings }>('PUT', '/settings', v);
        toast('Settings saved');
        return behaviourOf(answer.settings);
      } catch (error) {
        const unplaced = placeIssues(error, (issue) => {
          if (issue.field !== 'pushSafetyPollHours') return false;
          pushSafetyPollHours.error = issue.message;
          return true;
        });
        if (unplaced) failureToast(error);
        return null;
      }
    },
  });

  async function loadShop(): Promise<void> {
    try {
      const shop = await api<ShopOverview>('GET', '/shop');
      connection.setSaved({ appName: shop.connection.appName ?? '', apiKey: '' });
      drawConnection(shop);
      replace(
        connectionSection,
        h(
          's-paragraph',
          { color: 'subdued' },
          'The tracking service account that receives this store’s trackers.',
        ),
        status,
        connection.form,
      );
      behaviour.setSaved(behaviourOf(shop.settings));
      replace(behaviourSection, behaviour.form);
      disableForms(connectionSection);
      disableForms(behaviourSection);
    } catch (error) {
      replace(connectionSection, loadFailure('The connection could not be loaded', error));
      replace(
        behaviourSection,
        isSessionError(error) ? null : loadFailure('Settings could not be loaded', error),
      );
    }
  }

  /* ---------------------------------------------------------------- shipment problems */

  type RuleValues = ProblemRulesView['rules'];
  type Kind = keyof RuleValues;
  const kinds = Object.keys(problemKindLabels) as Kind[];
  const daysMessage = `Enter a whole number of business days from ${ruleDaysMin} to ${ruleDaysMax}.`;
  const ruleSwitches = new Map<Kind, HTMLElementTagNameMap['s-checkbox']>();
  const ruleDays = new Map<Kind, HTMLElementTagNameMap['s-number-field']>();
  for (const kind of kinds) {
    const words = problemRuleWords[kind];
    ruleSwitches.set(kind, h('s-checkbox', { label: problemKindLabels[kind], details: words.when }));
    if (words.days)
      ruleDays.set(
        kind,
        h('s-number-field', { label: words.days, min: ruleDaysMin, max: ruleDaysMax, step: 1 }),
      );
  }
  const zoneText = h('s-text', { type: 'strong', data: { testid: 'store-time-zone' } });
  /** The rules as the form holds them: a kind without days has 0, as the API answers it. */
  const ruleValues = (rules: RuleValues): RuleValues =>
    Object.fromEntries(
      kinds.map((kind) => [
        kind,
        { on: rules[kind]?.on ?? true, days: ruleDays.has(kind) ? (rules[kind]?.days ?? 0) : 0 },
      ]),
    ) as RuleValues;
  let savedRules: RuleValues | null = null;

  const problemRules = saveBarForm<RuleValues>({
    id: 'problem-rules-save-bar',
    children: [
      h(
        's-paragraph',
        null,
        'Which problems the Needs attention page, the daily digest and Slack report. Days are business days (Monday to Friday) in the store’s time zone: ',
        zoneText,
        '.',
      ),
      h(
        's-paragraph',
        { color: 'subdued' },
        'Switching a kind off closes its open problems at once; switched on again, it reports what happens from then.',
      ),
      h(
        'div',
        { class: 'problem-rules' },
        kinds.map((kind) =>
          h(
            'div',
            { class: 'problem-rule', data: { kind } },
            ruleSwitches.get(kind),
            ruleDays.has(kind) ? h('div', { class: 'problem-rule-days' }, ruleDays.get(kind)) : null,
          ),
        ),
      ),
    ],
    read: () =>
      Object.fromEntries(
        kinds.map((kind) => {
          const days = ruleDays.get(kind);
          return [kind, { on: ruleSwitches.get(kind)!.checked, days: days ? Number(days.value) : 0 }];
        }),
      ) as RuleValues,
    write: (v) => {
      // Only ever given the saved rules (loaded, saved, or put back by Discard).
      savedRules = v;
      for (const kind of kinds) {
        ruleSwitches.get(kind)!.checked = v[kind].on;
        const days = ruleDays.get(kind);
        if (days) {
          days.value = String(v[kind].days);
          days.error = '';
        }
      }
    },
    save: async (v) => {
      let valid = true;
      for (const [kind, field] of ruleDays) {
        const days = v[kind].days;
        const ok = Number.isInteger(days) && days >= ruleDaysMin && days <= ruleDaysMax;
        field.error = ok ? '' : daysMessage;
        valid &&= ok;
      }
      if (!valid) return null;
      // Only the kinds that changed: a kind's days go only with the kinds that have them.
      const body: Partial<Record<Kind, { on: boolean; days?: number }>> = {};
      for (const kind of kinds) {
        const before = savedRules?.[kind];
        if (before && before.on === v[kind].on && before.days === v[kind].days) continue;
        body[kind] = ruleDays.has(kind) ? { on: v[kind].on, days: v[kind].days } : { on: v[kind].on };
      }
      try {
        const answer = await api<ProblemRulesView>('PUT', '/problems/rules', body);
        drawZone(answer.timezone);
        toast('Problem rules saved');
        return ruleValues(answer.rules);
      } catch (error) {
        const unplaced = placeIssues(error, ({ field }) => {
          const [kind, part] = field.split('.');
          const days = part === 'days' ? ruleDays.get(kind as Kind) : undefined;
          if (days) days.error = daysMessage;
          return days !== undefined;
        });
        if (unplaced) failureToast(error);
        return null;
      }
    },
  });

  /** The store's time zone, where business days and the digest's hour are counted. */
  function drawZone(zone: string): void {
    zoneText.textContent = zone;
    digestHour.label = `Send it at (store time, ${zone})`;
  }

  async function loadRules(): Promise<void> {
    try {
      const view = await api<ProblemRulesView>('GET', '/problems/rules');
      drawZone(view.timezone);
      problemRules.setSaved(ruleValues(view.rules));
      replace(problemsSection, problemRules.form);
      disableForms(problemsSection);
    } catch (error) {
      replace(problemsSection, loadFailure('The problem rules could not be loaded', error));
    }
  }

  /* ---------------------------------------------------------------- notifications */

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

  const notifications = saveBarForm<NotificationValues>({
    id: 'notifications-save-bar',
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
      if (v.slackWebhookUrl && !v.slackWebhookUrl.startsWith(slackUrlStart)) {
        slackUrl.error = slackMessage;
        return null;
      }
      const body: Partial<Omit<NotificationValues, 'removeSlack'>> = {
        digestEnabled: v.digestEnabled,
        digestHour: v.digestHour,
        recipients: v.recipients,
        slackInstantProblems: v.slackInstantProblems,
      };
      if (v.slackWebhookUrl) body.slackWebhookUrl = v.slackWebhookUrl;
      else if (v.removeSlack) body.slackWebhookUrl = '';
      try {
        const answer = await api<NotificationSettingsView>('PUT', '/notifications', body);
        slackConfigured = answer.slackConfigured;
        drawContact(answer);
        toast('Notification settings saved');
        return notificationValues(answer);
      } catch (error) {
        const unplaced = placeIssues(error, ({ field }) => {
          const [name, place] = field.split('.');
          if (name === 'digestHour') digestHour.error = 'Choose an hour from 00:00 to 23:00.';
          else if (name === 'slackWebhookUrl') slackUrl.error = slackMessage;
          else if (name === 'recipients' && place !== undefined)
            recipients.showError(Number(place), 'Enter an e-mail address, such as name@example.com.');
          else return false;
          return true;
        });
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

  /* ---------------------------------------------------------------- status pushes */

  const pushUrl = h('s-text-field', { label: 'Status push URL', readOnly: true });
  const pushState = h('div');
  const rotate = h('s-button', { variant: 'secondary' }, 'Replace the URL');
  rotate.addEventListener('click', () => void rotatePushUrl());

  function drawPush(push: StatusPushView): void {
    pushUrl.value = push.statusPushUrl;
    replace(
      pushState,
      h(
        's-stack',
        { direction: 'inline', gap: 'small-200', alignItems: 'center', data: { testid: 'push-state' } },
        h(
          's-badge',
          { tone: push.arriving ? 'success' : 'neutral' },
          push.arriving ? 'Receiving' : 'Not receiving',
        ),
        h(
          's-text',
          null,
          push.arriving && push.lastPushAt
            ? `Last push ${formatDateTime(String(push.lastPushAt))}. Shipments are also read every ${plural(push.safetyPollHours, 'hour')} as a safety net.`
            : 'No recent push: statuses are read on a schedule (hourly to every few hours).',
        ),
      ),
    );
  }

  async function loadPush(): Promise<void> {
    try {
      const push = await api<StatusPushView>('GET', '/status-push');
      drawPush(push);
      replace(
        pushSection,
        h(
          's-paragraph',
          null,
          'Register this URL as the tracking webhook in your tracking service account. It sends each new scan here with your API key, so statuses reach your store and your customers in seconds instead of hours.',
        ),
        pushUrl,
        pushState,
        rotate,
      );
      disableForms(pushSection);
    } catch (error) {
      replace(
        pushSection,
        isSessionError(error) ? null : loadFailure('The status push URL could not be loaded', error),
      );
    }
  }

  async function rotatePushUrl(): Promise<void> {
    if (
      !window.confirm(
        'Replace the status push URL? The current one stops working at once; register the new one at your tracking service.',
      )
    )
      return;
    rotate.loading = true;
    try {
      drawPush(await api<StatusPushView>('POST', '/status-push/rotate', {}));
      toast('New status push URL: register it at your tracking service');
    } catch (error) {
      failureToast(error);
    } finally {
      rotate.loading = false;
    }
  }

  /* ---------------------------------------------------------------- carrier mapping */

  type SeenPage = { carriers: SeenCarrier[]; next: string | null };
  /** Labels of the service's carriers met so far (the mapped ones, the picker's results). */
  const labels = new Map<string, string>();
  const labelOf = (slug: string) => labels.get(slug) ?? slug;
  const learnLabels = (carriers: SeenCarrier[]) => {
    for (const c of carriers) if (c.mappedTo && c.mappedLabel) labels.set(c.mappedTo, c.mappedLabel);
  };

  async function loadCarriers(): Promise<void> {
    try {
      const seen = await api<SeenPage>('GET', '/carriers/seen');
      learnLabels(seen.carriers);
      drawCarriers(seen.carriers, seen.next);
    } catch (error) {
      replace(carriersSection, loadFailure('Carriers could not be loaded', error));
    }
  }

  /** A shop with more names than a page holds: the next page's rows are added below. */
  function moreCarriers(body: HTMLElement, next: string): HTMLElement {
    const more = h(
      's-button',
      {
        on: {
          click: () => {
            more.loading = true;
            void api<SeenPage>('GET', `/carriers/seen?${new URLSearchParams({ after: next })}`)
              .then((page) => {
                learnLabels(page.carriers);
                body.append(...page.carriers.map(carrierRow));
                disableForms(body);
                more.replaceWith(page.next ? moreCarriers(body, page.next) : '');
              })
              .catch((error: unknown) => {
                more.loading = false;
                failureToast(error);
              });
          },
        },
      },
      'Show more carrier names',
    );
    return more;
  }

  function drawCarriers(carriers: SeenCarrier[], next: string | null): void {
    const body = h('s-table-body', null, carriers.map(carrierRow));
    if (carriers.length === 0) {
      replace(
        carriersSection,
        h(
          's-paragraph',
          { color: 'subdued' },
          'Carrier names appear here once your store fulfils orders with tracking numbers.',
        ),
      );
      return;
    }
    replace(
      carriersSection,
      h(
        's-paragraph',
        { color: 'subdued' },
        "Each carrier name your store's fulfilments use, and the tracking service carrier it stands for.",
      ),
      h(
        's-table',
        null,
        h(
          's-table-header-row',
          null,
          h('s-table-header', { listSlot: 'primary' }, 'Carrier name in your store'),
          h('s-table-header', { listSlot: 'labeled' }, 'Tracking service carrier'),
          h('s-table-header', { listSlot: 'labeled', format: 'numeric' }, 'Shipments'),
          h('s-table-header', { listSlot: 'inline' }, ''),
        ),
        body,
      ),
      next ? moreCarriers(body, next) : null,
    );
    disableForms(carriersSection);
  }

  function carrierRow(carrier: SeenCarrier): HTMLElement {
    const editor = h('div', { class: 'carrier-editor' });
    const matched =
      carrier.mappedTo === null
        ? h(
            's-stack',
            { gap: 'none' },
            h('s-text', { tone: 'critical', type: 'strong' }, 'Not matched'),
            carrier.waiting > 0
              ? h(
                  's-text',
                  { color: 'subdued' },
                  `${plural(carrier.waiting, 'shipment')} waiting until you choose a carrier`,
                )
              : null,
          )
        : h(
            's-text',
            null,
            carrier.source === 'override'
              ? `Chosen by you: ${labelOf(carrier.mappedTo)}`
              : `Matched automatically: ${labelOf(carrier.mappedTo)}`,
          );
    const choose = h(
      's-button',
      {
        variant: carrier.mappedTo === null ? 'primary' : 'secondary',
        accessibilityLabel: `Choose the carrier for ${carrier.name}`,
        data: { needsSession: '' },
        on: { click: () => openEditor(carrier, editor, choose) },
      },
      carrier.mappedTo === null ? 'Choose carrier' : 'Change',
    );
    return h(
      's-table-row',
      { data: { carrier: carrier.name } },
      h('s-table-cell', null, h('s-text', { type: 'strong' }, carrier.name)),
      h('s-table-cell', null, matched, editor),
      h('s-table-cell', null, formatCount(carrier.shipments)),
      h('s-table-cell', null, choose),
    );
  }

  function openEditor(carrier: SeenCarrier, editor: HTMLElement, opener: HTMLElement): void {
    // The picker replaces its button until it is closed.
    opener.hidden = true;
    const search = h('s-search-field', {
      label: `Search the tracking service's carriers for ${carrier.name}`,
      labelAccessibilityVisibility: 'exclusive',
      placeholder: 'Search carriers',
    });
    const select = h('s-select', { label: `Carrier for ${carrier.name}` });
    const save = h('s-button', { variant: 'primary', type: 'submit' }, 'Save carrier');
    const cancel = h(
      's-button',
      {
        variant: 'tertiary',
        on: {
          click: () => {
            replace(editor);
            opener.hidden = false;
          },
        },
      },
      'Cancel',
    );
    // The search reaches the service's whole list; without words, the carrier chosen now stays offered
    // beside the first of the list, wherever it sorts.
    const current: ShippingProvider[] =
      carrier.mappedTo === null ? [] : [{ slug: carrier.mappedTo, label: labelOf(carrier.mappedTo) }];
    const fill = (found: ShippingProvider[], searched: boolean) => {
      const offered =
        searched || found.some((c) => c.slug === carrier.mappedTo) ? found : [...current, ...found];
      for (const c of offered) labels.set(c.slug, c.label);
      replace(
        select,
        offered.length === 0
          ? h('s-option', { value: '', disabled: true }, 'No carrier matches')
          : offered.map((c) =>
              h('s-option', { value: c.slug, selected: c.slug === carrier.mappedTo }, c.label),
            ),
      );
    };
    let timer = 0;
    const find = async () => {
      const query = new URLSearchParams({ limit: '50' });
      const words = search.value.trim();
      if (words) query.set('search', words);
      try {
        fill((await api<{ carriers: ShippingProvider[] }>('GET', `/carriers?${query}`)).carriers, !!words);
      } catch (error) {
        failureToast(error);
      }
    };
    search.addEventListener('input', () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => void find(), 250);
    });
    const form = h(
      'form',
      {
        attrs: { novalidate: '' },
        on: {
          submit: (event: Event) => {
            event.preventDefault();
            void saveMapping(carrier, select.value, save);
          },
        },
      },
      search,
      select,
      h('s-stack', { direction: 'inline', gap: 'small-200' }, save, cancel),
    );
    search.value = carrier.mappedTo ? '' : (carrier.name.split(/\s+/)[0] ?? '');
    replace(editor, form);
    void find();
    disableForms(editor);
  }

  async function saveMapping(
    carrier: SeenCarrier,
    slug: string,
    button: HTMLElementTagNameMap['s-button'],
  ): Promise<void> {
    if (!slug) {
      toast('Choose a carrier first.', { isError: true });
      return;
    }
    button.loading = true;
    try {
      const answer = await api<{ remapped: number; stillWaiting: number }>('PUT', '/carriers/mapping', {
        name: carrier.name,
        slug,
      });
      toast(
        `${labelOf(slug)} chosen for “${carrier.name}”${answer.remapped > 0 ? `: ${plural(answer.remapped, 'waiting shipment')} will be tracked` : ''}`,
      );
      await loadCarriers();
    } catch (error) {
      failureToast(error);
    } finally {
      button.loading = false;
    }
  }

  // Sections appear top to bottom as their data arrives (all asked for at once): one drawn later never
  // pushes down one already on screen.
  const element = h('s-page', { heading: 'Settings' }, connectionSection);
  const carriersLoaded = loadCarriers();
  const pushLoaded = loadPush();
  const rulesLoaded = loadRules();
  const notificationsLoaded = loadNotifications();
  const ready = loadShop().then(async () => {
    element.append(behaviourSection);
    await rulesLoaded;
    element.append(problemsSection);
    await notificationsLoaded;
    element.append(notificationsSection);
    await pushLoaded;
    element.append(pushSection);
    await carriersLoaded;
    element.append(carriersSection);
    const section = context.params.get('section');
    if (sectionIds.includes(section ?? '')) {
      document.getElementById(section!)?.scrollIntoView({ block: 'start' });
    }
  });
  return {
    element,
    ready,
    canLeave: () =>
      !hasUnsavedChanges() || window.confirm('Leave this page? Your unsaved changes will be lost.'),
  };
};

/** The sections `?section=` scrolls to. */
const sectionIds = ['connection', 'behaviour', 'problems', 'notifications', 'status-push', 'carriers'];

/** A waiting rule's business days (src/shipments/problems.ts: 1 to 30). */
const ruleDaysMin = 1;
const ruleDaysMax = 30;
/** Further digest recipients the API keeps (src/notifications/recipients.ts `maxRecipients`). */
const maxRecipients = 10;
/** How a Slack incoming-webhook URL starts (the API checks the rest). */
const slackUrlStart = 'https://hooks.slack.com/';
const slackMessage = `Enter a Slack incoming-webhook URL: it starts with ${slackUrlStart}`;

/**
 * Puts a refused save's issues (a 400's `{ field, message }`) on their fields: `place` answers whether it
 * placed one. Answers true when something is left unsaid (an issue not placed, or another failure), for
 * the caller's toast.
 */
function placeIssues(error: unknown, place: (issue: { field: string; message: string }) => boolean): boolean {
  if (!(error instanceof ApiError) || error.issues.length === 0) return true;
  let unplaced = false;
  for (const issue of error.issues) if (!place(issue)) unplaced = true;
  return unplaced;
}

function spinner(what: string): HTMLElement {
  return h('s-spinner', { accessibilityLabel: `Loading ${what}` });
}
