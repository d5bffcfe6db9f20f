import { randomUUID } from 'node:crypto';
import { claimSkipLocked, providerOf } from '../db/claim.js';
import type { DatabaseClient } from '../db/client.js';
import type { Shop, Tracker } from '../generated/sqlite/client.js';
import type { Logger } from '../logger.js';
import { SecretUnreadableError } from '../shops/crypto.js';
import type { ShopCredentials, ShopRepository } from '../shops/shop-repository.js';
import type { TrackingClient } from '../tracking/client.js';
import type { TrackingError } from '../tracking/types.js';
import { inSync } from './desired-state.js';
import { type BackoffPolicy, type Classified, classify, defaultBackoff, nextDelayMs } from './outcome.js';

/**
 * The reconciler: takes trackers whose desired and known remote states differ and whose next attempt is
 * due, leases them, calls the service, and records what happened.
 *
 * Exactly-once creates rest on three things: one tracker row per (shop, number, provider); a lease per
 * row, with every outcome written only by the lease holder (and only if the row did not change under it);
 * and a write-ahead mark: before a create is sent the row's remote state becomes `unknown`, so a process
 * that dies after the service answered but before it recorded the answer leaves a row that the next
 * holder resolves with a `get` before it would ever create again. The lease outlives the client's worst
 * case (attempts × timeout + backoff), so a slow call never has its row taken from under it.
 */

export interface ReconcilerDeps {
  prisma: DatabaseClient;
  client: TrackingClient;
  shops: ShopRepository;
  logger: Logger;
  /** Identifies this process in leases. */
  owner: string;
  leaseMs?: number;
  backoff?: BackoffPolicy;
  /** How long a paused shop waits before one of its trackers is tried again to see if the cause is gone. */
  probeIntervalMs?: number;
  /** When a tracker's status is first read after it is created at the service (default 15 min). */
  firstPollMs?: number;
  now?: () => Date;
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

export const defaultLeaseMs = 120_000;

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

/** Leases up to `limit` due trackers for this process. */
export async function claimTrackers(
  deps: ReconcilerDeps,
  limit: number,
): Promise<{ token: string; trackers: ClaimedTracker[] }> {
  const now = (deps.now ?? (() => new Date()))();
  const token = `${deps.owner}:${randomUUID()}`;
  const leaseMs = deps.leaseMs ?? defaultLeaseMs;
  if (providerOf(deps.prisma) === 'postgresql') {
    const ids = await claimSkipLocked(
      deps.prisma,
      {
        table: 'Tracker',
        sqlWhere: `q."syncState" = 'pending' AND q."nextAttemptAt" <= $now
          AND EXISTS (SELECT 1 FROM "Shop" s WHERE s."id" = q."shopId"
                      AND (s."pausedAt" IS NULL OR s."probeAt" <= $now))`,
        orderBy: 'nextAttemptAt',
        bumpVersion: true,
        hasUpdatedAt: true,
      },
      { token, now, leaseMs, limit },
    );
    if (ids.length === 0) return { token, trackers: [] };
  } else {
    const leaseFree = [{ leaseExpiresAt: null }, { leaseExpiresAt: { lt: now } }];
    const candidates = await deps.prisma.tracker.findMany({
      where: {
        syncState: 'pending',
        nextAttemptAt: { lte: now },
        OR: leaseFree,
        shop: { OR: [{ pausedAt: null }, { probeAt: { lte: now } }] },
      },
      orderBy: { nextAttemptAt: 'asc' },
      take: limit,
      select: { id: true },
    });
    if (candidates.length === 0) return { token, trackers: [] };
    await deps.prisma.tracker.updateMany({
      where: { id: { in: candidates.map((c) => c.id) }, syncState: 'pending', OR: leaseFree },
      data: {
        leaseOwner: token,
        leaseExpiresAt: new Date(now.getTime() + leaseMs),
        version: { increment: 1 },
      },
    });
  }
  const leased = await deps.prisma.tracker.findMany({
    where: { leaseOwner: token },
    include: { shop: true },
    orderBy: { nextAttemptAt: 'asc' },
  });
  const trackers = onePerPausedShop(leased);
  if (trackers.length < leased.length) {
    // Leased but not tried in this pass (a paused shop's probe tries one): give them straight back, or
    // they would sit leased for the whole lease even after the probe lifts the pause.
    const kept = new Set(trackers.map((t) => t.id));
    await deps.prisma.tracker.updateMany({
      where: { id: { in: leased.filter((t) => !kept.has(t.id)).map((t) => t.id) }, leaseOwner: token },
      data: { leaseOwner: null, leaseExpiresAt: null, version: { increment: 1 } },
    });
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
 * One pass: claim, then sync the claimed trackers with at most `concurrency` calls in flight. When
 * `shouldStop()` turns true, trackers not yet started are released for another process.
 */
export async function reconcileOnce(
  deps: ReconcilerDeps,
  options: { limit: number; concurrency: number; shouldStop?: () => boolean },
): Promise<ReconcileStats> {
  const stats = emptyStats();
  const { token, trackers: claimed } = await claimTrackers(deps, options.limit);
  stats.claimed = claimed.length;
  if (claimed.length === 0) return stats;

  // Write-ahead: from here on, a create for these rows may be in flight.
  const toCreate = claimed.filter((t) => t.desired === 'active' && t.remote === 'absent');
  if (toCreate.length > 0) {
    await deps.prisma.tracker.updateMany({
      where: { id: { in: toCreate.map((t) => t.id) }, leaseOwner: token },
      data: { remote: 'unknown', version: { increment: 1 } },
    });
  }
  const knownAbsent = new Set(toCreate.map((t) => t.id));
  const batch = newBatch();
  const credentials = new Map<string, Promise<ShopCredentials | null>>();
  const unreadable = new Set<string>();
  const pausedNow = new Set<string>();

  let next = 0;
  const run = async () => {
    while (next < claimed.length) {
      const tracker = claimed[next++]!;
      if (options.shouldStop?.() || pausedNow.has(tracker.shopId)) {
        await release(deps, token, tracker.id, knownAbsent.has(tracker.id));
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
          unreadable.has(tracker.shopId)
            ? 'The stored API key cannot be decrypted with ENCRYPTION_KEY; connect the store again.'
            : 'No tracking service API key is stored for this store yet.',
          null,
        );
        pausedNow.add(tracker.shopId);
        await release(deps, token, tracker.id, knownAbsent.has(tracker.id));
        stats.released++;
        continue;
      }
      await syncOne(deps, token, tracker, creds, knownAbsent.has(tracker.id), stats, pausedNow, batch);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(options.concurrency, claimed.length) }, run));
  } finally {
    await flushBatch(deps, token, batch, stats);
  }
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
}

function newBatch(): OutcomeBatch {
  return { created: [], present: [], deleted: [], accounts: new Map() };
}

async function flushBatch(
  deps: ReconcilerDeps,
  token: string,
  batch: OutcomeBatch,
  stats: ReconcileStats,
): Promise<void> {
  // The balance first: whoever sees a tracker synced also sees the balance its create reported.
  for (const [shopId, account] of batch.accounts) await deps.shops.recordAccount(shopId, account);
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
    const { count } = await deps.prisma.tracker.updateMany({
      where: { id: { in: ids }, leaseOwner: token, desired: kind.desired },
      data: {
        remote: kind.remote,
        syncState: 'synced',
        attempts: 0,
        nextAttemptAt: now,
        lastError: null,
        lastErrorReason: null,
        lastErrorAt: null,
        syncedAt: now,
        // At the service: its status is read from now on; gone: never again.
        nextPollAt: kind.remote === 'present' ? firstPoll(deps, now) : null,
        leaseOwner: null,
        leaseExpiresAt: null,
        version: { increment: 1 },
        ...(kind.createCall ? { createCalls: { increment: 1 } } : {}),
      },
    });
    if (count === ids.length) continue;
    // A store event changed what some of them want while the call was out: the per-row path works out
    // their state from the row as it is now (a lost lease is counted there).
    const left = await deps.prisma.tracker.findMany({
      where: { id: { in: ids }, leaseOwner: token },
      select: { id: true },
    });
    const stillLeased = new Set(left.map((r) => r.id));
    for (const tracker of kind.rows) {
      if (stillLeased.has(tracker.id)) {
        await record(deps, token, tracker, stats, { remote: kind.remote, createCall: kind.createCall });
      }
    }
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

async function syncOne(
  deps: ReconcilerDeps,
  token: string,
  tracker: ClaimedTracker,
  creds: ShopCredentials,
  knownAbsent: boolean,
  stats: ReconcileStats,
  pausedNow: Set<string>,
  batch: OutcomeBatch,
): Promise<void> {
  const { client, logger } = deps;
  const key = {
    trackingNumber: tracker.trackingNumber,
    trackingProvider: tracker.provider,
    orderId: tracker.orderKey,
  };
  const log = logger.child({
    trackerId: tracker.id,
    shop: tracker.shop.domain,
    trackingNumber: tracker.trackingNumber,
  });

  if (tracker.desired === 'active') {
    let absent = knownAbsent;
    if (!absent && tracker.remote === 'unknown') {
      // An earlier create may have reached the service: look before creating again.
      const found = await client.getShipment(creds, {
        trackingNumber: key.trackingNumber,
        trackingProvider: key.trackingProvider,
      });
      if (found.ok) {
        stats.alreadyPresent++;
        batch.present.push(tracker);
        await afterSuccess(deps, tracker);
        return;
      }
      if (!isNotFound(found.error)) {
        await recordFailure(deps, token, tracker, classify(found.error), 'unknown', stats, pausedNow, log);
        return;
      }
      absent = true;
    }
    if (!absent) {
      await record(deps, token, tracker, stats, { remote: tracker.remote });
      return;
    }
    const created = await client.createTracker(creds, {
      ...key,
      postalCode: tracker.postalCode,
      destinationCountry: tracker.destinationCountry,
    });
    if (created.ok) {
      stats.created++;
      batch.created.push(tracker);
      batch.accounts.set(tracker.shopId, created.value);
      await afterSuccess(deps, tracker);
      return;
    }
    if (created.error.kind === 'application' && created.error.account) {
      batch.accounts.set(tracker.shopId, created.error.account);
    }
    const remoteAfter = created.outcomeUnknown ? 'unknown' : 'absent';
    await recordFailure(
      deps,
      token,
      tracker,
      classify(created.error),
      remoteAfter,
      stats,
      pausedNow,
      log,
      true,
    );
    return;
  }

  // desired removed, remote present or unknown
  const deleted = await client.deleteTracker(creds, key);
  if (deleted.ok || isNotFound(deleted.error)) {
    stats.deleted++;
    batch.deleted.push(tracker);
    await afterSuccess(deps, tracker);
    return;
  }
  await recordFailure(deps, token, tracker, classify(deleted.error), tracker.remote, stats, pausedNow, log);
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
  if (tracker.shop.pausedAt) await deps.shops.resumeAfterProbe(tracker.shopId);
}

/**
 * Writes an outcome if this process still holds the lease, deriving the sync state from the row's
 * current desired state (which a store event may have changed meanwhile). Optimistic on `version`.
 */
async function finish(
  deps: ReconcilerDeps,
  token: string,
  trackerId: string,
  compute: (row: Tracker) => Partial<Omit<Tracker, 'id' | 'version'>> & { createCallsIncrement?: number },
): Promise<'written' | 'lease-lost'> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const row = await deps.prisma.tracker.findUnique({ where: { id: trackerId } });
    if (!row || row.leaseOwner !== token) return 'lease-lost';
    const { createCallsIncrement, ...data } = compute(row);
    const { count } = await deps.prisma.tracker.updateMany({
      where: { id: trackerId, leaseOwner: token, version: row.version },
      data: {
        ...data,
        leaseOwner: null,
        leaseExpiresAt: null,
        version: { increment: 1 },
        ...(createCallsIncrement ? { createCalls: { increment: createCallsIncrement } } : {}),
      },
    });
    if (count === 1) return 'written';
  }
  throw new Error(`tracker ${trackerId} kept changing while its outcome was written`);
}

async function record(
  deps: ReconcilerDeps,
  token: string,
  tracker: ClaimedTracker,
  stats: ReconcileStats,
  outcome: { remote: string; createCall?: boolean },
): Promise<void> {
  const now = new Date();
  const result = await finish(deps, token, tracker.id, (row) => {
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
      nextPollAt:
        outcome.remote === 'present'
          ? row.remote === 'present'
            ? row.nextPollAt
            : firstPoll(deps, now)
          : null,
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

async function recordFailure(
  deps: ReconcilerDeps,
  token: string,
  tracker: ClaimedTracker,
  classified: Classified,
  remoteAfter: string,
  stats: ReconcileStats,
  pausedNow: Set<string>,
  log: Logger,
  wasCreate = false,
): Promise<void> {
  const now = new Date();
  const backoff = deps.backoff ?? defaultBackoff;
  if (classified.kind === 'shop') {
    stats.shopPaused++;
    if (!pausedNow.has(tracker.shopId)) {
      pausedNow.add(tracker.shopId);
      const probeAt = new Date(now.getTime() + (deps.probeIntervalMs ?? 10 * 60_000));
      await deps.shops.pause(tracker.shopId, classified.reason, classified.message, probeAt);
      log.warn({ reason: classified.reason }, 'shop paused');
    }
  }
  const result = await finish(deps, token, tracker.id, (row) => {
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
      nextAttemptAt: new Date(now.getTime() + nextDelayMs(attempts, backoff, classified.retryAfterMs)),
      createCallsIncrement,
    };
  });
  if (result === 'lease-lost') {
    stats.leaseLost++;
    return;
  }
  if (classified.kind === 'permanent') stats.failed++;
  if (classified.kind === 'transient') {
    const row = await deps.prisma.tracker.findUnique({
      where: { id: tracker.id },
      select: { syncState: true },
    });
    if (row?.syncState === 'dead') stats.dead++;
    else stats.retried++;
  }
  log.info({ kind: classified.kind, reason: classified.reason }, 'tracker sync failed');
}

function firstPoll(deps: ReconcilerDeps, now: Date): Date {
  return new Date(now.getTime() + (deps.firstPollMs ?? 15 * 60_000));
}

/** Gives a claimed tracker back untouched (a create not sent stays known-absent). */
async function release(deps: ReconcilerDeps, token: string, trackerId: string, createNotSent: boolean) {
  await finish(deps, token, trackerId, (row) => ({
    remote: createNotSent && row.remote === 'unknown' ? 'absent' : row.remote,
    nextAttemptAt: new Date(),
  }));
}
