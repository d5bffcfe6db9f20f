import type { DatabaseClient } from '../../db/client.js';
import type { ShopRepository } from '../../shops/shop-repository.js';
import { currentShop } from './current-shop.js';
import { type TrackerState, trackerStateOf } from './tracker-state.js';

export type SummaryState = Exclude<TrackerState, 'removed'>;

export interface ShipmentSummary {
  trackers: Record<SummaryState, number>;
  /** The sum of the counts above (removed trackers are not counted). */
  total: number;
}

/** The shop's shipments by state: trackers by where they stand, and lines waiting for a carrier. */
export async function shipmentSummary(
  deps: { prisma: DatabaseClient; shops: ShopRepository },
  domain: string,
): Promise<ShipmentSummary> {
  const shop = await currentShop(deps.shops, domain);
  const [groups, waiting] = await Promise.all([
    deps.prisma.tracker.groupBy({
      by: ['desired', 'remote', 'syncState'],
      where: { shopId: shop.id },
      _count: { _all: true },
    }),
    deps.prisma.trackingLine.count({ where: { shopId: shop.id, active: true, trackerId: null } }),
  ]);
  const trackers: Record<SummaryState, number> = {
    creating: 0,
    active: 0,
    removing: 0,
    failed: 0,
    dead: 0,
    waiting_carrier: waiting,
  };
  for (const group of groups) {
    const state = trackerStateOf(group);
    if (state !== 'removed') trackers[state] += group._count._all;
  }
  const total = Object.values(trackers).reduce((sum, n) => sum + n, 0);
  return { trackers, total };
}
