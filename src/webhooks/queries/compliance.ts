import type { Tx } from '../../db/client.js';

/**
 * The privacy topics' reads and writes (src/webhooks/topics/compliance.ts), each in the delivery's
 * transaction: what is held for a customer's orders, its redaction, a shop's deletion, and the record of
 * every request.
 */

/** Records a compliance request and what was done about it. */
export async function recordComplianceRequest(
  tx: Tx,
  shopDomain: string,
  topic: string,
  summary: string,
): Promise<void> {
  await tx.complianceRequest.create({ data: { shopDomain, topic, summary } });
}

/** Orders per statement when reading what is held for them: far below both databases' parameter limits. */
const ordersPerRead = 500;

/** What the shop holds of these orders' tracking lines: the data a data request reports. */
export async function heldLinesOfOrders(tx: Tx, shopId: string, orders: string[]) {
  const held = [];
  for (let i = 0; i < orders.length; i += ordersPerRead) {
    held.push(
      ...(await tx.trackingLine.findMany({
        where: { shopId, orderId: { in: orders.slice(i, i + ordersPerRead) } },
        select: {
          orderId: true,
          orderName: true,
          trackingNumber: true,
          carrierName: true,
          postalCode: true,
          destinationCountry: true,
        },
      })),
    );
  }
  return held;
}

/** Clears the customer's e-mail hash from the shop's fulfilments of these orders: how many. */
export async function forgetOrderEmails(tx: Tx, shopId: string, orders: string[]): Promise<number> {
  const { count } = await tx.fulfillment.updateMany({
    where: { shopId, orderId: { in: orders }, customerEmailHash: { not: null } },
    data: { customerEmailHash: null },
  });
  return count;
}

/** Clears this e-mail hash from every fulfilment of the shop that has it (other orders of the customer). */
export async function forgetEmailHash(tx: Tx, shopId: string, hash: string): Promise<number> {
  const { count } = await tx.fulfillment.updateMany({
    where: { shopId, customerEmailHash: hash },
    data: { customerEmailHash: null },
  });
  return count;
}

/** The shop's customers were redacted now: the shoppers' page's cached orders from before are not used. */
export async function markCustomersRedacted(tx: Tx, shopId: string): Promise<void> {
  await tx.shop.update({ where: { id: shopId }, data: { customersRedactedAt: new Date() } });
}

/**
 * Forgets the destination of these orders' tracking lines and of their trackers, and marks the lines
 * redacted at `at` (share links to them made before open nothing): how many lines. Two statements of
 * `orders.length` parameters each (the trackers through their lines, by the (shopId, orderId) index).
 */
export async function forgetOrderDestinations(
  tx: Tx,
  shopId: string,
  orders: string[],
  at: Date,
): Promise<number> {
  const redacted = { postalCode: null, destinationCountry: null };
  await tx.tracker.updateMany({
    where: {
      shopId,
      lines: { some: { shopId, orderId: { in: orders } } },
      OR: [{ postalCode: { not: null } }, { destinationCountry: { not: null } }],
    },
    data: redacted,
  });
  const { count } = await tx.trackingLine.updateMany({
    where: { shopId, orderId: { in: orders } },
    data: { ...redacted, redactedAt: at },
  });
  return count;
}

/** One page of stored bodies (oldest first, after `after`), with where the next page starts. */
export interface BodyPage {
  bodies: Array<{ id: string; topic: string; payload: string }>;
  next: { receivedAt: Date; id: string } | null;
}

/**
 * A page of the shop's stored bodies in one state (pending and failed deliveries are the only ones that
 * keep a body: a processed one is emptied at once), read on the (shopDomain, state, receivedAt, id) index
 * after `after`: what a redact reads to find the bodies naming its orders, a page at a time.
 */
export async function storedBodiesPage(
  tx: Tx,
  shopDomain: string,
  state: 'pending' | 'failed',
  after: { receivedAt: Date; id: string } | null,
  take: number,
): Promise<BodyPage> {
  const rows = await tx.webhookDelivery.findMany({
    where: {
      shopDomain,
      state,
      ...(after
        ? {
            OR: [
              { receivedAt: { gt: after.receivedAt } },
              { receivedAt: after.receivedAt, id: { gt: after.id } },
            ],
          }
        : {}),
    },
    select: { id: true, topic: true, payload: true, receivedAt: true },
    orderBy: [{ receivedAt: 'asc' }, { id: 'asc' }],
    take,
  });
  const last = rows.at(-1);
  return {
    bodies: rows.filter((r) => r.payload !== '').map(({ id, topic, payload }) => ({ id, topic, payload })),
    next: last && rows.length === take ? { receivedAt: last.receivedAt, id: last.id } : null,
  };
}

/** Empties these deliveries' stored bodies: how many. */
export async function emptyDeliveryBodies(tx: Tx, ids: string[]): Promise<number> {
  const { count } = await tx.webhookDelivery.updateMany({
    where: { id: { in: ids }, payload: { not: '' } },
    data: { payload: '' },
  });
  return count;
}

/** The shop's recorded data-request answers. */
export function dataRequestAnswers(tx: Tx, shopDomain: string) {
  return tx.complianceRequest.findMany({
    where: { shopDomain, topic: 'customers/data_request' },
  });
}

/** Rewrites a recorded answer's summary. */
export async function rewriteComplianceSummary(tx: Tx, id: string, summary: string): Promise<void> {
  await tx.complianceRequest.update({ where: { id }, data: { summary } });
}

/**
 * shop/redact: deletes the shop's sessions and row (its rows cascade), then its rollups (they have no key
 * to the shop: their triggers write while its rows cascade away), empties its stored bodies and drops its
 * data-request answers. How many sessions, shop rows and bodies.
 */
export async function deleteShopData(
  tx: Tx,
  shopDomain: string,
): Promise<{ sessions: number; shops: number; deliveries: number }> {
  const sessions = (await tx.session.deleteMany({ where: { shop: shopDomain } })).count;
  const shopRow = await tx.shop.findUnique({ where: { domain: shopDomain }, select: { id: true } });
  const shops = (await tx.shop.deleteMany({ where: { domain: shopDomain } })).count;
  if (shopRow) {
    // The rollups have no key to the shop (their triggers write while its rows cascade away): after it.
    await tx.shipmentCount.deleteMany({ where: { shopId: shopRow.id } });
    await tx.deliveryCount.deleteMany({ where: { shopId: shopRow.id } });
    await tx.shipmentCountDelta.deleteMany({ where: { shopId: shopRow.id } });
    await tx.deliveryCountDelta.deleteMany({ where: { shopId: shopRow.id } });
    await tx.carrierCount.deleteMany({ where: { shopId: shopRow.id } });
    await tx.carrierCountDelta.deleteMany({ where: { shopId: shopRow.id } });
  }
  const deliveries = (await tx.webhookDelivery.updateMany({ where: { shopDomain }, data: { payload: '' } }))
    .count;
  // Earlier data-request answers hold the shop's customers' destinations too.
  await tx.complianceRequest.deleteMany({
    where: { shopDomain, topic: 'customers/data_request' },
  });
  return { sessions, shops, deliveries };
}

/** Whether the shop has a live offline session (or one whose expiring token can still be renewed). */
export async function hasLiveOfflineSession(tx: Tx, shopDomain: string, now: Date): Promise<boolean> {
  const live = await tx.session.findFirst({
    where: {
      shop: shopDomain,
      isOnline: false,
      accessToken: { not: '' },
      OR: [
        { expires: null },
        { expires: { gt: now } },
        // An expired expiring token that can still be renewed is as good as a live one.
        {
          refreshToken: { not: null },
          OR: [{ refreshTokenExpires: null }, { refreshTokenExpires: { gt: now } }],
        },
      ],
    },
    select: { id: true },
  });
  return live !== null;
}

/** When the shop was uninstalled, if it was (null also when there is no row). */
export async function shopUninstalledAt(tx: Tx, shopDomain: string): Promise<Date | null> {
  const shop = await tx.shop.findUnique({
    where: { domain: shopDomain },
    select: { uninstalledAt: true },
  });
  return shop?.uninstalledAt ?? null;
}
