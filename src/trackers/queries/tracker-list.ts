import type { DatabaseClient } from '../../db/client.js';
import type { Prisma } from '../../generated/sqlite/client.js';

/**
 * The operators' list of a shop's trackers (the CLI's `trackers:list`): the trackers a filter matches, how
 * many there are, and the shop's lines still waiting for a carrier mapping. Reads only.
 */

/** Which of a shop's trackers are listed. */
export interface TrackerListFilter {
  shopId: string;
  /** The order id sent to the service (Tracker.orderKey), or the store order id of one of its lines. */
  order?: string;
  /** The tracker's sync state (pending, synced, failed, dead). */
  state?: string;
}

function whereOf(filter: TrackerListFilter): Prisma.TrackerWhereInput {
  return {
    shopId: filter.shopId,
    ...(filter.state ? { syncState: filter.state } : {}),
    ...(filter.order
      ? { OR: [{ orderKey: filter.order }, { lines: { some: { orderId: filter.order } } }] }
      : {}),
  };
}

/** How many of the shop's trackers the filter matches (Tracker). */
export function countListedTrackers(prisma: DatabaseClient, filter: TrackerListFilter): Promise<number> {
  return prisma.tracker.count({ where: whereOf(filter) });
}

/**
 * Up to `limit` of the trackers the filter matches, newest first, each with its open problems (oldest
 * first) and its first line by `active` descending: an ended line there means every line ended in the
 * store (a cancelled fulfilment). Reads Tracker, ShipmentProblem and TrackingLine.
 */
export function listedTrackers(prisma: DatabaseClient, filter: TrackerListFilter, limit: number) {
  return prisma.tracker.findMany({
    where: whereOf(filter),
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    take: limit,
    include: {
      problems: {
        where: { closedAt: null },
        select: { kind: true, since: true },
        orderBy: { since: 'asc' },
      },
      // The line it ended with, if every line ended in the store (a cancelled fulfilment).
      lines: { select: { active: true, endedReason: true }, orderBy: { active: 'desc' }, take: 1 },
    },
  });
}

/** A carrier name the shop's waiting lines carry, and how many lines carry it. */
export interface WaitingCarrier {
  carrierName: string | null;
  lines: number;
}

/**
 * The shop's active lines that wait for a carrier mapping (no tracker yet), counted by carrier name; only
 * those of the store order `order` when it is given. Reads TrackingLine; in no particular order.
 */
export async function linesWaitingForCarrier(
  prisma: DatabaseClient,
  shopId: string,
  order?: string,
): Promise<WaitingCarrier[]> {
  const groups = await prisma.trackingLine.groupBy({
    by: ['carrierName'],
    where: {
      shopId,
      active: true,
      trackerId: null,
      ...(order ? { orderId: order } : {}),
    },
    _count: { _all: true },
  });
  return groups.map((g) => ({ carrierName: g.carrierName, lines: g._count._all }));
}
