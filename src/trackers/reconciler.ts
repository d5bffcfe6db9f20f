import { leaseGivenBack, type LeaseHolder, type QueueWork, withPassLeases } from '../db/lease-queue.js';
import { claimRows } from '../db/queue-pass.js';
import { trackerQueue } from '../db/queues.js';
import { updateRows } from '../db/update-rows.js';
import type { Shop, Tracker } from '../generated/sqlite/client.js';
import { SecretUnreadableError } from '../shops/crypto.js';
import { explainShopPause, keyUnreadableMessage } from '../shops/pause-reasons.js';
import type { RecordedAccount, ShopCredentials, ShopRepository } from '../shops/shop-repository.js';
import type { TrackingClient } from '../tracking/client.js';
import type { TrackingError } from '../tracking/types.js';
import { inSync } from './desired-state.js';
import { backoffDelayMs, backoffPolicies, type BackoffPolicy } from '../lib/backoff.js';
import { type Classified, classify } from './outcome.js';
import { createRateGate, type RateGate } from './rate-gate.js';
import {
  leasedTrackersWithShop,
  stillLeasedTrackerIds,
  trackerRow,
  trackerSyncState,
  writeLeasedTracker,
} from './queries/reconciler.js';
import { setPausedShopsProbeAt } from '../shops/shop-repository.js';
import { defaultPollPolicy } from '../shipments/status.js';

/**
 * The reconciler: takes trackers whose desired and known remote states differ and whose next attempt is
 * due, leases them, calls the service, and records what happened.
 *
 * Exactly-once creates rest on three things: one tracker row per (shop, number, provider); a lease per
 * row, with every outcome written only by the lease holder (and only if the row did not change under it);
 * and a write-ahead mark: before a create is sent the row's remote state becomes `unknown`, so a process
 * that dies after the service answered but before it recorded the answer leaves a row that the next
 * holder resolves with a `get` before it would ever create again. Leases are short (seconds) and renewed
 * by a heartbeat while their holder works (src/db/lease-queue.ts), so a slow call never has its row taken
 * from under it, and a dead process's rows are taken over within one lease; a holder whose heartbeat
 * stalled does not start a call on a row it may no longer hold.
 */

export interface ReconcilerDeps extends QueueWork {
  client: TrackingClient;
  shops: ShopRepository;
  /** Called once a shop's balance, as a create reported it, is stored (the worker's balance warning). */
  onAccount?: (shopId: string, account: RecordedAccount) => Promise<unknown>;
  /** Shared by the worker's service calls; without it, one per pass. */
  rateGate?: RateGate;
  backoff?: BackoffPolicy;
  /** How long a paused shop waits before one of its trackers is tried again to see if the cause is gone. */
  probeIntervalMs?: number;
  /** When a tracker's status is first read after it is created at the service (default 15 min). */
  firstPollMs?: number;
}

export interface ReconcileStats {
  claimed: number;
  created: number;
  deleted: number;
  alreadyPresent: number;
  retried: number;
  failed: number;
  dead: number;
  shopPaused: number;
  leaseLost: number;
  released: number;
}

type ClaimedTracker = Tracker & { shop: Shop };

export function emptyStats(): ReconcileStats {
  return {
    claimed: 0,
    created: 0,
    deleted: 0,
    alreadyPresent: 0,
    retried: 0,
    failed: 0,
    dead: 0,
    shopPaused: 0,
    leaseLost: 0,
    released: 0,
  };
}

/** Leases up to `limit` due trackers to `leases`; a paused shop whose probe is due gets one tried. */
export async function claimTrackers(
  deps: ReconcilerDeps,
  limit: number,
  leases: LeaseHolder,
): Promise<{ token: string; trackers: ClaimedTracker[] }> {
  const { token } = leases;
  const leased = await claimRows(leases, {
    limit,
    ...(deps.now ? { now: deps.now() } : {}),
    load: (ids) => leasedTrackersWithShop(deps.prisma, ids, token),
  });
  if (leased.length === 0) return { token, trackers: [] };
  const trackers = onePerPausedShop(leased);
  const probed = [...new Set(trackers.filter((t) => t.shop.pausedAt).map((t) => t.shopId))];
  if (probed.length > 0) {
    // A probe taken: no other claim (this process's next one, or another's) probes the shop meanwhile.
    // Its outcome resumes the shop or sets the next probe; a probe lost with its process runs then.
    await setPausedShopsProbeAt(
      deps.prisma,
      probed,
      new Date((deps.now?.() ?? new Date()).getTime() + probeIntervalMs(deps)),
    );
  }
  if (trackers.length < leased.length) {
    // Leased but not tried in this pass (a paused shop's probe tries one): give them straight back, or
    // they would sit leased for the whole lease even after the probe lifts the pause.
    const kept = new Set(trackers.map((t) => t.id));
    await leases.release(leased.filter((t) => !kept.has(t.id)).map((t) => t.id));
  }
  return { token, trackers };
}

/** A paused shop whose probe is due gets one tracker tried, not a whole batch. */
function onePerPausedShop(trackers: ClaimedTracker[]): ClaimedTracker[] {
  const probed = new Set<string>();
  return trackers.filter((t) => {
    if (!t.shop.pausedAt) return true;
    if (probed.has(t.shopId)) return false;
    probed.add(t.shopId);
    return true;
  });
}

/**
 * One pass: keeps up to `concurrency` service calls in flight for as long as trackers are due (claiming more
 * as calls finish, never waiting for a whole batch), up to `limit` trackers in all. Successes are written
 * in groups as they gather. When `shouldStop()` turns true, trackers not yet started are given back.
 */
export function reconcileOnce(deps: ReconcilerDeps, options: PassOptions): Promise<ReconcileStats> {
  return withPassLeases(deps, trackerQueue, (leases) => reconcilePass(deps, leases, options));
}

interface PassOptions {
  limit: number;
  concurrency: number;
  shouldStop?: () => boolean;
}

/** What one reconcile pass shares between its slots: its hold on the queue, its counts, what it has learnt. */
interface Pass {
  readonly deps: ReconcilerDeps;
  readonly leases: LeaseHolder;
  readonly stats: ReconcileStats;
  /** The service, as the pass's rate gate sees it. */
  readonly client: ServiceCalls;
  /** Shops paused during this pass: their other trackers are given back untouched. */
  readonly pausedNow: Set<string>;
  /** Trackers whose create this pass has not sent: no need to look before creating. */
  readonly knownAbsent: Set<string>;
  /** The outcomes being gathered (a flush swaps in a new batch; a call that returns adds to the current one). */
  batch: OutcomeBatch;
}

async function reconcilePass(
  deps: ReconcilerDeps,
  leases: LeaseHolder,
  options: PassOptions,
): Promise<ReconcileStats> {
  const gate = deps.rateGate ?? createRateGate(options.concurrency);
  const pass: Pass = {
    deps,
    leases,
    stats: emptyStats(),
    client: rateAware(deps.client, gate),
    pausedNow: new Set(),
    knownAbsent: new Set(),
    batch: newBatch(),
  };
  const { stats, knownAbsent, pausedNow } = pass;
  const { token } = leases;
  const ready: ClaimedTracker[] = [];
  let exhausted = false;
  let claiming: Promise<void> | null = null;
  let flushing: Promise<void> = Promise.resolve();
  const credentials = new Map<string, Promise<ShopCredentials | null>>();
  const unreadable = new Set<string>();
  const flushEvery = Math.max(32, options.concurrency * 2);

  const claimMore = async () => {
    const room = Math.min(options.limit - stats.claimed, Math.max(options.concurrency * 2, 16));
    if (room <= 0) {
      exhausted = true;
      return;
    }
    const { trackers } = await claimTrackers(deps, room, leases);
    if (trackers.length === 0) {
      exhausted = true;
      return;
    }
    stats.claimed += trackers.length;
    // Write-ahead: from here on, a create for these rows may be in flight.
    const toCreate = trackers.filter((t) => t.desired === 'active' && t.remote === 'absent');
    if (toCreate.length > 0) {
      await updateRows(deps.prisma, 'Tracker', {
        ids: toCreate.map((t) => t.id),
        where: { leaseOwner: token },
        set: { remote: 'unknown' },
        increment: { version: 1 },
      });
    }
    // Per claim: a row tried earlier in this pass may be back (a short backoff) and must look first now.
    for (const t of trackers) knownAbsent.delete(t.id);
    for (const t of toCreate) knownAbsent.add(t.id);
    ready.push(...trackers);
  };

  const claim = () =>
    (claiming ??= claimMore().finally(() => {
      claiming = null;
    }));

  const nextTracker = async (): Promise<ClaimedTracker | undefined> => {
    for (;;) {
      const tracker = ready.shift();
      if (tracker) {
        // Claim ahead while calls are out, so a slot that frees up finds work waiting.
        if (ready.length < options.concurrency && !exhausted) void claim().catch(() => {});
        return tracker;
      }
      if (exhausted) return undefined;
      await claim();
    }
  };

  /** Writes the gathered outcomes behind the calls (a slot does not wait for it); in order, one at a time. */
  let flushError: unknown = null;
  const flush = (): Promise<void> => {
    const full = pass.batch;
    pass.batch = newBatch();
    flushing = flushing
      .then(() => flushBatch(pass, full))
      .catch((error: unknown) => {
        // The rows stay leased with their write-ahead mark: their next holder looks before it acts.
        flushError ??= error;
      });
    return flushing;
  };

  const run = async (slot: number) => {
    for (;;) {
      if (!(await gate.wait(slot))) return;
      // Stopping: what is claimed and not started is given back when the pass ends (below).
      if (options.shouldStop?.()) return;
      const tracker = await nextTracker();
      if (!tracker) return;
      if (pausedNow.has(tracker.shopId)) {
        await release(pass, tracker.id);
        stats.released++;
        continue;
      }
      if (!credentials.has(tracker.shopId)) {
        const shopId = tracker.shopId;
        const read = deps.shops.credentials(tracker.shop).catch((error: unknown) => {
          // Sealed under a key id no longer in ENCRYPTION_KEY: this shop must connect again, others go on.
          if (!(error instanceof SecretUnreadableError)) throw error;
          unreadable.add(shopId);
          return null;
        });
        credentials.set(shopId, read);
      }
      const creds = await credentials.get(tracker.shopId)!;
      if (!creds) {
        await deps.shops.pause(
          tracker.shopId,
          'not_connected',
          unreadable.has(tracker.shopId) ? keyUnreadableMessage : explainShopPause('not_connected'),
          null,
        );
        pausedNow.add(tracker.shopId);
        await release(pass, tracker.id);
        stats.released++;
        continue;
      }
      if (!leases.holds(tracker.id)) {
        // The heartbeat could not keep the lease (a stalled process): another may hold the row by now.
        leases.forget([tracker.id]);
        stats.leaseLost++;
        continue;
      }
      await syncOne(pass, tracker, creds);
      if (pass.batch.size >= flushEvery) void flush();
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, (_, slot) => run(slot)));
  } finally {
    // A claim made ahead may still be out: its rows are given back with the rest not started.
    await (claiming as Promise<void> | null)?.catch(() => {});
    // Claimed but not started (stopping, or the gate closed every slot): given back at once.
    for (const tracker of ready.splice(0)) {
      await release(pass, tracker.id);
      stats.released++;
    }
    await flush();
  }
  if (flushError) throw flushError;
  return stats;
}

/**
 * Successes of one pass, written together when the pass ends: one statement per kind of outcome instead
 * of a read and a write per tracker, and the shop's balance once per shop instead of once per create.
 * Until then the rows stay leased with their write-ahead mark, so a crash before the flush costs a `get`,
 * never a second create.
 */
interface OutcomeBatch {
  created: ClaimedTracker[];
  present: ClaimedTracker[];
  deleted: ClaimedTracker[];
  accounts: Map<string, { trackersBalance: number | null; userPlan: string | null }>;
  readonly size: number;
}

function newBatch(): OutcomeBatch {
  return {
    created: [],
    present: [],
    deleted: [],
    accounts: new Map(),
    get size() {
      return this.created.length + this.present.length + this.deleted.length;
    },
  };
}

/** The client, telling the gate how each call went (a 429 the client gave up on slows the worker down). */
type ServiceCalls = Pick<TrackingClient, 'getShipment' | 'createTracker' | 'deleteTracker'>;

function rateAware(client: TrackingClient, gate: RateGate): ServiceCalls {
  const seen = <T extends { ok: boolean; error?: TrackingError }>(result: T): T => {
    if (result.ok) gate.success();
    else if (result.error?.reason === 'rate_limited')
      gate.rateLimited(result.error.kind === 'http' ? result.error.retryAfterMs : null);
    return result;
  };
  return {
    getShipment: async (...args) => seen(await client.getShipment(...args)),
    createTracker: async (...args) => seen(await client.createTracker(...args)),
    deleteTracker: async (...args) => seen(await client.deleteTracker(...args)),
  };
}

async function flushBatch(pass: Pass, batch: OutcomeBatch): Promise<void> {
  const { deps, leases, stats } = pass;
  // The balance first: whoever sees a tracker synced also sees the balance its create reported.
  for (const [shopId, account] of batch.accounts) {
    const recorded = await deps.shops.recordAccount(shopId, account);
    if (recorded) await deps.onAccount?.(shopId, recorded);
  }
  const kinds = [
    { rows: batch.created, desired: 'active', remote: 'present', createCall: true },
    { rows: batch.present, desired: 'active', remote: 'present', createCall: false },
    { rows: batch.deleted, desired: 'removed', remote: 'absent', createCall: false },
  ] as const;
  for (const kind of kinds) {
    if (kind.rows.length === 0) continue;
    const ids = kind.rows.map((t) => t.id);
    const now = new Date();
    // Only rows still leased by this pass and still wanting what was done: those are now in sync.
    const written = await updateRows(deps.prisma, 'Tracker', {
      ids,
      where: { leaseOwner: leases.token, desired: kind.desired },
      set: {
        remote: kind.remote,
        syncState: 'synced',
        attempts: 0,
        nextAttemptAt: now,
        lastError: null,
        lastErrorReason: null,
        lastErrorAt: null,
        syncedAt: now,
        // At the service: its status is read from now on; gone: never again.
        nextPollAt: nextPollAfterSync(deps, { remote: 'unknown', nextPollAt: null }, kind.remote, now),
        // At the service or gone: its problems are looked at again (src/shipments/problem-sweep.ts).
        problemCheckAt: now,
        ...leaseGivenBack,
      },
      increment: { version: 1, ...(kind.createCall ? { createCalls: 1 } : {}) },
    });
    const count = written.length;
    if (count === ids.length) {
      leases.forget(ids);
      logOutcomes(
        deps,
        kind.rows,
        kind.createCall
          ? 'tracker created'
          : kind.remote === 'present'
            ? 'tracker found at the service'
            : 'tracker deleted',
      );
      continue;
    }
    // A store event changed what some of them want while the call was out: the per-row path works out
    // their state from the row as it is now (a lost lease is counted there).
    const stillLeased = await stillLeasedTrackerIds(deps.prisma, ids, leases.token);
    for (const tracker of kind.rows) {
      if (stillLeased.has(tracker.id)) {
        await record(pass, tracker, { remote: kind.remote, createCall: kind.createCall });
      }
    }
    leases.forget(ids);
    const lost = ids.length - count - stillLeased.size;
    if (lost > 0) {
      stats.leaseLost += lost;
      deps.logger.warn(
        { count: lost },
        'leases lost before outcomes were recorded; the next holders will look first',
      );
    }
  }
}

async function syncOne(pass: Pass, tracker: ClaimedTracker, creds: ShopCredentials): Promise<void> {
  const { deps, stats, client } = pass;
  const key = {
    trackingNumber: tracker.trackingNumber,
    trackingProvider: tracker.provider,
    orderId: tracker.orderKey,
  };

  if (tracker.desired === 'active') {
    let absent = pass.knownAbsent.has(tracker.id);
    if (!absent && tracker.remote === 'unknown') {
      // An earlier create may have reached the service: look before creating again.
      const found = await client.getShipment(creds, {
        trackingNumber: key.trackingNumber,
        trackingProvider: key.trackingProvider,
      });
      if (found.ok) {
        stats.alreadyPresent++;
        pass.batch.present.push(tracker);
        await afterSuccess(deps, tracker);
        return;
      }
      if (!isNotFound(found.error)) {
        await recordFailure(pass, tracker, { classified: classify(found.error), remoteAfter: 'unknown' });
        return;
      }
      absent = true;
    }
    if (!absent) {
      await record(pass, tracker, { remote: tracker.remote });
      return;
    }
    const created = await client.createTracker(creds, {
      ...key,
      postalCode: tracker.postalCode,
      destinationCountry: tracker.destinationCountry,
    });
    if (created.ok) {
      stats.created++;
      pass.batch.created.push(tracker);
      pass.batch.accounts.set(tracker.shopId, created.value);
      await afterSuccess(deps, tracker);
      return;
    }
    if (created.error.kind === 'application' && created.error.account) {
      pass.batch.accounts.set(tracker.shopId, created.error.account);
    }
    const remoteAfter = created.outcomeUnknown ? 'unknown' : 'absent';
    await recordFailure(pass, tracker, { classified: classify(created.error), remoteAfter, wasCreate: true });
    return;
  }

  // desired removed, remote present or unknown
  const deleted = await client.deleteTracker(creds, key);
  if (deleted.ok || isNotFound(deleted.error)) {
    stats.deleted++;
    pass.batch.deleted.push(tracker);
    await afterSuccess(deps, tracker);
    return;
  }
  await recordFailure(pass, tracker, { classified: classify(deleted.error), remoteAfter: tracker.remote });
}

/**
 * "Not there" answers: unknown tracking number (HTTP 200 error or 400), or, on delete, a tracker held under
 * another order id (not this app's to delete).
 */
function isNotFound(error: TrackingError): boolean {
  return (
    error.reason === 'tracking_not_found' ||
    (error.operation === 'delete' && error.reason === 'order_not_found')
  );
}

async function afterSuccess(deps: ReconcilerDeps, tracker: ClaimedTracker): Promise<void> {
  if (!tracker.shop.pausedAt) return;
  await deps.shops.resumeAfterProbe(tracker.shopId);
  deps.logger.info(
    { shop: tracker.shop.domain, was: tracker.shop.pausedReason },
    'shop resumed: its probe went through',
  );
}

/** One info line per tracker whose state changed (ids and the shop only: no key, no customer data). */
function logOutcomes(deps: ReconcilerDeps, rows: readonly ClaimedTracker[], message: string): void {
  for (const t of rows)
    deps.logger.info({ trackerId: t.id, shop: t.shop.domain, provider: t.provider }, message);
}

/**
 * Writes an outcome if this process still holds the lease, deriving the sync state from the row's
 * current desired state (which a store event may have changed meanwhile). Optimistic on `version`.
 */
async function finish(
  { deps, leases }: Pass,
  trackerId: string,
  compute: (row: Tracker) => Partial<Omit<Tracker, 'id' | 'version'>> & { createCallsIncrement?: number },
): Promise<'written' | 'lease-lost'> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const row = await trackerRow(deps.prisma, trackerId);
    if (!row || row.leaseOwner !== leases.token) {
      leases.forget([trackerId]);
      return 'lease-lost';
    }
    const { createCallsIncrement, ...data } = compute(row);
    const count = await writeLeasedTracker(
      deps.prisma,
      trackerId,
      leases.token,
      row.version,
      data,
      createCallsIncrement,
    );
    if (count === 1) {
      leases.forget([trackerId]);
      return 'written';
    }
  }
  throw new Error(`tracker ${trackerId} kept changing while its outcome was written`);
}

async function record(
  pass: Pass,
  tracker: ClaimedTracker,
  outcome: { remote: string; createCall?: boolean },
): Promise<void> {
  const { deps, stats } = pass;
  const now = new Date();
  const result = await finish(pass, tracker.id, (row) => {
    const synced = inSync(row.desired, outcome.remote);
    return {
      remote: outcome.remote,
      syncState: synced ? 'synced' : 'pending',
      attempts: 0,
      nextAttemptAt: now,
      lastError: null,
      lastErrorReason: null,
      lastErrorAt: null,
      syncedAt: synced ? now : row.syncedAt,
      nextPollAt: nextPollAfterSync(deps, row, outcome.remote, now),
      problemCheckAt: now,
      createCallsIncrement: outcome.createCall ? 1 : 0,
    };
  });
  if (result === 'lease-lost') {
    stats.leaseLost++;
    deps.logger.warn(
      { trackerId: tracker.id },
      'lease lost before the outcome was recorded; the next holder will look before acting',
    );
  }
}

/** A failed call: what the service said, what is known of the tracker there now, whether it was a create. */
interface Failure {
  classified: Classified;
  remoteAfter: string;
  wasCreate?: boolean;
}

async function recordFailure(
  pass: Pass,
  tracker: ClaimedTracker,
  { classified, remoteAfter, wasCreate = false }: Failure,
): Promise<void> {
  const { deps, stats, pausedNow } = pass;
  // Made only for a failure (a child logger per tracker synced was a measurable share of the drain's CPU).
  const log = deps.logger.child({
    trackerId: tracker.id,
    shop: tracker.shop.domain,
    trackingNumber: tracker.trackingNumber,
  });
  const now = new Date();
  const backoff = deps.backoff ?? backoffPolicies.trackerSync;
  if (classified.kind === 'shop') {
    stats.shopPaused++;
    if (!pausedNow.has(tracker.shopId)) {
      pausedNow.add(tracker.shopId);
      const probeAt = new Date(now.getTime() + probeIntervalMs(deps));
      await deps.shops.pause(tracker.shopId, classified.reason, classified.message, probeAt);
      log.warn({ reason: classified.reason }, 'shop paused');
    }
  }
  const result = await finish(pass, tracker.id, (row) => {
    const base = {
      remote: remoteAfter,
      lastErrorReason: classified.reason,
      lastError: classified.message,
      lastErrorAt: now,
    };
    const createCallsIncrement = wasCreate ? 1 : 0;
    if (inSync(row.desired, remoteAfter)) {
      return { ...base, syncState: 'synced', attempts: 0, createCallsIncrement };
    }
    if (classified.kind === 'shop') {
      // Not the tracker's fault: it waits, attempts untouched, until the shop is resumed.
      return { ...base, syncState: 'pending', nextAttemptAt: now, createCallsIncrement };
    }
    if (classified.kind === 'permanent') {
      return { ...base, syncState: 'failed', attempts: row.attempts + 1, createCallsIncrement };
    }
    const attempts = row.attempts + 1;
    if (attempts >= backoff.maxAttempts) {
      return { ...base, syncState: 'dead', attempts, createCallsIncrement };
    }
    return {
      ...base,
      syncState: 'pending',
      attempts,
      nextAttemptAt: new Date(now.getTime() + backoffDelayMs(attempts, backoff, classified.retryAfterMs)),
      createCallsIncrement,
    };
  });
  if (result === 'lease-lost') {
    stats.leaseLost++;
    return;
  }
  if (classified.kind === 'permanent') stats.failed++;
  if (classified.kind === 'transient') {
    const row = await trackerSyncState(deps.prisma, tracker.id);
    if (row?.syncState === 'dead') stats.dead++;
    else stats.retried++;
  }
  log.info({ kind: classified.kind, reason: classified.reason }, 'tracker sync failed');
}

function probeIntervalMs(deps: ReconcilerDeps): number {
  return deps.probeIntervalMs ?? 10 * 60_000;
}

/**
 * When a tracker's status is read after a sync, the one rule for every outcome: a tracker that just came
 * to be at the service is first read `firstPollMs` later (the poll policy's); one that was there already
 * keeps its schedule; one that is not there is never read.
 */
function nextPollAfterSync(
  deps: ReconcilerDeps,
  before: { remote: string; nextPollAt: Date | null },
  remote: string,
  now: Date,
): Date | null {
  if (remote !== 'present') return null;
  if (before.remote === 'present') return before.nextPollAt;
  return new Date(now.getTime() + (deps.firstPollMs ?? defaultPollPolicy.firstPollMs));
}

/** Gives a claimed tracker back untouched (a create not sent stays known-absent). */
async function release(pass: Pass, trackerId: string) {
  const createNotSent = pass.knownAbsent.has(trackerId);
  await finish(pass, trackerId, (row) => ({
    remote: createNotSent && row.remote === 'unknown' ? 'absent' : row.remote,
    nextAttemptAt: new Date(),
  }));
}
