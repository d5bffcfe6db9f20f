import { leaseGivenBack } from '../db/lease-queue.js';
import type { Tx } from '../db/client.js';
import type { TopicResult } from './topics/types.js';

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
