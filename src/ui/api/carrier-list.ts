import type { AppContext } from '../../context/app-context.js';
import { z } from 'zod';
import { storableString } from '../../db/storable-text.js';
import { refreshCarriers } from '../../trackers/refresh-carriers.js';
import type { ShippingProvider } from '../../tracking/types.js';
import { safeReason } from '../../errors/safe-reason.js';

export const carrierListQuery = z.object({
  search: storableString().trim().max(100).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type CarrierListQuery = z.output<typeof carrierListQuery>;

/**
 * The service's carriers from the cached list, filtered on slug or label (case-insensitive). An empty
 * cache is filled through the client first; when that fails the list is empty (and logged).
 */
export async function searchCarriers(
  ctx: Pick<AppContext, 'prisma' | 'carriers' | 'client' | 'logger'>,
  query: CarrierListQuery,
): Promise<{ carriers: ShippingProvider[] }> {
  let providers = await ctx.carriers.providers();
  if (providers.length === 0) {
    try {
      await refreshCarriers(ctx);
      providers = await ctx.carriers.providers();
    } catch (error) {
      ctx.logger.warn({ err: safeReason(error) }, 'carrier list empty and not refreshed');
    }
  }
  const wanted = query.search?.toLowerCase() ?? '';
  const matching =
    wanted === ''
      ? providers
      : providers.filter(
          (p) => p.slug.toLowerCase().includes(wanted) || p.label.toLowerCase().includes(wanted),
        );
  return { carriers: matching.slice(0, query.limit).map((p) => ({ slug: p.slug, label: p.label })) };
}
