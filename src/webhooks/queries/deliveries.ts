import type { DatabaseClient, Tx } from '../../db/client.js';
import { leaseGivenBack } from '../../db/lease-queue.js';
import type { Prisma, WebhookDelivery } from '../../generated/sqlite/client.js';
import type { TopicResult } from '../topics/types.js';

/** The webhook deliveries' reads and writes past their claim (src/db/lease-queue.ts claims them). */

/**
 * Marks deliveries held under `token` done with their outcome, in the caller's transaction (the one that
 * applied them): processed (body emptied: a processed body has served its purpose, and keeping names and
 * addresses would only be a liability) or failed (body kept, with the reason). Returns how many were
 * still held; fewer than asked means a lease was lost and the caller must undo.
 */
export async function markDeliveriesDone(
  tx: Tx,
  token: string,
  ids: readonly string[],
  outcome: { kind: TopicResult['kind']; detail?: string },
): Promise<number> {
  const { count } = await tx.webhookDelivery.updateMany({
    where: { id: { in: [...ids] }, leaseOwner: token },
    data: {
      state: outcome.kind === 'rejected' ? 'failed' : 'processed',
      processedAt: new Date(),
      error: outcome.kind === 'applied' ? null : (outcome.detail ?? null),
      ...(outcome.kind === 'rejected' ? {} : { payload: '' }),
      attempts: { increment: 1 },
      ...leaseGivenBack,
    },
  });
  return count;
}

/** The claimed deliveries still leased to `token`, in the order they arrived. */
export function leasedDeliveries(
  prisma: DatabaseClient,
  ids: string[],
  token: string,
): Promise<WebhookDelivery[]> {
  return prisma.webhookDelivery.findMany({
    where: { id: { in: ids }, leaseOwner: token },
    orderBy: { receivedAt: 'asc' },
  });
}

/** Writes a failed attempt's outcome (src/db/lease-queue.ts `failedAttempt`) on a delivery still held. */
export async function recordDeliveryAttempt(
  prisma: DatabaseClient,
  id: string,
  token: string,
  data: Prisma.WebhookDeliveryUpdateManyMutationInput,
): Promise<void> {
  await prisma.webhookDelivery.updateMany({ where: { id, leaseOwner: token }, data });
}

/** Of the named fulfilments of each shop (shop id → fulfilment ids), those the app holds. */
export function heldFulfillments(
  prisma: DatabaseClient,
  byShop: ReadonlyMap<string, string[]>,
): Promise<Array<{ shopId: string; fulfillmentId: string }>> {
  return prisma.fulfillment.findMany({
    where: { OR: [...byShop].map(([shopId, ids]) => ({ shopId, fulfillmentId: { in: ids } })) },
    select: { shopId: true, fulfillmentId: true },
  });
}
