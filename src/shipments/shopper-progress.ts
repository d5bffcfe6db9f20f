import { normaliseStatusCode, parcelGroupOf } from './status-table.js';

/**
 * Where a parcel stands for the shopper: the step of its journey (ordered, shipped, in transit, out for
 * delivery, delivered) and, when something is wrong, the trouble on that step (what happened and what the
 * shopper can do). The tracking page draws the steps from it and the order status extension names the
 * step; both read the same rule. Built on the status table (src/shipments/status-table.ts), no imports else.
 */

export const progressSteps = ['ordered', 'shipped', 'in_transit', 'out_for_delivery', 'delivered'] as const;
export type ProgressStep = (typeof progressSteps)[number];

/** Something the shopper should know about, shown on the step it happened at. */
export const troubles = [
  'exception',
  'failed_attempt',
  'on_hold',
  'returning',
  'pickup',
  'tracking_unavailable',
  'cancelled',
] as const;
export type Trouble = (typeof troubles)[number];

export interface Progress {
  step: ProgressStep;
  /** The step's place in progressSteps (0 = ordered). */
  index: number;
  trouble: Trouble | null;
}

const onHoldCodes = new Set(['on_hold', 'delayed']);
const returningCodes = new Set(['return_to_sender', 'returned']);

function at(step: ProgressStep, trouble: Trouble | null = null): Progress {
  return { step, index: progressSteps.indexOf(step), trouble };
}

/**
 * The progress of a parcel from its stored status and detail; `moved` says whether the carrier has
 * reported it at all (any event), which places a trouble with no step of its own.
 */
export function progressOf(
  status: string | null | undefined,
  detail: string | null | undefined,
  moved: boolean,
): Progress {
  const group = parcelGroupOf(status, detail);
  const code = normaliseStatusCode(status);
  const detailCode = normaliseStatusCode(detail);
  switch (group) {
    case 'not_scanned':
    case 'info_received':
      return at('shipped');
    case 'in_transit':
      return at('in_transit');
    case 'out_for_delivery':
      return at('out_for_delivery');
    case 'ready_for_pickup':
      return at('out_for_delivery', 'pickup');
    case 'failed_attempt':
      return at('out_for_delivery', 'failed_attempt');
    case 'exception':
      if (returningCodes.has(code) || returningCodes.has(detailCode)) return at('in_transit', 'returning');
      if (onHoldCodes.has(code) || onHoldCodes.has(detailCode)) return at('in_transit', 'on_hold');
      return at(moved ? 'in_transit' : 'shipped', 'exception');
    case 'not_followed':
      return at(moved ? 'in_transit' : 'shipped', 'tracking_unavailable');
    case 'ended':
      return at('shipped', 'cancelled');
    case 'delivered':
      return at('delivered');
  }
}
