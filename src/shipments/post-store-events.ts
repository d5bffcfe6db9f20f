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
  recentStoreWrites,
  storeEventShops,
  supersedeStoreEvents,
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
 *
 * Bounded per fulfilment, whoever floods it (a push URL and key in the wrong hands, a carrier feed that
 * flaps): at most `storeWritesPerWindow` writes begin per fulfilment within `storeWriteWindowMs` (counted
 * by `sentAt`). Under the budget every change is written, in order, as before: a real parcel's few changes
 * all reach the order's timeline. When a pass holds more of a fulfilment's pending events than its budget
 * has left, the latest status wins: only its newest pending event stays, the older pending ones are marked
 * `superseded` (counted: the pass's stats and `tracksync_store_writes_total{outcome="superseded"}`), and the
 * newest is written at once if a write is left, else when the window's oldest write leaves it. So 2 000
 * pushes for one parcel within a window cost its budget and one write more, the last the latest status.
 */

/** A fulfilment's writes per window: a full lifecycle with delays and failed attempts (about 8), and room. */
export const storeWritesPerWindow = 12;
/** The window of a fulfilment's write budget. */
export const storeWriteWindowMs = 60 * 60_000;

const supersededReason = `not written: a newer status of this fulfilment replaced it (more than ${storeWritesPerWindow} updates within an hour)`;

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
  /**
   * Left for a later pass: an older event of the same fulfilment is still waiting, or the fulfilment's
   * writes of the window are spent.
   */
  held: number;
  /** Never written: a newer pending status of the same fulfilment replaced it while its budget was spent. */
  superseded: number;
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
    superseded: 0,
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
  claimedRows: StoreFulfillmentEvent[],
  stats: PostStats,
): Promise<PostStats> {
  stats.claimed = claimedRows.length;
  const shopIds = [...new Set(claimedRows.map((r) => r.shopId))];
  const fulfillmentIds = [...new Set(claimedRows.map((r) => r.fulfillmentId))];
  const shops = new Map((await storeEventShops(deps.prisma, shopIds)).map((s) => [s.id, s]));
  // A fulfilment's timeline is written in order: while an older event of it still waits (a retry later),
  // its newer ones wait too, or the store could show "delivered" before "picked up".
  const claimedIds = new Set(claimedRows.map((r) => r.id));
  const allWaiting = await waitingStoreEvents(deps.prisma, fulfillmentIds, shopIds);
  const nowDate = nowOf(deps);
  const now = nowDate.getTime();
  // The fulfilments' budgets: where the pass holds more pending events than writes are left, the latest
  // status wins (the others superseded), written now or when a write is free again.
  const { superseded, spentUntil } = await applyBudgets(deps, token, claimedRows, allWaiting, nowDate, stats);
  const rows = claimedRows.filter((r) => !superseded.has(r.id));
  const waiting = allWaiting.filter((w) => !superseded.has(w.id));
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
  for (const [key, until] of spentUntil) holdUntil(key, until);
  for (const row of rows) {
    const key = `${row.shopId}/${row.fulfillmentId}`;
    const spent = spentUntil.has(key) && row.state === 'pending';
    if (spent || held.has(key) || (oldestWaiting.get(key) ?? Infinity) < row.happenedAt.getTime()) {
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

type WaitingEvent = Awaited<ReturnType<typeof waitingStoreEvents>>[number];

/** A fulfilment's events in the order they are written: oldest first, then by status (the queue's order). */
const writeOrder = (a: { happenedAt: Date; status: string }, b: { happenedAt: Date; status: string }) =>
  a.happenedAt.getTime() - b.happenedAt.getTime() || (a.status < b.status ? -1 : a.status > b.status ? 1 : 0);

/**
 * The write budget of each fulfilment of the pass (see the module's comment). Where the claimed pending
 * events of a fulfilment are more than the writes it has left, only its newest pending event (claimed, or
 * waiting unleased) stays; the others are marked superseded. Answers the ids superseded and, per
 * fulfilment whose budget is spent, when a write is free again (its newest event is held until then).
 */
async function applyBudgets(
  deps: ApiQueueWork<StoreEventsApi>,
  token: string,
  rows: StoreFulfillmentEvent[],
  waiting: WaitingEvent[],
  now: Date,
  stats: PostStats,
): Promise<{ superseded: Set<string>; spentUntil: Map<string, number> }> {
  const superseded = new Set<string>();
  const spentUntil = new Map<string, number>();
  const keyOf = (r: { shopId: string; fulfillmentId: string }) => `${r.shopId}/${r.fulfillmentId}`;
  const pendingClaimed = new Map<string, StoreFulfillmentEvent[]>();
  for (const row of rows) {
    if (row.state !== 'pending') continue;
    pendingClaimed.set(keyOf(row), [...(pendingClaimed.get(keyOf(row)) ?? []), row]);
  }
  if (pendingClaimed.size === 0) return { superseded, spentUntil };
  const windowStart = new Date(now.getTime() - storeWriteWindowMs);
  const recent = await recentStoreWrites(
    deps.prisma,
    [...new Set(rows.map((r) => r.fulfillmentId))],
    [...new Set(rows.map((r) => r.shopId))],
    windowStart,
  );
  const used = new Map(recent.map((r) => [keyOf(r), r]));
  const claimedIds = new Set(rows.map((r) => r.id));
  const toSupersede: string[] = [];
  for (const [key, claimed] of pendingClaimed) {
    const spent = used.get(key);
    const left = storeWritesPerWindow - (spent?.count ?? 0);
    if (claimed.length <= left) continue;
    // Over the budget: the latest status wins. Its pending events, claimed or waiting unleased (another
    // worker's are left to it), newest last.
    const candidates = [
      ...claimed,
      ...waiting.filter(
        (w) => keyOf(w) === key && !claimedIds.has(w.id) && w.state === 'pending' && w.leaseOwner === null,
      ),
    ].sort(writeOrder);
    const newest = candidates.at(-1)!;
    toSupersede.push(...candidates.slice(0, -1).map((c) => c.id));
    if (left <= 0 && claimedIds.has(newest.id))
      spentUntil.set(key, (spent?.oldest.getTime() ?? now.getTime()) + storeWriteWindowMs);
  }
  const marked = await supersedeStoreEvents(deps.prisma, toSupersede, token, supersededReason);
  marked.forEach((id) => superseded.add(id));
  const count = marked.length;
  if (count > 0) {
    stats.superseded += count;
    storeWrites.inc({ outcome: 'superseded' }, count);
    deps.logger.info(
      { superseded: count, fulfilments: [...pendingClaimed.keys()].filter((k) => spentUntil.has(k)).length },
      'store updates superseded: a fulfilment’s writes of the window are spent, its latest status wins',
    );
  }
  return { superseded, spentUntil };
}

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
  const count = await markStoreEventSending(deps.prisma, row.id, token, nowOf(deps));
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
