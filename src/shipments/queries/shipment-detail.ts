import type { DatabaseClient } from '../../db/client.js';

/**
 * The queries of one shipment's timeline (the admin's detail): the shop's tracker by id, its line (an
 * active one first, then the newest), the newest store updates queued for it, and the fulfilments its
 * wanted lines belong to. All by primary key or (trackerId) index.
 */

/** The tracker when it is this shop's; null otherwise (another shop's id tells nothing). */
export function shopTracker(prisma: DatabaseClient, shopId: string, trackerId: string) {
  return prisma.tracker.findFirst({ where: { id: trackerId, shopId } });
}

export function lineOfTracker(prisma: DatabaseClient, shopId: string, trackerId: string) {
  return prisma.trackingLine.findFirst({
    where: { trackerId, shopId },
    orderBy: [{ active: 'desc' }, { updatedAt: 'desc' }],
  });
}

export function storeEventsOfTracker(
  prisma: DatabaseClient,
  shopId: string,
  trackerId: string,
  take: number,
) {
  return prisma.storeFulfillmentEvent.findMany({
    where: { trackerId, shopId },
    orderBy: [{ happenedAt: 'desc' }, { createdAt: 'desc' }],
    take,
  });
}

/** The store fulfilments the tracker's wanted lines belong to (where a read's store updates go). */
export function wantedFulfillmentsOf(prisma: DatabaseClient, shopId: string, trackerId: string) {
  return prisma.trackingLine.findMany({
    where: { trackerId, shopId, active: true },
    select: { fulfillmentId: true },
  });
}
