import { nowOf } from '../lib/clock.js';
import { type ApiQueueWork } from '../db/lease-queue.js';
import { runQueuePass } from '../db/queue-pass.js';
import { storeEventQueue } from '../db/queues.js';
import type { StoreFulfillmentEvent } from '../generated/sqlite/client.js';
import { storeWrites } from '../observability/metrics.js';
import {
  finishStoreEvent,
  holdStoreEvents,
  leasedStoreEvents,
  markStoreEventSending,
  storeEventShops,
  waitingStoreEvents,
} from './queries/store-events.js';
import { afterStoreFailure } from './store-retry.js';

/**
 * Writes queued status changes (StoreFulfillmentEvent rows) to the store as fulfilment events, once each.
 *
 * The store's mutation has no idempotency key, so "once" rests on a write-ahead mark, as tracker creates
 * do: before the mutation is sent the row becomes `sending`; a row found `sending` later (a crash, a
 * timeout: the store may have written it) is first looked up among the fulfilment's events, and only sent
 * again when it is not there.
 */

export interface StoreEventInput {
  fulfillmentId: string;
  status: string;
  happenedAt: Date;
  message: string | null;
  city: string | null;
  province: string | null;
  country: string | null;
  zip: string | null;
  estimatedDeliveryAt: Date | null;
}

export type StoreCallResult<T> =
  | { ok: true; value: T }
  /**
   * retry: throttled, unreachable, 5xx (the outcome may be unknown); rejected: the store refused the input
   * (userErrors, unknown fulfilment); access: no offline session or a missing scope (reinstall needed).
   */
  | { ok: false; kind: 'retry' | 'rejected' | 'access'; message: string };

/** The store's side, as a port: src/shopify/fulfillment-events.ts implements it over Admin GraphQL. */
export interface StoreEventsApi {
  create(shopDomain: string, input: StoreEventInput): Promise<StoreCallResult<{ id: string }>>;
  /** Whether the fulfilment already has an event of this status at this time. */
  exists(shopDomain: string, input: StoreEventInput): Promise<StoreCallResult<boolean>>;
}

export interface PostStats {
  claimed: number;
  sent: number;
  alreadyThere: number;
  retried: number;
  failed: number;
  skipped: number;
  /** Left for a later pass: an older event of the same fulfilment is still waiting. */
  held: number;
}

export async function postStoreEvents(deps: ApiQueueWork<StoreEventsApi>, limit: number): Promise<PostStats> {
  const stats: PostStats = {
    claimed: 0,
    sent: 0,
    alreadyThere: 0,
    retried: 0,
    failed: 0,
    skipped: 0,
    held: 0,
  };
  // Every path of postClaimed writes its row with the lease cleared.
  return runQueuePass(deps, {
    queue: storeEventQueue,
    limit,
    now: nowOf(deps),
    none: stats,
    load: (ids, token) => leasedStoreEvents(deps.prisma, ids, token),
    act: (rows, leases) => postClaimed(deps, leases.token, rows, stats),
  });
}

async function postClaimed(
  deps: ApiQueueWork<StoreEventsApi>,
  token: string,
  rows: StoreFulfillmentEvent[],
  stats: PostStats,
): Promise<PostStats> {
  stats.claimed = rows.length;
  const shops = new Map(
    (await storeEventShops(deps.prisma, [...new Set(rows.map((r) => r.shopId))])).map((s) => [s.id, s]),
  );
  // A fulfilment's timeline is written in order: while an older event of it still waits (a retry later),
  // its newer ones wait too, or the store could show "delivered" before "picked up".
  const claimedIds = new Set(rows.map((r) => r.id));
  const waiting = await waitingStoreEvents(
    deps.prisma,
    [...new Set(rows.map((r) => r.fulfillmentId))],
    [...new Set(rows.map((r) => r.shopId))],
  );
  const now = nowOf(deps).getTime();
  const oldestWaiting = new Map<string, number>();
  /**
   * A fulfilment's newer events wait for its older one: until that one's next attempt (or the end of its
   * lease, while another worker sends it), at least `heldMs` from now. Given back due at once instead, they
   * would be claimed again and again while the older one waits out its backoff.
   */
  const heldUntil = new Map<string, number>();
  const holdUntil = (key: string, at: number) =>
    heldUntil.set(key, Math.max(heldUntil.get(key) ?? 0, at, now + heldMs));
  for (const w of waiting) {
    if (claimedIds.has(w.id)) continue;
    const key = `${w.shopId}/${w.fulfillmentId}`;
    oldestWaiting.set(key, Math.min(oldestWaiting.get(key) ?? Infinity, w.happenedAt.getTime()));
  }
  for (const w of waiting) {
    const key = `${w.shopId}/${w.fulfillmentId}`;
    if (claimedIds.has(w.id) || w.happenedAt.getTime() !== oldestWaiting.get(key)) continue;
    holdUntil(key, Math.max(w.nextAttemptAt.getTime(), w.leaseExpiresAt?.getTime() ?? 0));
  }
  const held = new Set<string>();
  const heldRows = new Map<string, string[]>();
  const noAccess = new Map<string, string>();
  // Stores are written one after another (their rate limits are per store).
  for (const row of rows) {
    const key = `${row.shopId}/${row.fulfillmentId}`;
    if (held.has(key) || (oldestWaiting.get(key) ?? Infinity) < row.happenedAt.getTime()) {
      held.add(key);
      const ofKey = heldRows.get(key) ?? [];
      ofKey.push(row.id);
      heldRows.set(key, ofKey);
      stats.held++;
      continue;
    }
    const shop = shops.get(row.shopId);
    if (!shop || !shop.postFulfillmentEvents || shop.uninstalledAt) {
      await finish(deps, token, row.id, {
        state: 'skipped',
        error:
          !shop || shop.uninstalledAt
            ? 'the app is not installed in this store'
            : 'writing to the store is turned off',
      });
      stats.skipped++;
      storeWrites.inc({ outcome: 'skipped' });
      continue;
    }
    // A store that refused access (no offline session, a missing scope) refuses every write: the
    // shop's other events of this pass wait as long without a call each.
    const refused = noAccess.get(row.shopId);
    if (refused) {
      const next = await failure(deps, token, row, { kind: 'access', message: refused }, stats);
      held.add(key);
      holdUntil(key, next?.getTime() ?? 0);
      continue;
    }
    const before = stats.retried;
    const failedAs = await postOne(deps, token, row, shop.domain, stats);
    if (failedAs?.kind === 'access') noAccess.set(row.shopId, failedAs.message);
    if (stats.retried > before) {
      held.add(key);
      holdUntil(key, failedAs?.nextAttemptAt?.getTime() ?? 0);
    }
  }
  // The held ones, a statement per fulfilment: their lease given back, due when the older one may go.
  for (const [key, heldIds] of heldRows) {
    await holdStoreEvents(deps.prisma, heldIds, token, new Date(heldUntil.get(key) ?? now + heldMs));
  }
  return stats;
}

/** The shortest wait of an event held behind an older one of its fulfilment. */
export const heldMs = 5_000;

/** Writes one event; answers the failure when the store's answer was one. */
async function postOne(
  deps: ApiQueueWork<StoreEventsApi>,
  token: string,
  row: StoreFulfillmentEvent,
  shopDomain: string,
  stats: PostStats,
): Promise<StoreFailed | null> {
  const input: StoreEventInput = {
    fulfillmentId: row.fulfillmentId,
    status: row.status,
    happenedAt: row.happenedAt,
    message: row.message,
    city: row.city,
    province: row.province,
    country: row.country,
    zip: row.zip,
    estimatedDeliveryAt: row.estimatedDeliveryAt,
  };
  if (row.state === 'sending') {
    const found = await deps.api.exists(shopDomain, input);
    if (!found.ok) {
      return { ...found, nextAttemptAt: await failure(deps, token, row, found, stats) };
    }
    if (found.value) {
      await finish(deps, token, row.id, { state: 'sent', error: null });
      stats.alreadyThere++;
      storeWrites.inc({ outcome: 'already_there' });
      return null;
    }
  }
  // Write-ahead: from here on the store may hold the event even if we never hear back.
  const count = await markStoreEventSending(deps.prisma, row.id, token);
  if (count !== 1) return null;
  const created = await deps.api.create(shopDomain, input);
  // Only an answer that may come after the store acted (retry: 5xx, dropped, throttled) leaves the row
  // `sending`. A refusal (no offline session: nothing was sent; access denied; rejected) proves the store
  // holds no such event, so the row goes back to `pending` and is not looked up before its next attempt.
  if (!created.ok) {
    const nextAttemptAt = await failure(
      deps,
      token,
      { ...row, state: created.kind === 'retry' ? 'sending' : 'pending' },
      created,
      stats,
    );
    return { ...created, nextAttemptAt };
  }
  await finish(deps, token, row.id, { state: 'sent', storeEventId: created.value.id, error: null });
  stats.sent++;
  storeWrites.inc({ outcome: 'sent' });
  return null;
}

/** A store's refusal, and when the event is tried again (null: given up). */
interface StoreFailed {
  kind: 'retry' | 'rejected' | 'access';
  message: string;
  nextAttemptAt: Date | null;
}

/** Records a failed attempt; answers when the event is tried again (null: given up). */
async function failure(
  deps: ApiQueueWork<StoreEventsApi>,
  token: string,
  row: StoreFulfillmentEvent,
  result: { kind: 'retry' | 'rejected' | 'access'; message: string },
  stats: PostStats,
): Promise<Date | null> {
  const attempts = row.attempts + 1;
  const now = nowOf(deps);
  const next = afterStoreFailure(result, attempts, now, deps.maxAttempts);
  if (next.giveUp) {
    await finish(deps, token, row.id, { state: 'failed', error: result.message.slice(0, 500), attempts });
    stats.failed++;
    storeWrites.inc({ outcome: 'failed' });
    deps.logger.warn(
      { storeEventId: row.id, reason: result.kind },
      'fulfilment event not written to the store',
    );
    return null;
  }
  // A row that was `sending` stays so: the next attempt looks before it writes.
  await finish(deps, token, row.id, {
    state: row.state === 'sending' ? 'sending' : 'pending',
    error: result.message.slice(0, 500),
    attempts,
    nextAttemptAt: next.nextAttemptAt,
  });
  stats.retried++;
  storeWrites.inc({ outcome: 'retry' });
  return next.nextAttemptAt;
}

async function finish(
  deps: ApiQueueWork<StoreEventsApi>,
  token: string,
  id: string,
  data: Partial<
    Pick<StoreFulfillmentEvent, 'state' | 'error' | 'attempts' | 'nextAttemptAt' | 'storeEventId'>
  >,
): Promise<void> {
  await finishStoreEvent(deps.prisma, token, id, data);
}
