import { customerEmailHash, plausibleEmail } from '../../lib/email-hash.js';
import {
  bodiesMentioning,
  dataRequestAnswers,
  deleteShopData,
  emptyDeliveryBodies,
  forgetFulfillmentEmails,
  forgetOrderDestinations,
  hasLiveOfflineSession,
  heldLinesOfOrders,
  markCustomersRedacted,
  recordComplianceRequest,
  rewriteComplianceSummary,
  shopUninstalledAt,
} from '../queries/compliance.js';
import { shopByDomain } from '../../shops/shop-repository.js';
import type { TopicContext, TopicHandler } from './types.js';

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

/**
 * customers/redact: forgets the destination of the customer's orders and any body still mentioning them,
 * and everything that finds their orders on the shoppers' page: the e-mail hash of the orders named and
 * of every other fulfilment with the customer's e-mail, and (through the shop's `customersRedactedAt`)
 * the page's cached answers of which orders a logged-in customer has.
 */
export const handleCustomersRedact: TopicHandler<'customers/redact'> = async (ctx, request) => {
  const orders = request.orders_to_redact;
  const shop = await shopByDomain(ctx.tx, ctx.shopDomain);
  let lines = 0;
  let emails = 0;
  if (shop) {
    const email = plausibleEmail(request.customer?.email);
    const byEmail = email ? [{ customerEmailHash: customerEmailHash(shop.id, email) }] : [];
    emails = await forgetFulfillmentEmails(ctx.tx, shop.id, orders, byEmail);
    await markCustomersRedacted(ctx.tx, shop.id);
  }
  if (shop && orders.length > 0) {
    lines = await forgetOrderDestinations(ctx.tx, shop.id, orders);
  }
  // Answers to earlier data requests list the same destinations: drop these orders' entries from them.
  const answers = orders.length > 0 ? await forgetInDataRequestAnswers(ctx, new Set(orders)) : 0;
  const bodies = orders.length > 0 ? await forgetBodiesNaming(ctx, new Set(orders)) : 0;
  await recordComplianceRequest(
    ctx.tx,
    ctx.shopDomain,
    'customers/redact',
    JSON.stringify({ orders, lines, emails, bodies, answers }),
  );
  return {
    kind: 'applied',
    detail: `redacted ${lines} tracking line(s), ${emails} fulfilment e-mail(s) and ${bodies} stored body(ies)`,
  };
};

/**
 * Empties the shop's stored bodies (unprocessed or failed ones: processed bodies are emptied already) that
 * name one of the orders, matched by exact id where a body names an order — never as a substring, so
 * redacting order 1 leaves order 12's bodies alone. The text search only narrows the candidates.
 */
async function forgetBodiesNaming(ctx: TopicContext, orders: ReadonlySet<string>): Promise<number> {
  const candidates = await bodiesMentioning(ctx.tx, ctx.shopDomain, orders);
  const naming = candidates.filter((d) => ordersNamedBy(d.topic, d.payload).some((id) => orders.has(id)));
  if (naming.length === 0) return 0;
  return emptyDeliveryBodies(
    ctx.tx,
    naming.map((d) => d.id),
  );
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
