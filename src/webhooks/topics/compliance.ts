import { customersDataRequestPayload, customersRedactPayload } from '../payloads.js';
import { describeIssues, type TopicContext, type TopicHandler } from './types.js';

/**
 * The platform's mandatory privacy topics. What this app holds about a customer: for each of their
 * orders, tracking numbers with the destination postal code and country, and the raw webhook bodies
 * (which carry names and addresses) until they are processed — processed bodies are emptied at once.
 */

/** customers/data_request: records what is held for the orders asked about, for the merchant to hand over. */
export const handleCustomersDataRequest: TopicHandler = async (ctx, payload) => {
  const parsed = customersDataRequestPayload.safeParse(payload);
  if (!parsed.success) return { kind: 'rejected', detail: `data request: ${describeIssues(parsed.error)}` };
  const shop = await ctx.tx.shop.findUnique({ where: { domain: ctx.shopDomain } });
  const orders = parsed.data.orders_requested;
  const lines = shop
    ? await ctx.tx.trackingLine.findMany({
        where: { shopId: shop.id, orderId: { in: orders } },
        select: {
          orderId: true,
          orderName: true,
          trackingNumber: true,
          carrierName: true,
          postalCode: true,
          destinationCountry: true,
        },
      })
    : [];
  await ctx.tx.complianceRequest.create({
    data: {
      shopDomain: ctx.shopDomain,
      topic: 'customers/data_request',
      summary: JSON.stringify({ ordersRequested: orders, dataHeld: lines }),
    },
  });
  return {
    kind: 'applied',
    detail: `${lines.length} tracking line(s) reported for ${orders.length} order(s)`,
  };
};

/** customers/redact: forgets the destination of the customer's orders and any body still mentioning them. */
export const handleCustomersRedact: TopicHandler = async (ctx, payload) => {
  const parsed = customersRedactPayload.safeParse(payload);
  if (!parsed.success) return { kind: 'rejected', detail: `redact request: ${describeIssues(parsed.error)}` };
  const orders = parsed.data.orders_to_redact;
  const shop = await ctx.tx.shop.findUnique({ where: { domain: ctx.shopDomain } });
  let lines = 0;
  if (shop && orders.length > 0) {
    const redacted = { postalCode: null, destinationCountry: null };
    lines = (
      await ctx.tx.trackingLine.updateMany({
        where: { shopId: shop.id, orderId: { in: orders } },
        data: redacted,
      })
    ).count;
    const trackerIds = await ctx.tx.trackingLine.findMany({
      where: { shopId: shop.id, orderId: { in: orders }, trackerId: { not: null } },
      select: { trackerId: true },
    });
    await ctx.tx.tracker.updateMany({
      where: { id: { in: trackerIds.map((t) => t.trackerId!) } },
      data: redacted,
    });
  }
  // Answers to earlier data requests list the same destinations: drop these orders' entries from them.
  const answers = orders.length > 0 ? await forgetInDataRequestAnswers(ctx, new Set(orders)) : 0;
  let bodies = 0;
  for (const orderId of orders) {
    bodies += (
      await ctx.tx.webhookDelivery.updateMany({
        where: { shopDomain: ctx.shopDomain, payload: { contains: orderId } },
        data: { payload: '' },
      })
    ).count;
  }
  await ctx.tx.complianceRequest.create({
    data: {
      shopDomain: ctx.shopDomain,
      topic: 'customers/redact',
      summary: JSON.stringify({ orders, lines, bodies, answers }),
    },
  });
  return { kind: 'applied', detail: `redacted ${lines} tracking line(s) and ${bodies} stored body(ies)` };
};

/** Removes the given orders' entries from the shop's recorded data-request answers; returns how many changed. */
async function forgetInDataRequestAnswers(ctx: TopicContext, orders: ReadonlySet<string>): Promise<number> {
  const answers = await ctx.tx.complianceRequest.findMany({
    where: { shopDomain: ctx.shopDomain, topic: 'customers/data_request' },
  });
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
    await ctx.tx.complianceRequest.update({
      where: { id: answer.id },
      data: { summary: JSON.stringify({ ...summary, dataHeld: kept }) },
    });
    changed++;
  }
  return changed;
}

/** shop/redact: everything the app holds for the shop goes. */
export const handleShopRedact: TopicHandler = async (ctx) => {
  const shops = (await ctx.tx.shop.deleteMany({ where: { domain: ctx.shopDomain } })).count;
  const deliveries = (
    await ctx.tx.webhookDelivery.updateMany({ where: { shopDomain: ctx.shopDomain }, data: { payload: '' } })
  ).count;
  // Earlier data-request answers hold the shop's customers' destinations too.
  await ctx.tx.complianceRequest.deleteMany({
    where: { shopDomain: ctx.shopDomain, topic: 'customers/data_request' },
  });
  await ctx.tx.complianceRequest.create({
    data: {
      shopDomain: ctx.shopDomain,
      topic: 'shop/redact',
      summary: JSON.stringify({ shops, deliveries }),
    },
  });
  return {
    kind: 'applied',
    detail: `shop data deleted (${shops} shop row(s), ${deliveries} stored body(ies) emptied)`,
  };
};
