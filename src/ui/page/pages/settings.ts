import type { ShopOverview } from '../../api/shop-overview.js';
import { api } from '../api-client.js';
import { hasUnsavedChanges, saveBar } from '../components/save-bar-form.js';
import { h } from '../dom.js';
import type { PageModule } from '../page.js';
import { behaviourCard } from './settings/behaviour.js';
import { carriersCard } from './settings/carriers.js';
import { connectionCard } from './settings/connection.js';
import { notificationsCard } from './settings/notifications.js';
import { problemRulesCard } from './settings/problem-rules.js';
import { statusPushCard } from './settings/status-push.js';

/**
 * Settings, one card a file (./settings/): the tracking service connection, what the app does
 * (behaviour), which shipment problems are reported and after how many business days, how the merchant
 * hears of them (the daily digest by e-mail and Slack, instant Slack posts), the status push URL, and
 * which of the service's carriers each carrier name of the store stands for. The page has one save bar,
 * the admin's pattern: it shows while any card's form differs from what was saved; Save saves every
 * changed card, Discard puts them all back. The carrier picker and the push URL act at once.
 */
export const settingsPage: PageModule = (context) => {
  const bar = saveBar('settings-save-bar');
  // The connection and the behaviour read the shop once.
  const shopLoaded = api<ShopOverview>('GET', '/shop');
  shopLoaded.catch(() => undefined);
  const notifications = notificationsCard(bar);
  const cards = {
    connection: connectionCard(bar, shopLoaded),
    behaviour: behaviourCard(bar, shopLoaded),
    problems: problemRulesCard(bar, (zone) => notifications.showZone(zone)),
    notifications,
    push: statusPushCard(),
    carriers: carriersCard(),
  };

  // Sections appear top to bottom as their data arrives (all asked for at once): one drawn later never
  // pushes down one already on screen.
  const element = h('s-page', { heading: 'Settings' }, bar.element, cards.connection.section);
  const carriersLoaded = cards.carriers.load();
  const pushLoaded = cards.push.load();
  const rulesLoaded = cards.problems.load();
  const notificationsLoaded = cards.notifications.load();
  const behaviourLoaded = cards.behaviour.load();
  const ready = cards.connection.load().then(async () => {
    await behaviourLoaded;
    element.append(cards.behaviour.section);
    await rulesLoaded;
    element.append(cards.problems.section);
    await notificationsLoaded;
    element.append(cards.notifications.section);
    await pushLoaded;
    element.append(cards.push.section);
    await carriersLoaded;
    element.append(cards.carriers.section);
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
