/**
 * The kinds of shipment problem (src/shipments/problems.ts; the list is the parcel model's) and what each
 * means for the merchant: plain TypeScript whose only import is the import-free model, so the page's bundle
 * says them exactly as the API, the digest and the CLI do. Where a parcel's status has advice of its own
 * (the model's row: a tracker the service cannot follow), that advice is the problem's (`problemAdvice`).
 */

import type { ProblemKind } from './parcel-model.js';

export { problemKinds, type ProblemKind } from './parcel-model.js';

/** What each kind means for the merchant, and what to do: the pages, the digest and the CLI say it alike. */
export const problemWords: Record<ProblemKind, { label: string; todo: string }> = {
  not_picked_up: {
    label: 'Not picked up',
    todo: 'No carrier scan yet: check the parcel was handed over, or ask the carrier to collect it.',
  },
  stalled: {
    label: 'Stalled',
    todo: 'No news from the carrier for days: open a trace with the carrier, and tell the customer.',
  },
  past_estimate: {
    label: 'Past its estimate',
    todo: 'The estimated delivery day has passed: tell the customer before they ask.',
  },
  slower_than_usual: {
    label: 'Slower than usual',
    todo: 'In transit longer than 9 in 10 of your parcels with this carrier to this country: check with the carrier.',
  },
  carrier_exception: {
    label: 'Carrier exception',
    todo: 'The carrier reports a problem: read the last event and contact the carrier if needed.',
  },
  failed_attempt: {
    label: 'Delivery attempt failed',
    todo: 'The carrier could not deliver: check the address with the customer.',
  },
  on_hold: {
    label: 'On hold',
    todo: 'The carrier holds the parcel (customs, address, payment): find out what it needs.',
  },
  returning: {
    label: 'Returning to sender',
    todo: 'The parcel is on its way back: contact the customer about a reshipment or a refund.',
  },
  waiting_pickup: {
    label: 'Waiting at a pickup point',
    todo: 'The parcel waits for the customer at a pickup point: remind them before it is sent back.',
  },
  tracking_problem: {
    label: 'Tracking problem',
    todo: 'The tracking service cannot follow it: for a wrong carrier, map it in Settings → Carrier mapping; for a wrong number, correct it on the fulfilment in the store.',
  },
};

/** The kinds a parcel's status raises (the others come from time passing: not the status's advice). */
const statusKinds: readonly ProblemKind[] = [
  'carrier_exception',
  'failed_attempt',
  'on_hold',
  'returning',
  'tracking_problem',
];

/**
 * The one piece of advice for a problem of this kind on a parcel: the parcel's own (its status row's in
 * the model, e.g. "map this carrier…" for a wrong carrier) for a kind its status raised, else the kind's.
 */
export function problemAdvice(kind: ProblemKind, parcel: { advice: string | null } | null): string {
  return (statusKinds.includes(kind) ? parcel?.advice : null) ?? problemWords[kind].todo;
}
