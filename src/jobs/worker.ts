import type { CarrierRepository } from '../carriers/carrier-repository.js';
import type { DatabaseClient } from '../db/client.js';
import type { Logger } from '../logger.js';
import type { ShopRepository } from '../shops/shop-repository.js';
import type { TrackingClient } from '../tracking/client.js';
import { type ReconcilerDeps, reconcileOnce } from '../trackers/reconciler.js';
import { pollStatuses } from '../shipments/poll-statuses.js';
import { type PostStats, postStoreEvents, type StoreEventsApi } from '../shipments/post-store-events.js';
import type { PollPolicy } from '../shipments/status.js';
import { processDeliveries } from '../webhooks/process-deliveries.js';
import { type FetchOrdersPage, runBackfills } from './backfill.js';
import { refreshCarriersIfDue } from './refresh-carriers.js';

export interface WorkerDeps {
  prisma: DatabaseClient;
  client: TrackingClient;
  shops: ShopRepository;
  carriers: CarrierRepository;
  logger: Logger;
  owner: string;
  /** Reads a store's orders for backfills; without it, backfill jobs wait for a worker that has it. */
  fetchOrdersPage?: FetchOrdersPage;
  /** Writes fulfilment events to the stores; without it, queued events wait for a worker that has it. */
  storeEvents?: StoreEventsApi;
}

export interface WorkerOptions {
  /** Tracking-service calls in flight at once. */
  concurrency: number;
  /** How long an idle loop sleeps before looking again (a wake() cuts it short). */
  idlePollMs?: number;
  /** How often periodic work (the daily carrier refresh) is considered. */
  periodicEveryMs?: number;
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
}

export function createWorker(deps: WorkerDeps, options: WorkerOptions): Worker {
  const idlePollMs = options.idlePollMs ?? 500;
  const periodicEveryMs = options.periodicEveryMs ?? 60_000;
  const reconcilerDeps: ReconcilerDeps = {
    prisma: deps.prisma,
    client: deps.client,
    shops: deps.shops,
    logger: deps.logger,
    owner: deps.owner,
    ...(options.pollPolicy ? { firstPollMs: options.pollPolicy.firstPollMs } : {}),
    ...options.reconciler,
  };
  let stopping = false;
  let loop: Promise<void> | null = null;
  let wakeUp: (() => void) | null = null;
  let lastPeriodic = 0;

  async function runOnce(): Promise<PassCounts> {
    const deliveries = await processDeliveries(
      { prisma: deps.prisma, carriers: deps.carriers, logger: deps.logger, owner: deps.owner },
      200,
    );
    // One page per running backfill job per pass, so backfills never starve live webhooks.
    const backfills = deps.fetchOrdersPage
      ? await runBackfills({
          prisma: deps.prisma,
          carriers: deps.carriers,
          logger: deps.logger,
          owner: deps.owner,
          fetchPage: deps.fetchOrdersPage,
        })
      : 0;
    const trackers = await reconcileOnce(reconcilerDeps, {
      limit: options.concurrency * 4,
      concurrency: options.concurrency,
      shouldStop: () => stopping,
    });
    // Status reads come after store events and syncs: they are the least urgent work.
    const polls = await pollStatuses(
      {
        prisma: deps.prisma,
        client: deps.client,
        shops: deps.shops,
        logger: deps.logger,
        owner: deps.owner,
        ...(options.pollPolicy ? { policy: options.pollPolicy } : {}),
      },
      {
        limit: options.concurrency * 4,
        perShop: options.pollPerShop ?? 10,
        concurrency: options.concurrency,
        shouldStop: () => stopping,
      },
    );
    const posted: PostStats | null = deps.storeEvents
      ? await postStoreEvents(
          { prisma: deps.prisma, api: deps.storeEvents, logger: deps.logger, owner: deps.owner },
          50,
        )
      : null;
    return {
      deliveries: deliveries.claimed,
      trackers: trackers.claimed,
      backfills,
      polled: polls.claimed,
      storeEvents: posted?.claimed ?? 0,
    };
  }

  async function periodic(): Promise<void> {
    if (Date.now() - lastPeriodic < periodicEveryMs) return;
    lastPeriodic = Date.now();
    await refreshCarriersIfDue(deps);
  }

  async function run(): Promise<void> {
    deps.logger.info({ owner: deps.owner, concurrency: options.concurrency }, 'worker started');
    while (!stopping) {
      let busy = false;
      try {
        await periodic();
        const done = await runOnce();
        busy = done.deliveries + done.trackers + done.backfills + done.polled + done.storeEvents > 0;
      } catch (error) {
        deps.logger.error(
          { err: error instanceof Error ? error.message : String(error) },
          'worker pass failed',
        );
      }
      if (!busy && !stopping) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, idlePollMs);
          wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wakeUp = null;
      }
    }
    deps.logger.info({ owner: deps.owner }, 'worker stopped');
  }

  return {
    start() {
      loop ??= run();
    },
    wake() {
      wakeUp?.();
    },
    async stop() {
      stopping = true;
      wakeUp?.();
      await loop;
    },
    runOnce,
  };
}
