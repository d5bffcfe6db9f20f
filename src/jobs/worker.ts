import type { NotifyWork } from '../notifications/notify-work.js';
import type { WorkContext } from './work-context.js';
import { postInstantProblems } from '../notifications/instant-problems.js';
import { sendDueDigests } from '../notifications/send-digests.js';
import { queueBalanceLow, queueProblemsOpened, queueShipmentChanges } from '../flow/queue-triggers.js';
import { sendFlowEvents } from '../flow/send-flow-events.js';
import { triggerInUse } from '../flow/queries/flow-events.js';
import { balanceForecast } from '../shipments/balance-forecast.js';
import { refreshTransitStats } from '../shipments/estimates.js';
import { refreshShopProfiles } from '../shopify/shop-profile.js';
import { sweepProblems } from '../shipments/problem-sweep.js';
import { providerOf } from '../db/provider-of.js';
import { compactRollups } from '../shipments/queries/rollup-folds.js';
import { backfillDeliveryFacts } from './backfill-delivery-facts.js';
import {
  createLeaseHolder,
  defaultLeaseTiming,
  type LeaseTiming,
  type QueueDescription,
} from '../db/lease-queue.js';
import {
  backfillQueue,
  deliveryQueue,
  statusPollQueue,
  storeEventQueue,
  statusPushQueue,
  flowEventQueue,
  storeLinkQueue,
  trackerQueue,
} from '../db/queues.js';
import { applyStatusPushes } from '../status-pushes/apply.js';
import { createRateGate } from '../trackers/rate-gate.js';
import { type ReconcilerDeps, reconcileOnce } from '../trackers/reconciler.js';
import { pollStatuses } from '../shipments/poll-statuses.js';
import { type PostStats, postStoreEvents } from '../shipments/post-store-events.js';
import { type LinkStats, sendTrackingLinks } from '../shipments/tracking-links.js';
import type { PollPolicy } from '../shipments/status.js';
import { processDeliveries } from '../webhooks/process-deliveries.js';
import { runBackfills } from './backfill.js';
import { refreshCarriersIfDue } from '../trackers/refresh-carriers.js';
import { createRetention, type RetentionSettings } from './retention.js';
import { yieldToEventLoop } from '../lib/yield-to-event-loop.js';
import { safeReason } from '../errors/safe-reason.js';

export interface WorkerOptions {
  /** Tracking-service calls in flight at once (WORKER_CONCURRENCY). */
  concurrency: number;
  /** Lease length and heartbeat of every queue (WORKER_LEASE_MS, WORKER_LEASE_RENEW_MS). */
  lease?: LeaseTiming;
  /** How long an idle loop sleeps before looking again (a wake() cuts it short). */
  idlePollMs?: number;
  /** How often periodic work (the daily carrier refresh, a retention pass) is considered. */
  periodicEveryMs?: number;
  /** How long finished rows are kept (src/jobs/retention.ts; RETENTION_* settings). Default: its defaults. */
  retention?: Partial<RetentionSettings>;
  reconciler?: Partial<Pick<ReconcilerDeps, 'leaseMs' | 'backoff' | 'probeIntervalMs' | 'firstPollMs'>>;
  /** When shipment statuses are read again (default: src/shipments/status.ts). */
  pollPolicy?: PollPolicy;
  /** Status reads per shop per pass (default 10), so one big shop never starves the others. */
  pollPerShop?: number;
}

export interface Worker {
  start(): void;
  /** Wakes an idle loop: new work was just stored. */
  wake(): void;
  /** Finishes the calls in flight, gives back leased work not started, and resolves when the loop ends. */
  stop(): Promise<void>;
  /** One full pass (deliveries, then trackers), for tests and the CLI. */
  runOnce(): Promise<PassCounts>;
}

export interface PassCounts {
  deliveries: number;
  trackers: number;
  backfills: number;
  polled: number;
  storeEvents: number;
  storeLinks: number;
  /** Flow triggers sent (or given up). */
  flowEvents: number;
  pushes: number;
  /** Shipments whose problems were evaluated. */
  problems: number;
}

/** Pushes applied per pass, and how long a pass that found fewer waits for more to arrive. */
const pushBatch = 500;
/**
 * Deliveries claimed per pass. A backlog is applied a shop's batch at a time (src/webhooks/apply-in-bulk.ts),
 * whose fixed cost (the shop's reads, one store query per 250 fulfilments, the transaction) is shared by
 * more deliveries the larger the pass: at 500 rather than 200 the SQLite drain at 64 calls in flight ran
 * 1 154–1 271 trackers/s against 949–1 065 (CPU per tracker a sixth lower). A small backlog makes a small pass.
 */
const deliveryBatch = 500;
/** How often the transit statistics pass runs (it recomputes only keys 12 hours old). */
const transitStatsEveryMs = 15 * 60_000;
/** Shipments evaluated for problems per pass. */
const problemBatch = 200;
const pushGatherMs = 20;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createWorker(ctx: WorkContext, options: WorkerOptions): Worker {
  const { store } = ctx;
  const idlePollMs = options.idlePollMs ?? 500;
  const periodicEveryMs = options.periodicEveryMs ?? 60_000;
  /**
   * Rollup deltas folded per statement (src/shipments/rollups.ts). SQLite runs a statement on the event
   * loop's thread: small enough there to stay well under 50 ms, with a yield between statements.
   */
  const rollupBatch = providerOf(ctx.prisma) === 'postgresql' ? 5000 : 500;
  /** Trackers whose delivery facts one backfill statement writes (src/jobs/backfill-delivery-facts.ts). */
  const factsBatch = providerOf(ctx.prisma) === 'postgresql' ? 1000 : 200;
  let factsDone = false;
  const timing: LeaseTiming = options.lease ?? {
    leaseMs: options.reconciler?.leaseMs ?? defaultLeaseTiming.leaseMs,
  };
  // One hold per queue for the life of the worker: one token, one heartbeat each.
  const hold = (queue: QueueDescription) =>
    createLeaseHolder(ctx.prisma, queue, { owner: ctx.owner, timing, logger: ctx.logger });
  const leases = {
    deliveries: hold(deliveryQueue),
    trackers: hold(trackerQueue),
    backfills: hold(backfillQueue),
    polls: hold(statusPollQueue),
    storeEvents: hold(storeEventQueue),
    storeLinks: hold(storeLinkQueue),
    pushes: hold(statusPushQueue),
    flowEvents: hold(flowEventQueue),
  };
  /** What every queue consumer of this worker works with. */
  const work = { prisma: ctx.prisma, logger: ctx.logger, owner: ctx.owner };
  const policy = options.pollPolicy ? { policy: options.pollPolicy } : {};
  /**
   * Each consumer's work, made once for the life of the worker from the context, its hold on its queue and
   * its policy: a pass only runs it.
   */
  const deliveryWork = {
    ...work,
    carriers: ctx.carriers,
    confirmFulfillments: store.confirmFulfillments,
    leases: leases.deliveries,
  };
  const backfillWork = store.fetchOrdersPage
    ? { ...work, carriers: ctx.carriers, fetchPage: store.fetchOrdersPage, leases: leases.backfills }
    : null;
  const reconcilerWork: ReconcilerDeps = {
    ...work,
    client: ctx.client,
    shops: ctx.shops,
    leases: leases.trackers,
    rateGate: createRateGate(options.concurrency),
    // A create reported the shop's balance: warn through Flow while it lasts fewer days than the shop's
    // setting. Only a shop with a workflow on the trigger can be warned: the forecast is read for those alone.
    onAccount: async (shopId, account) => {
      if (!(await triggerInUse(ctx.prisma, shopId, 'tracking-balance-low'))) return;
      const shop = { id: shopId, ...account };
      const forecast = await balanceForecast(ctx.prisma, shop);
      if (forecast) await queueBalanceLow(ctx.prisma, shop, forecast);
    },
    ...(options.pollPolicy ? { firstPollMs: options.pollPolicy.firstPollMs } : {}),
    ...options.reconciler,
  };
  const pollWork = {
    ...work,
    client: ctx.client,
    shops: ctx.shops,
    leases: leases.polls,
    onStored: queueShipmentChanges,
    ...policy,
  };
  const storeEventWork = store.storeEvents
    ? { ...work, api: store.storeEvents, leases: leases.storeEvents }
    : null;
  const storeLinkWork = store.storeLinks
    ? { ...work, api: store.storeLinks, leases: leases.storeLinks }
    : null;
  const flowWork = store.flowTriggers
    ? { ...work, api: store.flowTriggers, leases: leases.flowEvents }
    : null;
  const pushWork = { ...work, leases: leases.pushes, ...policy };
  const problemWork = { ...work, onOpened: queueProblemsOpened };
  const profileWork = store.shopProfiles ? { ...work, api: store.shopProfiles } : null;
  const notifyWork: NotifyWork | null = ctx.notifiers
    ? { ...work, ...ctx.notifiers, shops: ctx.shops }
    : null;
  const retention = createRetention(work, options.retention);

  let stopping = false;
  let loops: Promise<void> | null = null;
  const sleepers = new Set<() => void>();
  let lastPeriodic = 0;
  /** The first retention pass comes one interval after the start, not with the start's own rush. */
  let lastRetention = Date.now();

  /** Store events to desired state: deliveries, then one page per running backfill (never starving them). */
  async function desiredStateStep(): Promise<{ deliveries: number; backfills: number }> {
    const deliveries = await processDeliveries(deliveryWork, deliveryBatch);
    const backfills = backfillWork ? await runBackfills(backfillWork) : 0;
    return { deliveries: deliveries.claimed, backfills };
  }

  async function trackersStep(): Promise<number> {
    const trackers = await reconcileOnce(reconcilerWork, {
      // Calls stay in flight while trackers are due, up to this many per pass.
      limit: options.concurrency * 64,
      concurrency: options.concurrency,
      shouldStop: () => stopping,
    });
    return trackers.claimed;
  }

  /** Status reads and store writes: the least urgent work. */
  async function statusStep(): Promise<{
    polled: number;
    storeEvents: number;
    storeLinks: number;
    flowEvents: number;
  }> {
    const polls = await pollStatuses(pollWork, {
      limit: options.concurrency * 4,
      perShop: options.pollPerShop ?? 10,
      concurrency: options.concurrency,
      shouldStop: () => stopping,
    });
    const posted: PostStats | null = storeEventWork ? await postStoreEvents(storeEventWork, 50) : null;
    const links: LinkStats | null = storeLinkWork ? await sendTrackingLinks(storeLinkWork, 50) : null;
    const flows = flowWork ? await sendFlowEvents(flowWork, 50) : null;
    return {
      polled: polls.claimed,
      storeEvents: posted?.claimed ?? 0,
      storeLinks: links?.claimed ?? 0,
      flowEvents: flows?.claimed ?? 0,
    };
  }

  /** The service's status pushes: applied as soon as they are recorded, in their own loop. */
  async function pushesStep(): Promise<number> {
    const applied = await applyStatusPushes(pushWork, pushBatch);
    return applied.claimed;
  }

  /** Shipment problems opened and closed for the trackers due an evaluation (a batch a pass). */
  async function problemsStep(): Promise<number> {
    return (await sweepProblems(problemWork, problemBatch)).evaluated;
  }

  async function runOnce(): Promise<PassCounts> {
    const { deliveries, backfills } = await desiredStateStep();
    const trackers = await trackersStep();
    const pushes = await pushesStep();
    const { polled, storeEvents, storeLinks, flowEvents } = await statusStep();
    const problems = await problemsStep();
    return { deliveries, trackers, backfills, polled, storeEvents, storeLinks, flowEvents, pushes, problems };
  }

  let lastTransitStats = 0;
  async function periodic(): Promise<void> {
    if (Date.now() - lastPeriodic < periodicEveryMs) return;
    lastPeriodic = Date.now();
    await refreshCarriersIfDue(ctx);
    if (profileWork) await refreshShopProfiles(profileWork, 20);
    if (notifyWork) {
      await sendDueDigests(notifyWork, 50);
      await postInstantProblems(notifyWork, 50);
    }
    // Transit statistics (predicted estimates): a bounded batch of keys whose figures are 12 hours old.
    if (Date.now() - lastTransitStats >= transitStatsEveryMs) {
      lastTransitStats = Date.now();
      await refreshTransitStats(ctx.prisma, { batch: 200, now: new Date() });
    }
  }

  /**
   * Deletes what is no longer needed, a bounded pass per interval in a loop of its own: a pass is many short
   * statements (yielding between them), and it never holds up intake's backlog.
   */
  async function retentionStep(): Promise<boolean> {
    if (Date.now() - lastRetention < periodicEveryMs) return false;
    lastRetention = Date.now();
    await retention.runPass({ shouldStop: () => stopping });
    return false;
  }

  function sleep(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, idlePollMs);
      sleepers.add(done);
    });
  }

  /**
   * One loop per kind of work, side by side: turning deliveries into desired state is database work,
   * syncing trackers waits on the service, so neither holds the other up (a burst of deliveries no longer
   * pauses tracker creation, and a slow service no longer delays intake's backlog).
   */
  async function loop(name: string, step: () => Promise<boolean>): Promise<void> {
    while (!stopping) {
      let busy = false;
      try {
        busy = await step();
      } catch (error) {
        ctx.logger.error({ loop: name, err: safeReason(error) }, 'worker pass failed');
      }
      if (!busy && !stopping) await sleep();
      else await yieldToEventLoop();
    }
  }

  async function run(): Promise<void> {
    ctx.logger.info({ owner: ctx.owner, concurrency: options.concurrency }, 'worker started');
    await Promise.all([
      loop('desired-state', async () => {
        await periodic();
        const done = await desiredStateStep();
        if (done.deliveries > 0) wakeAll(); // new trackers may be due
        return done.deliveries + done.backfills > 0;
      }),
      loop('trackers', async () => (await trackersStep()) > 0),
      loop('pushes', async () => {
        const applied = await pushesStep();
        if (applied > 0) wakeAll(); // their store events are due
        // In a burst, a moment's wait lets the next pass take many pushes at once (one write per parcel
        // whatever its number of pushes) instead of one pass per push.
        if (applied > 0 && applied < pushBatch) await delay(pushGatherMs);
        return applied > 0;
      }),
      loop('status', async () => {
        const done = await statusStep();
        return done.polled + done.storeEvents + done.storeLinks + done.flowEvents > 0;
      }),
      loop('problems', async () => (await problemsStep()) >= problemBatch),
      loop('retention', retentionStep),
      // The rollups' deltas folded in as they come (a full batch: more are waiting, go again at once).
      loop('rollups', async () => (await compactRollups(ctx.prisma, rollupBatch)) >= rollupBatch),
      // Once after the upgrade that keeps delivery facts: the parcels read before it, a batch at a time
      // (one statement each) until done; then nothing.
      loop('delivery-facts', async () => {
        if (factsDone) return false;
        factsDone = (await backfillDeliveryFacts(ctx.prisma, factsBatch)) === 0;
        return !factsDone;
      }),
    ]);
    ctx.logger.info({ owner: ctx.owner }, 'worker stopped');
  }

  function wakeAll(): void {
    for (const wake of [...sleepers]) wake();
  }

  return {
    start() {
      loops ??= run();
    },
    wake() {
      wakeAll();
    },
    async stop() {
      stopping = true;
      wakeAll();
      await loops;
      // Anything still held (a step cut short) is given back at once instead of waiting out its lease.
      await Promise.all(Object.values(leases).map((holder) => holder.close()));
    },
    runOnce,
  };
}
