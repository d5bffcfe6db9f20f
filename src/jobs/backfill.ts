import type { CarrierRepository } from '../carriers/carrier-repository.js';
import { carrierOverrides } from '../carriers/carrier-repository.js';
import type { LeaseHolder } from '../db/lease-queue.js';
import { runQueuePass } from '../db/queue-pass.js';
import { backfillQueue } from '../db/queues.js';
import type { DatabaseClient } from '../db/client.js';
import { inTransaction } from '../db/transaction.js';
import type { BackfillJob } from '../generated/sqlite/client.js';
import { safeReason } from '../errors/safe-reason.js';
import { backoffDelayMs, backoffPolicies } from '../lib/backoff.js';
import type { Logger } from '../logger.js';
import type { TracksyncShopify } from '../shopify/api.js';
import { lockShop, shopById, shopByIdOrThrow } from '../shops/shop-repository.js';
import { applyFulfillment, applyOrderCancelled } from '../trackers/desired-state.js';
import {
  type FulfillmentPayload,
  fulfillmentNameOf,
  fulfillmentPayload,
} from '../trackers/fulfillment-payload.js';
import {
  backOffBackfillJob,
  createBackfillJob,
  latestBackfillJob,
  leasedBackfillJobs,
  markBackfillFailed,
  resumeBackfillJob,
  runningBackfillJob,
  saveBackfillPage,
} from './queries/backfill-jobs.js';

/**
 * Backfill: the fulfilments a store made before the app was installed. One page of the shop's recent
 * orders per step, read through the Admin GraphQL API; each fulfilment goes through the same idempotent
 * desired-state use case as the webhooks (keyed by shop, fulfilment and number), and the page's cursor and
 * counters are saved in that same transaction: a crash resumes after the last saved page, and replaying a
 * page (or a fulfilment that also came by webhook) never makes a second tracker.
 */

export const BACKFILL_PAGE_SIZE = 50;
export const BACKFILL_MAX_DAYS = 365;
/** How long a job waits after a step failed on our side before its page is read again. */

export const ORDERS_QUERY = `query BackfillOrders($cursor: String, $query: String!) {
  orders(first: ${BACKFILL_PAGE_SIZE}, after: $cursor, query: $query, sortKey: CREATED_AT) {
    pageInfo { hasNextPage endCursor }
    nodes {
      legacyResourceId
      name
      email
      cancelledAt
      shippingAddress { zip countryCodeV2 }
      fulfillments(first: 20) {
        legacyResourceId
        name
        status
        createdAt
        updatedAt
        trackingInfo(first: 10) { company number url }
      }
    }
  }
}`;

export interface GraphqlOrder {
  legacyResourceId: string;
  name: string | null;
  /** The customer's email (absent from older answers). */
  email?: string | null;
  cancelledAt: string | null;
  shippingAddress: { zip: string | null; countryCodeV2: string | null } | null;
  fulfillments: Array<{
    legacyResourceId: string;
    /** #1001.1; absent from older answers (made from the order's name: fulfillmentNameOf). */
    name?: string | null;
    status: string;
    createdAt: string | null;
    updatedAt: string | null;
    trackingInfo: Array<{ company: string | null; number: string | null; url?: string | null }>;
  }>;
}

export interface OrdersPage {
  orders: GraphqlOrder[];
  hasNextPage: boolean;
  endCursor: string | null;
}

/** Reads one page of the shop's orders (the seam tests replace or point at a fake server). */
export type FetchOrdersPage = (
  shopDomain: string,
  variables: { cursor: string | null; query: string },
) => Promise<OrdersPage>;

/** The real reader: the shop's offline session and the library's Admin GraphQL client. */
export function shopifyOrdersFetcher(shopify: TracksyncShopify): FetchOrdersPage {
  return async (shopDomain, variables) => {
    const storage = shopify.config.sessionStorage;
    const session = storage
      ? await storage.loadSession(shopify.api.session.getOfflineId(shopDomain))
      : undefined;
    if (!session?.accessToken)
      throw new BackfillError('no offline session for this store (reinstall the app)');
    const client = new shopify.api.clients.Graphql({ session });
    const response = await client.request<{
      orders: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: GraphqlOrder[] };
    }>(ORDERS_QUERY, { variables });
    const orders = response.data?.orders;
    if (!orders) throw new BackfillError('the orders query returned no data');
    return {
      orders: orders.nodes,
      hasNextPage: orders.pageInfo.hasNextPage,
      endCursor: orders.pageInfo.endCursor,
    };
  };
}

export class BackfillError extends Error {}

export interface BackfillDeps {
  prisma: DatabaseClient;
  carriers: CarrierRepository;
  fetchPage: FetchOrdersPage;
  logger: Logger;
  owner?: string;
  /** The worker's hold on the backfill queue (renewed while a page is read); without it, one per pass. */
  leases?: LeaseHolder;
  now?: () => Date;
}

/** Starts a backfill, or returns the shop's running one; a failed one is resumed from its cursor. */
export async function startBackfill(
  prisma: DatabaseClient,
  shopId: string,
  days: number,
): Promise<BackfillJob> {
  return inTransaction(prisma, async (tx) => {
    // Serialises starts of one shop (the same row lock the desired-state use cases take).
    await lockShop(tx, shopId);
    const running = await runningBackfillJob(tx, shopId);
    if (running) return running;
    const latest = await latestBackfillJob(tx, shopId);
    if (latest?.state === 'failed' && latest.days === days) return resumeBackfillJob(tx, latest.id);
    return createBackfillJob(tx, shopId, days);
  });
}

/** The shop's newest backfill job. */
export function latestBackfill(prisma: DatabaseClient, shopId: string): Promise<BackfillJob | null> {
  return latestBackfillJob(prisma, shopId);
}

export function ordersSearch(days: number, startedAt: Date): string {
  const since = new Date(startedAt.getTime() - days * 86_400_000);
  return `created_at:>=${since.toISOString().slice(0, 10)}`;
}

/**
 * The store's fulfilment as the webhook's payload says it, read through the same schema as the webhook's
 * body (bounds on tracking numbers, text every database can store).
 */
export function toFulfillmentPayload(
  order: GraphqlOrder,
  fulfillment: GraphqlOrder['fulfillments'][number],
): FulfillmentPayload {
  // Named as the platform names it (#1001.1), also where the answer leaves the name out.
  const position = order.fulfillments.indexOf(fulfillment) + 1;
  const parsed = fulfillmentPayload.safeParse({
    id: fulfillment.legacyResourceId,
    order_id: order.legacyResourceId,
    name: fulfillment.name ?? fulfillmentNameOf(order.name, position),
    email: order.email ?? null,
    status: fulfillment.status,
    updated_at: fulfillment.updatedAt,
    created_at: fulfillment.createdAt,
    tracking_company: fulfillment.trackingInfo.map((i) => i.company?.trim()).find(Boolean) ?? null,
    tracking_numbers: fulfillment.trackingInfo.map((i) => i.number),
    tracking_urls: fulfillment.trackingInfo.map((i) => i.url ?? null),
    destination: { zip: order.shippingAddress?.zip, country_code: order.shippingAddress?.countryCodeV2 },
  });
  if (!parsed.success) {
    throw new Error(
      `fulfilment ${fulfillment.legacyResourceId} of order ${order.legacyResourceId} is not usable: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

export type StepResult = 'page' | 'done' | 'failed' | 'lost';

/**
 * One page of a leased (or, from tests, unleased) running job. The page's effects, its cursor and its
 * counters are one transaction, written only while the job still holds the lease it was read with.
 */
export async function runBackfillStep(deps: BackfillDeps, job: BackfillJob): Promise<StepResult> {
  const log = deps.logger.child({ backfillJobId: job.id, shopId: job.shopId });
  const shop = await shopById(deps.prisma, job.shopId);
  if (!shop) return 'lost';
  let page: OrdersPage;
  try {
    page = await deps.fetchPage(shop.domain, {
      cursor: job.cursor,
      query: ordersSearch(job.days, job.startedAt),
    });
  } catch (error) {
    const message = describe(error);
    log.warn({ err: message }, 'backfill page failed');
    await markBackfillFailed(deps.prisma, job, message);
    return 'failed';
  }
  const matcher = await deps.carriers.matcher();
  const done = !page.hasNextPage || page.endCursor === null;
  return inTransaction(deps.prisma, async (tx) => {
    const current = await shopByIdOrThrow(tx, shop.id);
    const match = { matcher, overrides: await carrierOverrides(tx, shop.id) };
    let seen = 0;
    let wanted = 0;
    for (const order of page.orders) {
      if (order.cancelledAt) {
        await applyOrderCancelled(tx, current, {
          orderId: order.legacyResourceId,
          orderName: order.name,
          cancelledAt: new Date(order.cancelledAt),
        });
      }
      for (const f of order.fulfillments) {
        seen++;
        const payload = toFulfillmentPayload(order, f);
        const outcome = await applyFulfillment(tx, current, payload, match);
        if (outcome.kind === 'applied') wanted += payload.trackingNumbers.length;
      }
    }
    const count = await saveBackfillPage(tx, job, {
      cursor: page.endCursor ?? job.cursor,
      seen,
      wanted,
      done,
    });
    // Someone else saved this page (or the job stopped): undo ours.
    if (count !== 1) throw new LeaseLost();
    return done ? 'done' : 'page';
  }).catch((error: unknown) => {
    if (error instanceof LeaseLost) return 'lost' as const;
    throw error;
  });
}

class LeaseLost extends Error {}

/** The worker's pass: leases running jobs (one step each), then gives the lease back. */
export function runBackfills(deps: BackfillDeps, limit = 4): Promise<number> {
  return runQueuePass(deps, {
    queue: backfillQueue,
    limit,
    none: 0,
    load: (ids, token) => leasedBackfillJobs(deps.prisma, ids, token),
    // A job's lease is given back after its step, or kept a while as the backoff when the step failed.
    forgetsItself: true,
    act: (claimed, leases) => backfillSteps(deps, leases, claimed),
  });
}

async function backfillSteps(
  deps: BackfillDeps,
  leases: LeaseHolder,
  claimed: BackfillJob[],
): Promise<number> {
  const { token } = leases;
  for (const job of claimed) {
    try {
      await runBackfillStep(deps, job);
    } catch (error) {
      // Not the store's answer (that marks the job failed) but ours, e.g. the database: nothing of the
      // page was saved; the lease is kept a while as the backoff, then the page is read again.
      const message = describe(error);
      deps.logger.error({ backfillJobId: job.id, err: message }, 'backfill step failed; will retry');
      leases.forget([job.id]);
      await backOffBackfillJob(
        deps.prisma,
        job.id,
        token,
        message,
        new Date(Date.now() + backoffDelayMs(1, backoffPolicies.backfillStep)),
      );
      continue;
    }
    await leases.release([job.id]);
  }
  return claimed.length;
}

/** Stored on the job and shown on the page: one clear line, never a stack or a source path. */
function describe(error: unknown): string {
  return safeReason(error, 500);
}
