import { type CarrierRepository, carrierOverrides } from '../../carriers/carrier-repository.js';
import type { CarrierMatch } from '../../carriers/match.js';
import type { DatabaseClient } from '../../db/client.js';
import type { ShopRepository } from '../../shops/shop-repository.js';
import { currentShop } from './current-shop.js';

export interface SeenCarrier {
  /** The newest raw name the store sent for this carrier (names are grouped after folding). */
  name: string;
  mappedTo: string | null;
  source: CarrierMatch['source'];
  /** Fulfilments whose lines carry this name. */
  fulfillments: number;
  /** Active lines with this name still waiting for a carrier (no tracker yet). */
  waiting: number;
}

/**
 * Every carrier name the shop's fulfilments used, with what it maps to now (the shop's own mappings,
 * then the platform's names, then the service's list): unmapped names first, then by name.
 */
export async function listSeenCarriers(
  deps: { prisma: DatabaseClient; shops: ShopRepository; carriers: CarrierRepository },
  domain: string,
): Promise<{ carriers: SeenCarrier[] }> {
  const shop = await currentShop(deps.shops, domain);
  const where = { shopId: shop.id, carrierKey: { not: null } };
  const [names, fulfilments, waiting] = await Promise.all([
    deps.prisma.trackingLine.groupBy({
      by: ['carrierKey', 'carrierName'],
      where,
      _max: { updatedAt: true },
    }),
    deps.prisma.trackingLine.groupBy({ by: ['carrierKey', 'fulfillmentId'], where }),
    deps.prisma.trackingLine.groupBy({
      by: ['carrierKey'],
      where: { ...where, active: true, trackerId: null },
      _count: { _all: true },
    }),
  ]);
  const matcher = await deps.carriers.matcher();
  const overrides = await carrierOverrides(deps.prisma, shop.id);

  const latestName = new Map<string, { name: string; at: number }>();
  for (const row of names) {
    if (row.carrierKey === null || row.carrierName === null) continue;
    const at = row._max.updatedAt?.getTime() ?? 0;
    const known = latestName.get(row.carrierKey);
    if (!known || at > known.at) latestName.set(row.carrierKey, { name: row.carrierName, at });
  }
  const fulfilmentCount = new Map<string, number>();
  for (const row of fulfilments) {
    if (row.carrierKey === null) continue;
    fulfilmentCount.set(row.carrierKey, (fulfilmentCount.get(row.carrierKey) ?? 0) + 1);
  }
  const waitingCount = new Map(waiting.map((row) => [row.carrierKey, row._count._all]));

  const carriers = [...latestName.entries()].map(([key, { name }]): SeenCarrier => {
    const match = matcher.match(name, overrides);
    return {
      name,
      mappedTo: match.slug,
      source: match.source,
      fulfillments: fulfilmentCount.get(key) ?? 0,
      waiting: waitingCount.get(key) ?? 0,
    };
  });
  carriers.sort(
    (a, b) =>
      Number(a.mappedTo !== null) - Number(b.mappedTo !== null) ||
      a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) ||
      a.name.localeCompare(b.name),
  );
  return { carriers };
}
