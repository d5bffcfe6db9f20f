/**
 * The words the merchant reads, in one place: where a shipment's sync stands, why something failed and what
 * to do; a parcel's own words (label, group, advice, action) are the parcel model's
 * (src/shipments/parcel-model.ts), re-exported here. Plain TypeScript whose imports are import-free modules:
 * the server (API answers, CSV) and the page's bundle (src/ui/page) both use it, so a label is never spelt
 * two ways.
 */

import { type ProblemKind, problemKinds, problemWords } from '../shipments/problem-words.js';
import type { ParcelGroup } from '../shipments/parcel-model.js';
import { type SyncState, syncStates } from '../shipments/status-table.js';

/* ------------------------------------------------------------------ the app's pages */

/**
 * The app's pages in the store admin, in the menu's order: each one's path (the server answers the same
 * document for each) and title. The page's router, the server's routes and `npm run dev`'s banner read them.
 */
export const adminPages = {
  overview: { path: '/', title: 'Overview' },
  attention: { path: '/attention', title: 'Needs attention' },
  shipments: { path: '/shipments', title: 'Shipments' },
  trackingPage: { path: '/tracking-page', title: 'Tracking page' },
  settings: { path: '/settings', title: 'Settings' },
  activity: { path: '/activity', title: 'Activity' },
} as const satisfies Record<string, { path: string; title: string }>;

export type AdminPageKey = keyof typeof adminPages;

/* ------------------------------------------------------------------ the parcel */

/** A parcel's words (labels, groups, advice, actions) are the parcel model's rows, read from there alone. */
export {
  actionPlaces,
  codeWords,
  groupByDetail,
  movingStatuses,
  normaliseStatusCode,
  type ParcelAction,
  type ParcelGroup,
  parcelGroupLabels,
  parcelGroupOf,
  parcelGroups,
  parcelGroupStatuses,
  parcelGroupStatusTones,
  parcelOf,
} from '../shipments/parcel-model.js';
export { type SyncState, syncStateOf, syncStates } from '../shipments/status-table.js';

/**
 * Which shipments a count counts, said beside the Overview's figure and the Shipments page's total (both
 * count the same rows): every tracking number on a fulfilment, a cancelled one included (shown cancelled).
 */
export const shipmentsCountedNote = 'Cancelled fulfilments included';

/* ------------------------------------------------------------------ the sync */

/** The sync filter: one state, or every shipment that needs the merchant. */
export const syncFilters = ['problem', ...syncStates] as const;
export type SyncFilter = (typeof syncFilters)[number];

/**
 * The lines that need the merchant ("Needs action"): a failed tracker, a line waiting for its carrier, or a
 * tracked parcel the service cannot follow (a wrong carrier or number: the model's not_followed group).
 * As (parcel group, sync state) pairs, null for any: the list reads each as one index range.
 */
export const needsActionCells: ReadonlyArray<{ parcel: ParcelGroup | null; sync: SyncState }> = [
  { parcel: null, sync: 'failed' },
  { parcel: null, sync: 'waiting_carrier' },
  { parcel: 'not_followed', sync: 'tracked' },
];

/** Whether a line in this parcel group and sync state needs the merchant (see needsActionCells). */
export function needsAction(parcel: ParcelGroup, sync: SyncState): boolean {
  return needsActionCells.some((c) => c.sync === sync && (c.parcel === null || c.parcel === parcel));
}

export const syncLabels: Record<SyncState, string> = {
  tracked: 'Tracked',
  syncing: 'Creating tracker…',
  waiting_carrier: 'Waiting: map this carrier',
  failed: 'Failed',
  removing: 'Removing tracker…',
  order_cancelled: 'Order cancelled — tracker removed',
  fulfillment_cancelled: 'Fulfilment cancelled — tracker removed',
  number_removed: 'Number removed from the fulfilment — tracker removed',
  removed: 'Tracker removed',
};

export const syncFilterLabels: Record<SyncFilter, string> = {
  problem: 'Needs action',
  tracked: 'Tracked',
  syncing: 'Creating tracker',
  waiting_carrier: 'Waiting for a carrier',
  failed: 'Failed',
  removing: 'Removing tracker',
  order_cancelled: 'Order cancelled',
  fulfillment_cancelled: 'Fulfilment cancelled',
  number_removed: 'Number removed',
  removed: 'Tracker removed',
};

/* ------------------------------------------------------------------ failures */

/** Why the tracking service refused or failed a tracker, in plain words, and what to do. */
export const failureReasons: Record<string, { what: string; todo: string }> = {
  destination_required: {
    what: 'The carrier needs the destination (postal code and country) and the order has none.',
    todo: 'Add the shipping address to the order in your store, then retry.',
  },
  provider_not_found: {
    what: 'The tracking service does not know this carrier.',
    todo: 'Choose another carrier in Settings → Carrier mapping, then retry.',
  },
  unauthorized: {
    what: 'The tracking service refused the API key or the store.',
    todo: 'Check the app name and API key in Settings → Connection.',
  },
  app_name_not_found: {
    what: 'The tracking service has no account with this app name.',
    todo: 'Check the app name in Settings → Connection.',
  },
  ssl_error: {
    what: 'The tracking service needs the store address over HTTPS.',
    todo: 'Check the connection in Settings.',
  },
  balance_exhausted: {
    what: 'No trackers are left in your tracking service account.',
    todo: 'Top up the account, then retry.',
  },
  missing_parameter: {
    what: 'The tracking service said a detail of the shipment is missing.',
    todo: 'Check the order and its fulfilment in your store, then retry.',
  },
  order_not_found: {
    what: 'The tracking service does not know this order.',
    todo: 'Retry; the order is sent again.',
  },
  tracking_not_found: {
    what: 'The tracking service does not know this tracking number.',
    todo: 'Check the number on the fulfilment in your store.',
  },
};

/** Why the tracking service refused a connection (PUT /connection's reason), said on the key field. */
export const connectionRefusals: Record<string, string> = {
  unauthorized: 'Wrong API key or wrong app name: check both against your tracking service account.',
  ssl_error: 'The tracking service needs the store address over HTTPS.',
  unreachable: 'The tracking service could not be reached. Try again in a moment.',
};

/** A failure's reason code → what happened and what to do (unknown codes: the service's own message). */
export function describeFailure(
  reason: string | null,
  message: string | null,
): { what: string; todo: string } {
  const known = reason ? failureReasons[reason] : undefined;
  if (known) return known;
  return {
    what: message?.trim() || 'The tracking service did not accept the tracker.',
    todo: 'Retry; if it fails again, check the order and the carrier.',
  };
}

/** A store delivery's topic in words. */
export function topicWords(topic: string): string {
  const words: Record<string, string> = {
    'fulfillments/create': 'A new fulfilment',
    'fulfillments/update': 'A changed fulfilment',
    'orders/cancelled': 'A cancelled order',
  };
  return words[topic] ?? topic;
}

/** The platform's fulfilment event status in words (IN_TRANSIT → In transit). */
export function platformStatusWords(status: string): string {
  const text = status.replace(/_/g, ' ').toLowerCase();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/* ------------------------------------------------------------------ the overview's health */

export type HealthKey =
  'failed_trackers' | 'failed_deliveries' | 'store_writes_refused' | 'waiting_carrier' | 'not_followed';

/** A health line's words for its count; `action` is the link's text when there is something to do. */
export function healthWords(item: { key: HealthKey; count: number }): {
  text: string;
  action: string | null;
} {
  const n = item.count;
  const s = (one: string, many: string) => (n === 1 ? one : many);
  switch (item.key) {
    case 'failed_trackers':
      return n === 0
        ? { text: 'No tracker failed.', action: null }
        : { text: `${n} ${s('tracker', 'trackers')} failed.`, action: 'See what to do' };
    case 'failed_deliveries':
      return n === 0
        ? { text: 'Every store update was applied.', action: null }
        : { text: `${n} store ${s('update', 'updates')} could not be applied.`, action: 'Retry' };
    case 'store_writes_refused':
      return n === 0
        ? { text: 'Every tracking update so far was written to your store.', action: null }
        : {
            text: `${n} tracking ${s('update was', 'updates were')} refused by your store.`,
            action: 'See which',
          };
    case 'waiting_carrier':
      // Not "every carrier is matched": a parcel the service cannot follow has its own line below.
      return n === 0
        ? { text: 'No shipment waits for its carrier to be chosen.', action: null }
        : {
            text: `${n} ${s('shipment waits', 'shipments wait')} for its carrier to be chosen.`,
            action: 'Map carriers',
          };
    case 'not_followed':
      return n === 0
        ? { text: 'The tracking service follows every tracked shipment.', action: null }
        : {
            text: `${n} ${s('shipment is', 'shipments are')} not followed by the tracking service (wrong carrier or number).`,
            action: 'See what to do',
          };
  }
}

/* ------------------------------------------------------------------ shipment problems */

/** Each problem kind's name, for the filter beside the "Needs attention" list, in the order the API counts them. */
export const problemKindLabels = Object.fromEntries(
  problemKinds.map((kind) => [kind, problemWords[kind].label]),
) as Record<ProblemKind, string>;

/**
 * When each kind of problem opens, as Settings → Shipment problems says it beside the kind's switch; the
 * kinds that wait (src/shipments/problems.ts `problemDayDefaults`) also name their number of business days.
 */
export const problemRuleWords: Record<ProblemKind, { when: string; days?: string }> = {
  not_picked_up: {
    when: 'No carrier scan yet, counted from the fulfilment.',
    days: 'Business days without a carrier scan',
  },
  stalled: {
    when: 'In transit or out for delivery, and no new carrier event since.',
    days: 'Business days without a new event',
  },
  past_estimate: { when: 'The estimated delivery day has ended and the parcel is still on its way.' },
  slower_than_usual: {
    when: 'In transit longer than 9 in 10 of your delivered parcels with the same carrier to the same country (once 30 have been delivered).',
  },
  carrier_exception: { when: 'The carrier reports an exception, a delay or an undeliverable parcel.' },
  failed_attempt: { when: 'The carrier tried to deliver and could not.' },
  on_hold: { when: 'The carrier holds the parcel (customs, address, payment).' },
  returning: { when: 'The parcel is on its way back to the sender, or returned.' },
  waiting_pickup: {
    when: 'Ready at a pickup point and not collected.',
    days: 'Business days at the pickup point',
  },
  tracking_problem: {
    when: 'The tracking service cannot follow the number (wrong number or carrier, unsupported, expired).',
  },
};

/** The Overview's line for the open shipment problems (all kinds, snoozed ones left out). */
export function attentionWords(total: number): { text: string; action: string | null } {
  if (total === 0) return { text: 'No shipment needs attention.', action: null };
  return {
    text: `${total} shipment ${total === 1 ? 'problem needs' : 'problems need'} attention.`,
    action: 'Review them',
  };
}

/** Why syncing is paused, for the merchant (the shop's pause reason code). */
export function pauseWords(reason: string, message: string | null): string {
  switch (reason) {
    case 'not_connected':
      return 'Enter your tracking service app name and API key to start syncing.';
    case 'unauthorized':
      return 'Paused: the tracking service refused the API key. Check it in Settings.';
    case 'balance_exhausted':
      return 'Paused: no trackers left in your tracking service account. Top it up, then save the connection again.';
    case 'uninstalled':
      return 'The app was uninstalled from this store.';
    case 'ssl_error':
      return 'Paused: the tracking service needs the store address over HTTPS.';
    default:
      return message ? `Paused: ${message}` : 'Paused.';
  }
}
