import { z } from 'zod';
import { type ApiQueueWork } from '../db/lease-queue.js';
import { runQueuePass } from '../db/queue-pass.js';
import { flowEventQueue } from '../db/queues.js';
import type { FlowEvent } from '../generated/sqlite/client.js';
import { nowOf } from '../lib/clock.js';
import type { StoreCallResult } from '../shipments/post-store-events.js';
import { afterStoreFailure } from '../shipments/store-retry.js';
import { finishFlowEvent, leasedFlowEvents, triggersInUseOf } from './queries/flow-events.js';
import type { FlowTriggerApi } from '../shopify/flow-trigger-receive.js';

/**
 * Sends the queued Flow triggers (FlowEvent rows, src/flow/queue-flow-event.ts) to the stores with the Admin
 * API's `flowTriggerReceive`, oldest first, one store call after another. Failures follow the store-write
 * rule (src/shipments/store-retry.ts): a refusal (userErrors) fails the row with its reason, a passing
 * failure (5xx, throttled, unreachable) is tried again after the store-write backoff, no access waits the
 * longest step. A row whose shop uninstalled the app, or no longer has a workflow on its trigger, is skipped.
 *
 * The mutation has no idempotency key and nothing can be looked up afterwards, so a trigger whose answer is
 * lost (the store may have run the workflows) is sent again: at least once, like the platform's webhooks.
 */

export interface FlowSendStats {
  claimed: number;
  sent: number;
  skipped: number;
  retried: number;
  failed: number;
}

/** What a stored payload must be: the trigger's fields by key. */
const storedPayload = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

type Failure = Extract<StoreCallResult<void>, { ok: false }>;

export async function sendFlowEvents(
  deps: ApiQueueWork<FlowTriggerApi>,
  limit: number,
): Promise<FlowSendStats> {
  const stats: FlowSendStats = { claimed: 0, sent: 0, skipped: 0, retried: 0, failed: 0 };
  // Every path below writes its row with the lease given back.
  return runQueuePass(deps, {
    queue: flowEventQueue,
    limit,
    now: nowOf(deps),
    none: stats,
    load: (ids, token) => leasedFlowEvents(deps.prisma, ids, token),
    act: async (rows, leases) => {
      stats.claimed = rows.length;
      const inUse = await triggersInUseOf(deps.prisma, [...new Set(rows.map((r) => r.shopId))]);
      // A store that refused access refuses every call: its other rows of this pass wait as long, uncalled.
      const noAccess = new Map<string, Failure>();
      for (const row of rows) {
        const skip = row.shop.uninstalledAt
          ? 'the app is not installed in this store'
          : !inUse.has(`${row.shopId} ${row.handle}`)
            ? 'no enabled workflow uses this trigger any more'
            : null;
        if (skip) {
          await finish(deps, leases.token, row.id, { state: 'skipped', error: skip });
          stats.skipped++;
          continue;
        }
        const refused = noAccess.get(row.shopId);
        if (refused) {
          await failure(deps, leases.token, row, refused, stats);
          continue;
        }
        const payload = parsePayload(row.payload);
        const result: StoreCallResult<void> = payload
          ? await deps.api.receive(row.shop.domain, row.handle, payload)
          : { ok: false, kind: 'rejected', message: 'the stored payload is not a trigger payload' };
        if (result.ok) {
          await finish(deps, leases.token, row.id, { state: 'sent', error: null });
          stats.sent++;
          continue;
        }
        if (result.kind === 'access') noAccess.set(row.shopId, result);
        await failure(deps, leases.token, row, result, stats);
      }
      return stats;
    },
  });
}

function parsePayload(text: string): Record<string, string | number | boolean> | null {
  try {
    const parsed = storedPayload.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

async function failure(
  deps: ApiQueueWork<FlowTriggerApi>,
  token: string,
  row: FlowEvent,
  result: Failure,
  stats: FlowSendStats,
): Promise<void> {
  const attempts = row.attempts + 1;
  const error = result.message.slice(0, 500);
  const next = afterStoreFailure(result, attempts, nowOf(deps), deps.maxAttempts);
  if (next.giveUp) {
    await finish(deps, token, row.id, { state: 'failed', error, attempts });
    stats.failed++;
    deps.logger.warn(
      { flowEventId: row.id, handle: row.handle, reason: result.kind },
      'Flow trigger not sent to the store',
    );
    return;
  }
  await finish(deps, token, row.id, { state: 'pending', error, attempts, nextAttemptAt: next.nextAttemptAt });
  stats.retried++;
}

async function finish(
  deps: ApiQueueWork<FlowTriggerApi>,
  token: string,
  id: string,
  data: Partial<Pick<FlowEvent, 'state' | 'error' | 'attempts' | 'nextAttemptAt'>>,
): Promise<void> {
  await finishFlowEvent(deps.prisma, token, id, data);
}
