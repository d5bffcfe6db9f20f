import { z } from 'zod';
import type { CarrierRepository } from '../../carriers/carrier-repository.js';
import type { DatabaseClient } from '../../db/client.js';
import { storableString } from '../../db/storable-text.js';
import { refreshCarriers } from '../../trackers/refresh-carriers.js';
import type { Logger } from '../../logger.js';
import type { TrackingClient } from '../../tracking/client.js';
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
  deps: { prisma: DatabaseClient; carriers: CarrierRepository; client: TrackingClient; logger: Logger },
  query: CarrierListQuery,
): Promise<{ carriers: ShippingProvider[] }> {
  let providers = await deps.carriers.providers();
  if (providers.length === 0) {
    try {
      await refreshCarriers(deps);
      providers = await deps.carriers.providers();
    } catch (error) {
      deps.logger.warn({ err: safeReason(error) }, 'carrier list empty and not refreshed');
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
