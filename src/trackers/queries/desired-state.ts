import type { Tx } from '../../db/client.js';
import type { Fulfillment, Prisma, Tracker, TrackingLine } from '../../generated/sqlite/client.js';

/**
 * The desired state's reads and writes (src/trackers/desired-state.ts): a shop's fulfilments, tracking
 * lines, cancelled orders and trackers, each in the use case's transaction.
 */

/** The shop's fulfilment row of this store fulfilment, if any. */
export function fulfillmentRow(tx: Tx, shopId: string, fulfillmentId: string): Promise<Fulfillment | null> {
  return tx.fulfillment.findUnique({ where: { shopId_fulfillmentId: { shopId, fulfillmentId } } });
}

/** Rewrites a fulfilment row's columns. */
export async function updateFulfillmentRow(
  tx: Tx,
  id: string,
  data: Prisma.FulfillmentUncheckedUpdateInput,
): Promise<void> {
  await tx.fulfillment.update({ where: { id }, data, select: { id: true } });
}

/** Makes a fulfilment row. */
export async function createFulfillmentRow(
  tx: Tx,
  data: Prisma.FulfillmentUncheckedCreateInput,
): Promise<void> {
  await tx.fulfillment.create({ data, select: { id: true } });
}

/** Every line of a store fulfilment. */
export function linesOfFulfillment(tx: Tx, shopId: string, fulfillmentId: string): Promise<TrackingLine[]> {
  return tx.trackingLine.findMany({ where: { shopId, fulfillmentId } });
}

/** Whether the store cancelled the order. */
export async function isOrderCancelled(tx: Tx, shopId: string, orderId: string): Promise<boolean> {
  return (
    (await tx.cancelledOrder.findUnique({
      where: { shopId_orderId: { shopId, orderId } },
    })) !== null
  );
}

/** Records an order cancelled in the store (kept as first recorded). */
export async function recordCancelledOrder(
  tx: Tx,
  shopId: string,
  orderId: string,
  cancelledAt: Date,
): Promise<void> {
  await tx.cancelledOrder.upsert({
    where: { shopId_orderId: { shopId, orderId } },
    update: {},
    create: { shopId, orderId, cancelledAt },
  });
}

/** The shop's trackers of these numbers with this provider: id and number. */
export function trackerIdsOfNumbers(
  tx: Tx,
  shopId: string,
  provider: string,
  numbers: string[],
): Promise<Array<{ id: string; trackingNumber: string }>> {
  return tx.tracker.findMany({
    where: { shopId, provider, trackingNumber: { in: numbers } },
    select: { id: true, trackingNumber: true },
  });
}

/** Writes the same columns on these lines. */
export async function updateLines(
  tx: Tx,
  ids: string[],
  data: Prisma.TrackingLineUncheckedUpdateManyInput,
): Promise<void> {
  await tx.trackingLine.updateMany({ where: { id: { in: ids } }, data });
}

/** Sets a line's carrier tracking page. */
export async function setLineTrackingUrl(tx: Tx, id: string, trackingUrl: string | null): Promise<void> {
  await tx.trackingLine.update({ where: { id }, data: { trackingUrl }, select: { id: true } });
}

/** The order's active lines. */
export function activeLinesOfOrder(tx: Tx, shopId: string, orderId: string): Promise<TrackingLine[]> {
  return tx.trackingLine.findMany({
    where: { shopId, orderId, active: true },
  });
}

/** The shop's active lines of a carrier key, or (null) those still waiting for a carrier. */
export function activeLinesToRemap(
  tx: Tx,
  shopId: string,
  carrierKey: string | null,
): Promise<TrackingLine[]> {
  const where =
    carrierKey !== null ? { shopId, active: true, carrierKey } : { shopId, active: true, trackerId: null };
  return tx.trackingLine.findMany({ where });
}

/** PostgreSQL: locks these trackers' rows, in id order (`ids` sorted). */
export async function lockTrackerRows(tx: Tx, ids: string[]): Promise<void> {
  await tx.$queryRawUnsafe(
    `SELECT "id" FROM "Tracker" WHERE "id" = ANY($1::text[]) ORDER BY "id" FOR UPDATE`,
    ids,
  );
}

/** The shop's tracker of this number and provider, made from `create` when there is none: its id. */
export async function ensureTracker(
  tx: Tx,
  key: { shopId: string; trackingNumber: string; provider: string },
  create: Prisma.TrackerUncheckedCreateInput,
): Promise<string> {
  const tracker = await tx.tracker.upsert({
    where: { shopId_trackingNumber_provider: key },
    update: {},
    create,
    select: { id: true },
  });
  return tracker.id;
}

/** Sets a line's tracker. */
export async function setLineTracker(tx: Tx, id: string, trackerId: string | null): Promise<void> {
  await tx.trackingLine.update({ where: { id }, data: { trackerId } });
}

/** Points a line at a tracker (only the id read back). */
export async function pointLineAtTracker(tx: Tx, id: string, trackerId: string): Promise<void> {
  await tx.trackingLine.update({ where: { id }, data: { trackerId }, select: { id: true } });
}

/** These trackers' rows. */
export function trackersByIds(tx: Tx, ids: string[]): Promise<Tracker[]> {
  return tx.tracker.findMany({ where: { id: { in: ids } } });
}

/** These trackers' active lines, the newest first: their destination. */
export function activeLineDestinations(
  tx: Tx,
  trackerIds: string[],
): Promise<Array<Pick<TrackingLine, 'trackerId' | 'postalCode' | 'destinationCountry'>>> {
  return tx.trackingLine.findMany({
    where: { trackerId: { in: trackerIds }, active: true },
    orderBy: { updatedAt: 'desc' },
    select: { trackerId: true, postalCode: true, destinationCountry: true },
  });
}

/** A tracker's row, if any. */
export function trackerById(tx: Tx, id: string): Promise<Tracker | null> {
  return tx.tracker.findUnique({ where: { id } });
}

/** A tracker's newest active line, if any. */
export function newestActiveLine(tx: Tx, trackerId: string): Promise<TrackingLine | null> {
  return tx.trackingLine.findFirst({
    where: { trackerId, active: true },
    orderBy: { updatedAt: 'desc' },
  });
}

/** Writes a tracker's derived state while it is still at `version`: how many rows (0: it changed). */
export async function writeTrackerAtVersion(
  tx: Tx,
  id: string,
  version: number,
  data: Prisma.TrackerUpdateManyMutationInput,
): Promise<number> {
  const { count } = await tx.tracker.updateMany({ where: { id, version }, data });
  return count;
}
