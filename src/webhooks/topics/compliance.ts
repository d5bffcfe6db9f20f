import { customerEmailHash, plausibleEmail } from '../../lib/email-hash.js';
import type { Tx } from '../../db/client.js';
import type { CustomersRedactPayload } from '../payloads.js';
import {
  type BodyPage,
  dataRequestAnswers,
  deleteShopData,
  emptyDeliveryBodies,
  forgetEmailHash,
  forgetOrderDestinations,
  forgetOrderEmails,
  hasLiveOfflineSession,
  heldLinesOfOrders,
  markCustomersRedacted,
  recordComplianceRequest,
  rewriteComplianceSummary,
  shopUninstalledAt,
  storedBodiesPage,
} from '../queries/compliance.js';
import { shopByDomain } from '../../shops/shop-repository.js';
import type { RedactCounts, TopicContext, TopicHandler } from './types.js';

/**
 * The platform's mandatory privacy topics. What this app holds about a customer: for each of their
 * orders, tracking numbers with the destination postal code and country, and the raw webhook bodies
 * (which carry names and addresses) until they are processed — processed bodies are emptied at once.
 */

/** customers/data_request: records what is held for the orders asked about, for the merchant to hand over. */
export const handleCustomersDataRequest: TopicHandler<'customers/data_request'> = async (ctx, request) => {
  const shop = await shopByDomain(ctx.tx, ctx.shopDomain);
  const orders = request.orders_requested;
  const lines = shop ? await heldLinesOfOrders(ctx.tx, shop.id, orders) : [];
  await recordComplianceRequest(
    ctx.tx,
    ctx.shopDomain,
    'customers/data_request',
    JSON.stringify({ ordersRequested: orders, dataHeld: lines }),
  );
  return {
    kind: 'applied',
    detail: `${lines.length} tracking line(s) reported for ${orders.length} order(s)`,
  };
};

/** Orders per statement of a redact: far below both databases' parameter limits (SQLite 32 766, PostgreSQL 65 535). */
export const redactOrdersPerStatement = 500;
/** Orders per transaction when a redact is applied in steps: each transaction short, never near a time limit. */
export const redactOrdersPerStep = 2_000;
/** Stored bodies read per page (and per transaction) when looking for those naming the redacted orders. */
export const redactBodiesPerPage = 200;

/** Runs one step of work in a transaction: its own short one (the worker), or the caller's. */
export type StepRunner = <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;

/**
 * The bulk of a customers/redact, in bounded steps: the orders' fulfilments lose the customer's e-mail hash
 * and their tracking lines and trackers the destination (lines marked redacted, which kills share links made
 * before), `redactOrdersPerStatement` orders per statement and `redactOrdersPerStep` per transaction; the
 * customer's e-mail hash goes from the shop's other fulfilments; then every stored body of the shop naming
 * one of the orders is emptied, a page of bodies per transaction. Each step is idempotent: a redact
 * interrupted part-way and tried again finishes the job.
 *
 * Stored bodies of customers/redact itself are left alone: they are erasures still to be applied (each is
 * emptied once applied); emptying one would lose its other orders. `self` is the delivery being applied.
 */
export async function redactInSteps(
  run: StepRunner,
  shopDomain: string,
  request: CustomersRedactPayload,
  self: string | null,
): Promise<RedactCounts> {
  const counts: RedactCounts = { lines: 0, emails: 0, bodies: 0 };
  const orders = [...new Set(request.orders_to_redact)];
  const shop = await run((tx) => shopByDomain(tx, shopDomain));
  if (shop) {
    const at = new Date();
    for (const step of chunks(orders, redactOrdersPerStep)) {
      await run(async (tx) => {
        for (const part of chunks(step, redactOrdersPerStatement)) {
          counts.emails += await forgetOrderEmails(tx, shop.id, part);
          counts.lines += await forgetOrderDestinations(tx, shop.id, part, at);
        }
      });
    }
    const email = plausibleEmail(request.customer?.email);
    if (email)
      counts.emails += await run((tx) => forgetEmailHash(tx, shop.id, customerEmailHash(shop.id, email)));
  }
  if (orders.length > 0) counts.bodies = await forgetBodiesNaming(run, shopDomain, new Set(orders), self);
  return counts;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * customers/redact: forgets the destination of the customer's orders and any body still mentioning them,
 * and everything that finds their orders on the shoppers' page: the e-mail hash of the orders named and
 * of every other fulfilment with the customer's e-mail, share links to them made before (the lines'
 * `redactedAt`), and (through the shop's `customersRedactedAt`) the page's cached answers of which orders
 * a logged-in customer has.
 *
 * The worker applies the bulk in steps of their own before the delivery's transaction (`ctx.prepared`,
 * see prepareDelivery); called without that, the same steps run in the delivery's transaction. What is
 * recorded says how many orders and rows, never the order ids: once applied, nothing keeps the list.
 */
export const handleCustomersRedact: TopicHandler<'customers/redact'> = async (ctx, request) => {
  const counts =
    ctx.prepared?.topic === 'customers/redact'
      ? ctx.prepared.counts
      : await redactInSteps((work) => work(ctx.tx), ctx.shopDomain, request, null);
  const orders = request.orders_to_redact;
  const shop = await shopByDomain(ctx.tx, ctx.shopDomain);
  if (shop) await markCustomersRedacted(ctx.tx, shop.id);
  // Answers to earlier data requests list the same destinations: drop these orders' entries from them.
  const answers = orders.length > 0 ? await forgetInDataRequestAnswers(ctx, new Set(orders)) : 0;
  const { lines, emails, bodies } = counts;
  await recordComplianceRequest(
    ctx.tx,
    ctx.shopDomain,
    'customers/redact',
    JSON.stringify({ orders: new Set(orders).size, lines, emails, bodies, answers }),
  );
  return {
    kind: 'applied',
    detail: `redacted ${lines} tracking line(s), ${emails} fulfilment e-mail(s) and ${bodies} stored body(ies)`,
  };
};

/**
 * Empties the shop's stored bodies (pending or failed ones: processed bodies are emptied already) that name
 * one of the orders, matched by exact id where a body names an order — never as a substring, so redacting
 * order 1 leaves order 12's bodies alone. Read a page at a time on the shop's index, whatever the number of
 * orders (no statement grows with it).
 */
async function forgetBodiesNaming(
  run: StepRunner,
  shopDomain: string,
  orders: ReadonlySet<string>,
  self: string | null,
): Promise<number> {
  let emptied = 0;
  for (const state of ['pending', 'failed'] as const) {
    let after: BodyPage['next'] = null;
    do {
      const cursor: BodyPage['next'] = after;
      const page = await run(async (tx) => {
        const read = await storedBodiesPage(tx, shopDomain, state, cursor, redactBodiesPerPage);
        const naming = read.bodies.filter(
          (d) =>
            d.id !== self &&
            d.topic !== 'customers/redact' &&
            ordersNamedBy(d.topic, d.payload).some((id) => orders.has(id)),
        );
        if (naming.length > 0)
          emptied += await emptyDeliveryBodies(
            tx,
            naming.map((d) => d.id),
          );
        return read;
      });
      after = page.next;
    } while (after);
  }
  return emptied;
}

/** The order ids a stored body names: its own id for an order topic, `order_id`, and listed orders. */
export function ordersNamedBy(topic: string, payload: string): string[] {
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return [];
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
  const record = body as Record<string, unknown>;
  const ids: unknown[] = [record.order_id];
  if (topic.startsWith('orders/')) ids.push(record.id);
  for (const list of [record.orders_to_redact, record.orders_requested, record.fulfillments]) {
    if (!Array.isArray(list)) continue;
    for (const item of list as unknown[]) {
      ids.push(item !== null && typeof item === 'object' ? (item as Record<string, unknown>).order_id : item);
    }
  }
  return ids
    .filter((id): id is string | number => typeof id === 'string' || typeof id === 'number')
    .map((id) => String(id).trim());
}

/** Removes the given orders' entries from the shop's recorded data-request answers; returns how many changed. */
async function forgetInDataRequestAnswers(ctx: TopicContext, orders: ReadonlySet<string>): Promise<number> {
  const answers = await dataRequestAnswers(ctx.tx, ctx.shopDomain);
  let changed = 0;
  for (const answer of answers) {
    let summary: { dataHeld?: unknown };
    try {
      summary = JSON.parse(answer.summary) as { dataHeld?: unknown };
    } catch {
      continue;
    }
    const held = Array.isArray(summary.dataHeld) ? (summary.dataHeld as Array<{ orderId?: unknown }>) : [];
    const kept = held.filter((line) => !orders.has(String(line.orderId)));
    if (kept.length === held.length) continue;
    await rewriteComplianceSummary(ctx.tx, answer.id, JSON.stringify({ ...summary, dataHeld: kept }));
    changed++;
  }
  return changed;
}

/**
 * shop/redact: everything the app holds for the shop goes, its sessions included — unless the shop is
 * still installed (a live offline session, and no app/uninstalled since it was made: uninstalling deletes
 * the sessions and marks the shop). The platform sends shop/redact 48 hours after an uninstall, so a redact
 * for an installed shop is not the platform's: it changes nothing and is only recorded, with why.
 */
export const handleShopRedact: TopicHandler<'shop/redact'> = async (ctx) => {
  const installed = await stillInstalled(ctx);
  if (installed) {
    await recordComplianceRequest(
      ctx.tx,
      ctx.shopDomain,
      'shop/redact',
      JSON.stringify({ refused: installed }),
    );
    return { kind: 'ignored', detail: `shop data kept: ${installed}` };
  }
  const { sessions, shops, deliveries } = await deleteShopData(ctx.tx, ctx.shopDomain);
  await recordComplianceRequest(
    ctx.tx,
    ctx.shopDomain,
    'shop/redact',
    JSON.stringify({ shops, sessions, deliveries }),
  );
  return {
    kind: 'applied',
    detail: `shop data deleted (${shops} shop row(s), ${sessions} session(s), ${deliveries} stored body(ies) emptied)`,
  };
};

/** Why the shop counts as installed, or null when it does not. */
async function stillInstalled(ctx: TopicContext): Promise<string | null> {
  const now = new Date();
  if (!(await hasLiveOfflineSession(ctx.tx, ctx.shopDomain, now))) return null;
  if (await shopUninstalledAt(ctx.tx, ctx.shopDomain)) return null;
  return 'the shop is still installed (it has a live offline session and no app/uninstalled after it)';
}
