import { parcelOf, type ProgressStep, shopperProgressOf, type Trouble } from './parcel-model.js';

/**
 * Where a parcel stands for the shopper: the step of its journey (ordered, shipped, in transit, out for
 * delivery, delivered) and, when something is wrong, the trouble on that step. Both are attributes of the
 * parcel model's rows (src/shipments/parcel-model.ts); the tracking page draws the steps from it and the
 * order status extension names the step.
 */

export { progressSteps, type ProgressStep, troubles, type Trouble } from './parcel-model.js';

export interface Progress {
  step: ProgressStep;
  /** The step's place in progressSteps (0 = ordered). */
  index: number;
  trouble: Trouble | null;
}

/**
 * The progress of a parcel from its stored status and detail; `moved` says whether the carrier has
 * reported it at all (any event), which places a trouble with no step of its own. `ended`: the line's
 * store-side ending (a cancelled fulfilment or order), which outweighs the tracker's status.
 */
export function progressOf(
  status: string | null | undefined,
  detail: string | null | undefined,
  moved: boolean,
  ended: string | null = null,
): Progress {
  return shopperProgressOf(parcelOf(status, detail, ended), moved);
}
