import type { ShopOverview } from '../../../api/shop-overview.js';
import {
  behaviourFieldMessages,
  behaviourSchema,
  type BehaviourSettings,
  pushSafetyPollHoursRange,
} from '../../../../settings/behaviour.js';
import { api } from '../../api-client.js';
import { toast } from '../../app-bridge.js';
import { failureToast, isSessionError, loadFailure } from '../../components/load-failure.js';
import type { SaveBar } from '../../components/save-bar-form.js';
import { h, replace } from '../../dom.js';
import { disableForms } from '../../session.js';
import { cardSection, placeIssues, type SettingsCard } from './card.js';

/**
 * Behaviour: what the app does with fulfilments (create and delete trackers, the order id it sends),
 * whether it writes tracking updates and "delivered" to the store, the tracking-page links, and how often
 * it still reads a shipment while pushes arrive. Checked with the API's schema (src/settings/behaviour.ts).
 */
export function behaviourCard(bar: SaveBar, shopLoaded: Promise<ShopOverview>): SettingsCard {
  const behaviourSection = cardSection('behaviour', 'Behaviour', 'settings');

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
    min: pushSafetyPollHoursRange.min,
    max: pushSafetyPollHoursRange.max,
    step: 1,
  });
  const behaviour = bar.form<BehaviourSettings>({
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
      // The API's own schema first: a refused value is said on its field without a request.
      const checked = behaviourSchema.safeParse(v);
      if (!checked.success) {
        if (checked.error.issues.some(placeIssue)) return null;
        failureToast(checked.error);
        return null;
      }
      try {
        const answer = await api<{ settings: BehaviourSettings }>('PUT', '/settings', v);
        toast('Settings saved');
        return behaviourOf(answer.settings);
      } catch (error) {
        const unplaced = placeIssues(error, (issue) => placeIssue({ path: [issue.field] }));
        if (unplaced) failureToast(error);
        return null;
      }
    },
  });

  /** Puts a refused field's words on it; answers whether the field is one of the card's. */
  function placeIssue(issue: { path: readonly PropertyKey[] }): boolean {
    if (issue.path[0] !== 'pushSafetyPollHours') return false;
    pushSafetyPollHours.error = behaviourFieldMessages.pushSafetyPollHours ?? '';
    return true;
  }

  async function load(): Promise<void> {
    try {
      const shop = await shopLoaded;
      behaviour.setSaved(behaviourOf(shop.settings));
      replace(behaviourSection, behaviour.form);
      disableForms(behaviourSection);
    } catch (error) {
      replace(
        behaviourSection,
        isSessionError(error) ? null : loadFailure('Settings could not be loaded', error),
      );
    }
  }

  return { section: behaviourSection, load };
}

function behaviourOf(settings: BehaviourSettings): BehaviourSettings {
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
