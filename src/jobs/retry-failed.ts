import type { DatabaseClient } from '../db/client.js';
import type { Prisma } from '../generated/sqlite/client.js';
import {
  countEmptiedDeliveries,
  deliveryScope,
  type FailedFilter,
  failedDeliveryIds,
  failedTrackerIds,
  resetFailedDeliveries,
  resetFailedTrackers,
  trackerScope,
} from './queries/failed-work.js';

/**
 * The work that gave up: trackers the reconciler marked failed (a permanent refusal) or dead (out of
 * attempts), and webhook deliveries that could not be applied. Operators look at them, fix the cause,
 * and send them round again. Their lists, pages and counts are queries (src/jobs/queries/failed-work.ts).
 */

export {
  countFailed,
  type FailedDelivery,
  type FailedFilter,
  type FailedPage,
  type FailedTracker,
  type FailedWork,
  failedDeliveriesPage,
  failedPageSize,
  failedTrackersPage,
  failedTrackerStates,
  listFailed,
} from './queries/failed-work.js';

export interface RetrySelection extends FailedFilter {
  /** Only these trackers (and, unless deliveryIds is given too, no deliveries). */
  trackerIds?: readonly string[];
  /** Only these deliveries (and, unless trackerIds is given too, no trackers). */
  deliveryIds?: readonly string[];
}

export interface RetryResult {
  trackersReset: number;
  deliveriesReset: number;
  /** Failed deliveries whose body was already emptied: nothing left to process. */
  deliveriesSkipped: number;
  /** Ids asked for that are not (or no longer) failed, or do not exist. */
  notFailed: string[];
}

/**
 * Sends failed work round again: failed/dead trackers become pending, due now, with a fresh attempt
 * budget (only rows still failed or dead, so a tracker a worker just changed is left alone); failed
 * deliveries become pending, due now. Without ids, everything failed (of the shop, when one is named).
 */
export async function retryFailed(
  prisma: DatabaseClient,
  selection: RetrySelection = {},
): Promise<RetryResult> {
  const byId = selection.trackerIds !== undefined || selection.deliveryIds !== undefined;
  const now = new Date();
  const notFailed: string[] = [];

  // Everything failed is reset with one statement each (no list of ids, however many failed); ids given
  // are looked up first, to name those that are not failed.
  let trackersReset = 0;
  if (!byId || selection.trackerIds !== undefined) {
    const where: Prisma.TrackerWhereInput = {
      ...trackerScope(selection),
      ...(selection.trackerIds ? { id: { in: [...selection.trackerIds] } } : {}),
    };
    if (selection.trackerIds) {
      const found = new Set(await failedTrackerIds(prisma, where));
      for (const id of selection.trackerIds) if (!found.has(id)) notFailed.push(id);
    }
    trackersReset = await resetFailedTrackers(prisma, where, now);
  }

  let deliveriesReset = 0;
  let deliveriesSkipped = 0;
  if (!byId || selection.deliveryIds !== undefined) {
    const where: Prisma.WebhookDeliveryWhereInput = {
      ...deliveryScope(selection),
      ...(selection.deliveryIds ? { id: { in: [...selection.deliveryIds] } } : {}),
    };
    if (selection.deliveryIds) {
      const found = new Set(await failedDeliveryIds(prisma, where));
      for (const id of selection.deliveryIds) if (!found.has(id)) notFailed.push(id);
    }
    // A delivery whose body was already emptied has nothing left to process: skipped, and counted.
    deliveriesSkipped = await countEmptiedDeliveries(prisma, where);
    deliveriesReset = await resetFailedDeliveries(prisma, where, now);
  }

  return { trackersReset, deliveriesReset, deliveriesSkipped, notFailed };
}
