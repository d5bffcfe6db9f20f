import type { DatabaseClient, Tx } from '../../db/client.js';
import { insertRows } from '../../db/insert-rows.js';
import { leaseGivenBack } from '../../db/lease-queue.js';
import type { StoreTrackingLink } from '../../generated/sqlite/client.js';
import { newRowId } from '../../lib/row-id.js';

/** The store tracking links' rows (src/shipments/tracking-links.ts decides and sends them). */

type Db = DatabaseClient | Tx;

/** A row queued again: pending, due now, a fresh attempt count. */
const pendingNow = (now: Date) => ({ state: 'pending', attempts: 0, nextAttemptAt: now, error: null });

/** Every fulfilment of the shop that wanted the store's links wants the carrier's back: how many. */
export async function wantCarrierLinks(db: Db, shopId: string, now: Date): Promise<number> {
  const { count } = await db.storeTrackingLink.updateMany({
    where: { shopId, wanted: 'store' },
    data: { wanted: 'carrier', ...pendingNow(now) },
  });
  return count;
}

/** Every fulfilment of the shop that wanted the carrier's links, or failed, wants the store's: how many. */
export async function wantStoreLinks(db: Db, shopId: string, now: Date): Promise<number> {
  const { count } = await db.storeTrackingLink.updateMany({
    where: { shopId, OR: [{ wanted: 'carrier' }, { state: 'failed' }] },
    data: { wanted: 'store', ...pendingNow(now) },
  });
  return count;
}

/** The shop's fulfilments with an active line made since `since`. */
export async function fulfillmentsWithLinesSince(db: Db, shopId: string, since: Date): Promise<string[]> {
  const fulfillments = await db.trackingLine.findMany({
    where: { shopId, active: true, createdAt: { gte: since } },
    select: { fulfillmentId: true },
    distinct: ['fulfillmentId'],
  });
  return fulfillments.map((f) => f.fulfillmentId);
}

/** New rows wanting the store's links, due now; a fulfilment that has its row already is left as it is. */
export function insertStoreLinks(
  db: Db,
  shopId: string,
  fulfillmentIds: string[],
  now: Date,
): Promise<string[]> {
  return insertRows(
    db,
    'StoreTrackingLink',
    fulfillmentIds.map((fulfillmentId) => ({
      id: newRowId(),
      shopId,
      fulfillmentId,
      wanted: 'store',
      state: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      createdAt: now,
      updatedAt: now,
    })),
    { skipConflictsOn: ['shopId', 'fulfillmentId'] },
  );
}

/** A fulfilment wants the store's links: its row made, or queued again. */
export async function wantStoreLinksFor(
  tx: Tx,
  shopId: string,
  fulfillmentId: string,
  now: Date,
): Promise<void> {
  await tx.storeTrackingLink.upsert({
    where: { shopId_fulfillmentId: { shopId, fulfillmentId } },
    create: {
      shopId,
      fulfillmentId,
      wanted: 'store',
      nextAttemptAt: now,
    },
    update: { wanted: 'store', ...pendingNow(now) },
    select: { id: true },
  });
}

/** The claimed rows still leased to `token`, with their shop's domain and install state, the longest due first. */
export function leasedStoreLinks(prisma: DatabaseClient, ids: readonly string[], token: string) {
  return prisma.storeTrackingLink.findMany({
    where: { id: { in: [...ids] }, leaseOwner: token },
    include: { shop: { select: { domain: true, uninstalledAt: true } } },
    orderBy: { nextAttemptAt: 'asc' },
  });
}

/** A fulfilment's active lines: number, carrier page and carrier name, in a stable order. */
export function activeLinesOfFulfillment(prisma: DatabaseClient, shopId: string, fulfillmentId: string) {
  return prisma.trackingLine.findMany({
    where: { shopId, fulfillmentId, active: true },
    select: { trackingNumber: true, trackingUrl: true, carrierName: true },
    // The order the numbers came in is not kept; oldest first, then by number, is the same every time.
    orderBy: [{ createdAt: 'asc' }, { trackingNumber: 'asc' }],
  });
}

/**
 * Writes a row's outcome and gives its lease back, while it still wants what it wanted when claimed; else
 * (the merchant flipped the setting meanwhile) only what the store now holds (`sent`), the row left pending.
 */
export async function finishStoreLink(
  prisma: DatabaseClient,
  token: string,
  row: Pick<StoreTrackingLink, 'id' | 'wanted'>,
  data: Partial<
    Pick<StoreTrackingLink, 'state' | 'error' | 'attempts' | 'nextAttemptAt' | 'applied' | 'sentAt'>
  >,
  sent?: 'store' | 'carrier',
): Promise<void> {
  const release = { ...leaseGivenBack };
  const { count } = await prisma.storeTrackingLink.updateMany({
    where: { id: row.id, leaseOwner: token, wanted: row.wanted },
    data: { ...data, ...release },
  });
  if (count === 0)
    await prisma.storeTrackingLink.updateMany({
      where: { id: row.id, leaseOwner: token },
      data: { ...(sent ? { applied: sent } : {}), ...release },
    });
}
