import { z } from 'zod';
import { seenCarriers } from '../../carriers/carrier-queries.js';
import { type CarrierRepository, carrierOverrides } from '../../carriers/carrier-repository.js';
import type { CarrierMatch } from '../../carriers/match.js';
import type { DatabaseClient } from '../../db/client.js';
import { storableString } from '../../db/storable-text.js';
import type { ShopRepository } from '../../shops/shop-repository.js';
import { currentShop } from './current-shop.js';

export interface SeenCarrier {
  /** The spelling the store sent most often for this carrier (names are grouped after folding). */
  name: string;
  mappedTo: string | null;
  /** The service's label of mappedTo (from the cached carrier list; the slug when the list lacks it). */
  mappedLabel: string | null;
  source: CarrierMatch['source'];
  /** The shop's shipments (parcels) with this carrier. */
  shipments: number;
  /** Active lines with this name still waiting for a carrier (no tracker yet). */
  waiting: number;
}

export const seenCarriersQuery = z.object({
  /** The cursor a previous page gave as `next`. */
  after: storableString().max(200).optional(),
});
export type SeenCarriersQuery = z.output<typeof seenCarriersQuery>;

/**
 * The carrier names the shop's fulfilments used, with what each maps to now (the shop's own mappings,
 * then the platform's names, then the service's list): unmapped names first, then by name. Counted in
 * SQL (src/carriers/carrier-queries.ts), a page of up to 500 names; `next` asks for the following page
 * (null when there is none: a shop has tens of names).
 */
export async function listSeenCarriers(
  deps: { prisma: DatabaseClient; shops: ShopRepository; carriers: CarrierRepository },
  domain: string,
  query: SeenCarriersQuery = {},
): Promise<{ carriers: SeenCarrier[]; next: string | null }> {
  const shop = await currentShop(deps.shops, domain);
  const [page, matcher, overrides] = await Promise.all([
    seenCarriers(deps.prisma, shop.id, query.after === undefined ? {} : { after: query.after }),
    deps.carriers.matcher(),
    carrierOverrides(deps.prisma, shop.id),
  ]);
  const matched = page.carriers.map((row) => ({ row, match: matcher.match(row.name, overrides) }));
  const labels = await deps.carriers.labelsOf(matched.flatMap(({ match }) => match.slug ?? []));
  const carriers = matched.map(({ row, match }): SeenCarrier => ({
    name: row.name,
    mappedTo: match.slug,
    mappedLabel: match.slug === null ? null : (labels.get(match.slug) ?? match.slug),
    source: match.source,
    shipments: row.shipments,
    waiting: row.waiting,
  }));
  carriers.sort(
    (a, b) =>
      Number(a.mappedTo !== null) - Number(b.mappedTo !== null) ||
      a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) ||
      a.name.localeCompare(b.name),
  );
  return { carriers, next: page.next };
}
