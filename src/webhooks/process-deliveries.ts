import type { CarrierRepository } from '../carriers/carrier-repository.js';
import { failedAttempt, type LeaseHolder, type QueueWork } from '../db/lease-queue.js';
import { runQueuePass } from '../db/queue-pass.js';
import { deliveryQueue } from '../db/queues.js';
import { inTransaction } from '../db/transaction.js';
import type { WebhookDelivery } from '../generated/sqlite/client.js';
import { safeReason } from '../errors/safe-reason.js';
import type { FulfillmentConfirmer } from '../shopify/confirm-fulfillments.js';
import { admitDeliveries } from './admit-deliveries.js';
import { yieldToEventLoop } from '../lib/yield-to-event-loop.js';
import { applyInBulk } from './apply-in-bulk.js';
import { leasedDeliveries, markDeliveriesDone, recordDeliveryAttempt } from './queries/deliveries.js';
import { backoffPolicies, type BackoffPolicy } from '../lib/backoff.js';
import { applyDelivery, prepareDelivery } from './topics/index.js';
import type { TopicResult } from './topics/types.js';

export interface DeliveryProcessorDeps extends QueueWork {
  carriers: CarrierRepository;
  /** Asks a store which fulfilments it holds (src/webhooks/admit-deliveries.ts). */
  confirmFulfillments: FulfillmentConfirmer;
  backoff?: BackoffPolicy;
  /** Apply first-seen fulfilments of a batch set-wise (default true); false: always one at a time. */
  bulk?: boolean;
}

export interface DeliveryStats {
  claimed: number;
  applied: number;
  ignored: number;
  rejected: number;
  errored: number;
}

/**
 * Turns recorded deliveries into desired state: each in its own transaction with the use case of its
 * topic, marked processed in that same transaction, so a crash leaves it pending (and re-applying is
 * harmless: every use case is idempotent). A body that cannot be used is marked failed with the reason; an
 * unexpected error is retried with backoff, then marked failed.
 */
export function processDeliveries(deps: DeliveryProcessorDeps, limit: number): Promise<DeliveryStats> {
  const stats: DeliveryStats = { claimed: 0, applied: 0, ignored: 0, rejected: 0, errored: 0 };
  return runQueuePass(deps, {
    queue: deliveryQueue,
    limit,
    none: stats,
    load: (ids, token) => leasedDeliveries(deps.prisma, ids, token),
    // Each delivery is forgotten once written: the bulk path and the one-by-one path at different times.
    forgetsItself: true,
    act: (claimed, leases) => processClaimed(deps, leases, claimed, stats),
  });
}

async function processClaimed(
  deps: DeliveryProcessorDeps,
  leases: LeaseHolder,
  claimed: WebhookDelivery[],
  stats: DeliveryStats,
): Promise<DeliveryStats> {
  const { token } = leases;
  stats.claimed = claimed.length;
  // Shops that have not installed the app, and fulfilments their store does not hold, stop here.
  const { admitted, refused, deferred, checks } = await admitDeliveries(
    deps,
    deps.confirmFulfillments,
    token,
    claimed,
  );
  stats.rejected += refused;
  for (const { delivery, message } of deferred) {
    await retryLater(deps, token, delivery, message);
    stats.errored++;
  }
  leases.forget(claimed.filter((d) => !admitted.includes(d)).map((d) => d.id));
  const done = deps.bulk === false ? new Set<string>() : await applyInBulk(deps, token, admitted, checks);
  leases.forget(done);
  stats.applied += done.size;
  for (const delivery of admitted) {
    if (done.has(delivery.id)) continue;
    const kind = await processOne(deps, token, delivery);
    leases.forget([delivery.id]);
    stats[kind]++;
    await yieldToEventLoop();
  }
  return stats;
}

async function processOne(
  deps: DeliveryProcessorDeps,
  token: string,
  delivery: WebhookDelivery,
): Promise<'applied' | 'ignored' | 'rejected' | 'errored'> {
  const log = deps.logger.child({
    deliveryId: delivery.id,
    topic: delivery.topic,
    shop: delivery.shopDomain,
  });
  try {
    const matcher = await deps.carriers.matcher();
    let payload: unknown;
    try {
      payload = JSON.parse(delivery.payload);
    } catch {
      payload = undefined;
    }
    // A use case's bulk too large for one transaction, in short ones of its own first (idempotent).
    const prepared =
      payload === undefined ? undefined : await prepareDelivery(deps.prisma, delivery, payload);
    const result = await inTransaction(deps.prisma, async (tx) => {
      const outcome: TopicResult =
        payload === undefined
          ? { kind: 'rejected', detail: 'stored body is not JSON' }
          : await applyDelivery(
              { tx, shopDomain: delivery.shopDomain, matcher, prepared },
              delivery.topic,
              payload,
            );
      const count = await markDeliveriesDone(tx, token, [delivery.id], outcome);
      if (count !== 1) throw new LeaseLostError();
      return outcome;
    });
    log.debug({ outcome: result.kind, detail: result.detail }, 'delivery processed');
    return result.kind;
  } catch (error) {
    if (error instanceof LeaseLostError) {
      log.warn('delivery lease lost; another process has it');
      return 'errored';
    }
    // Stored and shown on the page: one clear line, never a stack, a source path or a code excerpt.
    await retryLater(deps, token, delivery, safeReason(error));
    return 'errored';
  }
}

class LeaseLostError extends Error {}

/** A delivery that could not be applied now: tried again with backoff, or failed after the last attempt. */
async function retryLater(
  deps: DeliveryProcessorDeps,
  token: string,
  delivery: WebhookDelivery,
  message: string,
): Promise<void> {
  const { giveUp, data } = failedAttempt(delivery, message, deps.backoff ?? backoffPolicies.delivery);
  deps.logger.error(
    {
      deliveryId: delivery.id,
      topic: delivery.topic,
      shop: delivery.shopDomain,
      err: message,
      attempts: data.attempts,
    },
    giveUp ? 'delivery failed for good' : 'delivery failed; will retry',
  );
  await recordDeliveryAttempt(deps.prisma, delivery.id, token, data);
}
