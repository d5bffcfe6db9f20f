import type { AppContext } from '../../context/app-context.js';
import { z } from 'zod';
import { carrierNotFollowed, seenCarriers } from '../../carriers/carrier-queries.js';
import { carrierOverrides } from '../../carriers/carrier-repository.js';
import type { CarrierMatch } from '../../carriers/match.js';
import { storableString } from '../../db/storable-text.js';
import { type ParcelAction, statusRows } from '../../shipments/parcel-model.js';
import { currentShop } from './current-shop.js';

/** The statuses that say the carrier is wrong (the parcel model's rows whose action is a carrier mapping). */
const carrierCodes = Object.entries(statusRows)
  .filter(([, row]) => row.action?.place === 'settings_carriers')
  .map(([code]) => code);
const invalidCarrier = statusRows.invalid_carrier!;
/** Unmapped names first, then the carriers whose parcels are not followed, then the rest. */
const stateOrder: Record<SeenCarrier['state'], number> = { waiting: 0, not_followed: 1, followed: 2 };

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
  /**
   * Tracked lines of this carrier the tracking service cannot follow because of the carrier
   * (invalid_carrier, carrier_unsupported): the mapping matched, but wrongly for these parcels.
   */
  notFollowed: number;
  /**
   * Where the carrier stands, as every view tells it: waiting (no mapping), not_followed (mapped, but the
   * service cannot follow its parcels: map it again), or followed.
   */
  state: 'waiting' | 'not_followed' | 'followed';
  /** The parcel model's label, advice and action for a not_followed carrier (the Shipments page's words). */
  problem: { label: string; advice: string | null; action: ParcelAction | null } | null;
}

export const seenCarriersQuery = z.object({
  /** The cursor a previous page gave as `next`. */
  after: storableString().max(200).optional(),
});
export type SeenCarriersQuery = z.output<typeof seenCarriersQuery>;

/**
 * The carrier names the shop's fulfilments used, with what each maps to now (the shop's own mappings,
 * then the platform's names, then the service's list): unmapped names first, then those whose parcels
 * the service cannot follow (a wrong carrier: the parcel model's words), then by name. Counted in
 * SQL (src/carriers/carrier-queries.ts), a page of up to 500 names; `next` asks for the following page
 * (null when there is none: a shop has tens of names).
 */
export async function listSeenCarriers(
  ctx: Pick<AppContext, 'prisma' | 'shops' | 'carriers'>,
  domain: string,
  query: SeenCarriersQuery = {},
): Promise<{ carriers: SeenCarrier[]; next: string | null }> {
  const shop = await currentShop(ctx.shops, domain);
  const [page, matcher, overrides] = await Promise.all([
    seenCarriers(ctx.prisma, shop.id, query.after === undefined ? {} : { after: query.after }),
    ctx.carriers.matcher(),
    carrierOverrides(ctx.prisma, shop.id),
  ]);
  const matched = page.carriers.map((row) => ({ row, match: matcher.match(row.name, overrides) }));
  const [labels, notFollowed] = await Promise.all([
    ctx.carriers.labelsOf(matched.flatMap(({ match }) => match.slug ?? [])),
    carrierNotFollowed(
      ctx.prisma,
      shop.id,
      page.carriers.map((c) => c.key),
      carrierCodes,
    ),
  ]);
  const carriers = matched.map(({ row, match }): SeenCarrier => {
    const unfollowed = notFollowed.get(row.key) ?? 0;
    return {
      name: row.name,
      mappedTo: match.slug,
      mappedLabel: match.slug === null ? null : (labels.get(match.slug) ?? match.slug),
      source: match.source,
      shipments: row.shipments,
      waiting: row.waiting,
      notFollowed: unfollowed,
      state: match.slug === null ? 'waiting' : unfollowed > 0 ? 'not_followed' : 'followed',
      problem:
        unfollowed > 0
          ? { label: invalidCarrier.label, advice: invalidCarrier.advice, action: invalidCarrier.action }
          : null,
    };
  });
  carriers.sort(
    (a, b) =>
      stateOrder[a.state] - stateOrder[b.state] ||
      a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) ||
      a.name.localeCompare(b.name),
  );
  return { carriers, next: page.next };
}
