import type { AppContext } from '../context/app-context.js';
import { carrierOverrides } from '../carriers/carrier-repository.js';
import { yieldToEventLoop } from '../lib/yield-to-event-loop.js';
import type { WebhookDelivery } from '../generated/sqlite/client.js';
import { ensureShop, ensureShopExists } from '../shops/shop-repository.js';
import { applyNewFulfillments } from '../trackers/apply-new-fulfillments.js';
import { describeRefusedNumbers, type FulfillmentPayload } from '../trackers/fulfillment-payload.js';
import type { CarrierMatcher } from '../carriers/match.js';
import type { Tx } from '../db/client.js';
import { inTransaction } from '../db/transaction.js';
import { safeReason } from '../errors/safe-reason.js';
import { markDeliveriesDone } from './queries/deliveries.js';
import { checkStoredBody, type TopicBodyCheck } from './topic-bodies.js';

/**
 * A claimed batch's first-seen fulfilments, applied per shop in one transaction each (see
 * applyNewFulfillments), and marked processed in that same transaction. Returns the ids of the deliveries
 * done; every other delivery of the batch, and all of a shop's when its transaction fails, go through the
 * one-at-a-time path, which stays the reference for what a delivery means.
 */
export async function applyInBulk(
  ctx: Pick<AppContext, 'prisma' | 'carriers' | 'logger'>,
  token: string,
  claimed: readonly WebhookDelivery[],
  /** Bodies already checked this pass (src/webhooks/admit-deliveries.ts), by delivery id. */
  checks: ReadonlyMap<string, TopicBodyCheck> = new Map(),
): Promise<Set<string>> {
  const done = new Set<string>();
  const byShop = new Map<string, BulkItem[]>();
  const cancelling = new Map<string, Set<string>>();
  // A shop with any other kind of delivery in the batch (uninstall, redact, data request, an unknown
  // topic) goes one at a time: those must be applied in their place in the order of arrival.
  const otherTopics = new Set<string>();
  for (const delivery of claimed) {
    if (!bulkTopics.has(delivery.topic)) {
      otherTopics.add(delivery.shopDomain);
      continue;
    }
    // The same check as the one-at-a-time path: a body that is not of its topic is left to that path,
    // which rejects it with the reason.
    const check = checks.get(delivery.id) ?? checkStoredBody(delivery);
    const checked = check.ok ? check.checked : null;
    if (delivery.topic === 'orders/cancelled') {
      const orders = cancelling.get(delivery.shopDomain) ?? new Set<string>();
      // An order cancelled in this batch (or a cancel we cannot read) keeps its fulfilments out of bulk.
      orders.add(checked?.topic === 'orders/cancelled' ? checked.body.orderId : '*');
      cancelling.set(delivery.shopDomain, orders);
      continue;
    }
    if (checked?.topic !== 'fulfillments/create' && checked?.topic !== 'fulfillments/update') continue;
    // Numbers refused by the bounds are said on the delivery: the one-at-a-time path does that.
    if (describeRefusedNumbers(checked.body.refusedNumbers)) continue;
    const list = byShop.get(delivery.shopDomain) ?? [];
    list.push({ delivery, fulfillment: checked.body });
    byShop.set(delivery.shopDomain, list);
  }

  if (byShop.size === 0) return done;
  // Without a matcher nothing can be applied here; the one-at-a-time path records the error per delivery.
  const matcher = await ctx.carriers.matcher().catch(() => null);
  if (!matcher) return done;
  for (const [domain, all] of byShop) {
    const cancelled = cancelling.get(domain);
    if (cancelled?.has('*') || otherTopics.has(domain)) continue;
    // Bulk items must not depend on the batch's other deliveries, whatever order those are applied in:
    // nothing shares a fulfilment id or a tracking number with another of the shop's deliveries here.
    const uses = new Map<string, number>();
    const count = (key: string) => uses.set(key, (uses.get(key) ?? 0) + 1);
    for (const { fulfillment } of all) {
      count(`f:${fulfillment.fulfillmentId}`);
      for (const n of new Set(fulfillment.trackingNumbers)) count(`n:${n}`);
    }
    const items = all.filter(
      ({ fulfillment: f }) =>
        !cancelled?.has(f.orderId) &&
        uses.get(`f:${f.fulfillmentId}`) === 1 &&
        f.trackingNumbers.every((n) => uses.get(`n:${n}`) === 1),
    );
    if (items.length < 2) continue; // one delivery: the usual path costs the same
    for (const id of await applyShopItems(ctx, token, domain, matcher, items)) done.add(id);
  }
  return done;
}

type BulkItem = { delivery: WebhookDelivery; fulfillment: FulfillmentPayload };

/**
 * One shop's bulk items, in transactions of at most `maxPerTransaction`: each runs on the event loop's thread
 * (SQLite), and the process's calls in flight and requests wait while it does. Returns the deliveries done; a
 * part whose transaction fails (and all of them, when the shop cannot be made) is left to the usual path.
 */
async function applyShopItems(
  ctx: Pick<AppContext, 'prisma' | 'carriers' | 'logger'>,
  token: string,
  domain: string,
  matcher: CarrierMatcher,
  items: readonly BulkItem[],
): Promise<string[]> {
  const fallBack = (deliveries: number, error: unknown) =>
    ctx.logger.warn(
      { shop: domain, deliveries, err: safeReason(error) },
      'bulk apply failed; applying these deliveries one at a time',
    );
  try {
    await ensureShopExists(ctx.prisma, domain);
  } catch (error) {
    fallBack(items.length, error);
    return [];
  }
  const done: string[] = [];
  for (let start = 0; start < items.length; start += maxPerTransaction) {
    const part = items.slice(start, start + maxPerTransaction);
    if (part.length < 2) continue; // one delivery left over: the usual path costs the same
    try {
      done.push(...(await inTransaction(ctx.prisma, (tx) => applyPart(tx, token, domain, matcher, part))));
      await yieldToEventLoop();
    } catch (error) {
      fallBack(part.length, error);
    }
  }
  return done;
}

/** One transaction's part: the fulfilments applied and their deliveries marked done, or nothing at all. */
async function applyPart(
  tx: Tx,
  token: string,
  domain: string,
  matcher: CarrierMatcher,
  part: readonly BulkItem[],
): Promise<string[]> {
  const shop = await ensureShop(tx, domain);
  const match = { matcher, overrides: await carrierOverrides(tx, shop.id) };
  const outcomes = await applyNewFulfillments(
    tx,
    shop,
    part.map((i) => i.fulfillment),
    match,
  );
  const ids = [...outcomes.keys()].map((index) => part[index]!.delivery.id);
  if (ids.length === 0) return ids;
  const count = await markDeliveriesDone(tx, token, ids, { kind: 'applied' });
  // Some lease was taken over meanwhile: undo this part, the usual path sorts it out.
  if (count !== ids.length) throw new Error('a delivery lease was lost during the bulk apply');
  return ids;
}

/** First-seen fulfilments applied in one transaction at most (about 25 ms of SQLite work at 50). */
const maxPerTransaction = 50;

const bulkTopics = new Set(['fulfillments/create', 'fulfillments/update', 'orders/cancelled']);
