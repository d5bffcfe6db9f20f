import type { DatabaseClient } from '../../db/client.js';

/**
 * The line that stands for each tracker given, in lists of trackers (attention, failures, refused store
 * updates): the newest of its lines, a wanted line before an ended one. Read by the (trackerId) index, for
 * one page's trackers.
 */
export async function lineOfEachTracker(
  prisma: DatabaseClient,
  shopId: string,
  trackerIds: readonly string[],
) {
  const ids = [...new Set(trackerIds)];
  const lines =
    ids.length === 0
      ? []
      : await prisma.trackingLine.findMany({
          where: { shopId, trackerId: { in: ids } },
          select: { trackerId: true, orderId: true, orderName: true, carrierName: true, active: true },
          orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }],
        });
  // Lines come oldest first: the newest wins, and a wanted line wins over an ended one.
  const lineOf = new Map<string, (typeof lines)[number]>();
  for (const line of lines) {
    if (line.trackerId === null) continue;
    const known = lineOf.get(line.trackerId);
    if (!known || line.active || !known.active) lineOf.set(line.trackerId, line);
  }
  return lineOf;
}

/** The order name of each tracker's line (see lineOfEachTracker); trackers whose line has none are left out. */
export async function orderNamesOfTrackers(
  prisma: DatabaseClient,
  shopId: string,
  trackerIds: readonly string[],
): Promise<Map<string, string>> {
  const lines = await lineOfEachTracker(prisma, shopId, trackerIds);
  return new Map(
    [...lines].flatMap(([id, line]) => (line.orderName === null ? [] : [[id, line.orderName] as const])),
  );
}
