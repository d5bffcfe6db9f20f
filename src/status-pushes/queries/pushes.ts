import type { DatabaseClient } from '../../db/client.js';
import { leaseGivenBack } from '../../db/lease-queue.js';
import type { Prisma, StatusPush } from '../../generated/sqlite/client.js';

/** The status pushes' reads and writes past their claim (src/status-pushes/apply.ts). */

/** The claimed pushes still leased to `token`, in the order they arrived. */
export function leasedPushes(
  prisma: DatabaseClient,
  ids: readonly string[],
  token: string,
): Promise<StatusPush[]> {
  return prisma.statusPush.findMany({
    where: { id: { in: [...ids] }, leaseOwner: token },
    orderBy: { receivedAt: 'asc' },
  });
}

/** The shop's wanted trackers of these numbers, with their shop and their active lines' fulfilments. */
export function wantedTrackersByNumber(prisma: DatabaseClient, shopId: string, numbers: string[]) {
  return prisma.tracker.findMany({
    where: { shopId, desired: 'active', trackingNumber: { in: numbers } },
    include: { shop: true, lines: { where: { active: true }, select: { fulfillmentId: true } } },
  });
}

/** Closes pushes still leased to `token` with their outcome; their bodies emptied. */
export async function closePushes(
  prisma: DatabaseClient,
  ids: string[],
  token: string,
  outcome: 'applied' | 'stale' | 'dropped',
): Promise<void> {
  await prisma.statusPush.updateMany({
    where: { id: { in: ids }, leaseOwner: token },
    data: {
      state: outcome,
      // When it was applied (not when the pass began): the push-to-stored latency is read from it.
      processedAt: new Date(),
      error: outcome === 'dropped' ? 'no wanted tracker of this shop has this number' : null,
      // Done with: the body has served its purpose (the dedupe key stays, for the duplicate window).
      payload: '',
      ...leaseGivenBack,
    },
  });
}

/** Writes a failed attempt's outcome (src/db/lease-queue.ts `failedAttempt`) on a push still held. */
export async function recordPushAttempt(
  prisma: DatabaseClient,
  id: string,
  token: string,
  data: Prisma.StatusPushUpdateManyMutationInput,
): Promise<void> {
  await prisma.statusPush.updateMany({ where: { id, leaseOwner: token }, data });
}
