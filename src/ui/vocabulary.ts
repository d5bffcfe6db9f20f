/**
 * The words the merchant reads, in one place: parcel statuses and their groups, where a shipment's sync
 * stands, why something failed and what to do. Plain TypeScript whose only import is the status table (itself
 * import-free; the problem kinds come as a type only): the server (API answers, CSV) and the page's bundle
 * (src/ui/page) both use it, so a label is never spelt two ways. Which group a status is in is decided by src/shipments/status-table.ts alone.
 */

import { type ProblemKind, problemKinds, problemWords } from '../shipments/problem-words.js';
import { type ParcelGroup, type SyncState, syncStates } from '../shipments/status-table.js';

/* ------------------------------------------------------------------ the parcel */

export {
  groupByDetail,
  movingStatuses,
  normaliseStatusCode,
  type ParcelGroup,
  parcelGroupOf,
  parcelGroups,
  parcelGroupStatuses,
  parcelGroupStatusTones,
  type SyncState,
  syncStateOf,
  syncStates,
} from '../shipments/status-table.js';

export const parcelGroupLabels: Record<ParcelGroup, string> = {
  not_scanned: 'No scan yet',
  info_received: 'Label created',
  in_transit: 'In transit',
  out_for_delivery: 'Out for delivery',
  ready_for_pickup: 'Ready for pickup',
  failed_attempt: 'Delivery attempt failed',
  exception: 'Exception',
  not_followed: 'Tracking problem',
  delivered: 'Delivered',
  ended: 'Ended',
};

/** What the merchant can do when the service itself cannot follow a tracker. */
export const statusActions: Record<string, string> = {
  connection_issue:
    'The tracking service cannot reach the store (it needs the store address over HTTPS): check the connection in Settings.',
  invalid_tracking:
    'Check the tracking number on the fulfilment in the store; a corrected number is followed anew.',
  invalid_carrier: 'Map this carrier to the right one in Settings → Carrier mapping.',
  carrier_unsupported:
    'The tracking service does not support this carrier: map it to a supported one in Settings → Carrier mapping.',
  deleted: 'The tracker was deleted at the tracking service, so its status is no longer updated.',
  expired: 'No update for two months: the tracking service stopped following it.',
  pending_trackship: 'Nothing to do: the first data is on its way.',
};

/** Each status code's label; a code not listed is shown as its own words. */
export const statusLabels: Record<string, string> = {
  pending: 'Pending',
  info_received: 'Label created',
  label_created: 'Label created',
  label_printed: 'Label created',
  pre_transit: 'Label created',
  picked_up: 'Picked up',
  in_transit: 'In transit',
  transit: 'In transit',
  out_for_delivery: 'Out for delivery',
  available_for_pickup: 'Ready for pickup',
  ready_for_pickup: 'Ready for pickup',
  delivered: 'Delivered',
  attempt_fail: 'Delivery attempt failed',
  failed_attempt: 'Delivery attempt failed',
  delayed: 'Delayed',
  failure: 'Delivery attempt failed',
  failed: 'Exception',
  on_hold: 'On hold',
  label_cancelled: 'Label cancelled',
  pending_trackship: 'Waiting for the first scan',
  connection_issue: 'Not followed: connection problem',
  invalid_tracking: 'Not followed: invalid tracking number',
  invalid_carrier: 'Not followed: wrong carrier',
  carrier_unsupported: 'Not followed: carrier not supported',
  deleted: 'Removed at the tracking service',
  exception: 'Exception',
  error: 'Exception',
  undeliverable: 'Undeliverable',
  return_to_sender: 'Returned',
  returned: 'Returned',
  expired: 'Expired',
  cancelled: 'Cancelled',
  canceled: 'Cancelled',
  unknown: 'Unknown',
};

/* ------------------------------------------------------------------ the sync */

/** The sync filter: one state, or every shipment that needs the merchant. */
export const syncFilters = ['problem', ...syncStates] as const;
export type SyncFilter = (typeof syncFilters)[number];

/** The states that need the merchant. */
export const problemSyncStates: readonly SyncState[] = ['failed', 'waiting_carrier'];

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

export type HealthKey = 'failed_trackers' | 'failed_deliveries' | 'store_writes_refused' | 'waiting_carrier';

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
      return n === 0
        ? { text: 'Every carrier is matched.', action: null }
        : {
            text: `${n} ${s('shipment waits', 'shipments wait')} for its carrier to be chosen.`,
            action: 'Map carriers',
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
