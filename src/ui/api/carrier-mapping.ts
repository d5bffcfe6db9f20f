import type { AppContext } from '../../context/app-context.js';
import { z } from 'zod';
import { mapCarrier, mapCarrierInput } from '../../trackers/map-carrier.js';
import { currentShop } from './current-shop.js';

export const mappingBody = z.object({
  name: mapCarrierInput.shape.carrierName,
  slug: mapCarrierInput.shape.slug,
});
export type MappingBody = z.output<typeof mappingBody>;

export type SaveMappingResult =
  | { ok: true; remapped: number; stillWaiting: number }
  | { ok: false; reason: 'unknown_slug' | 'carriers_unavailable' | 'invalid_input'; message: string };

/**
 * The shop's own mapping of a store carrier name to a provider slug; the name's waiting lines get their
 * trackers (the worker then creates them at the service).
 */
export async function saveCarrierMapping(
  ctx: Pick<AppContext, 'prisma' | 'shops' | 'carriers' | 'client' | 'logger'>,
  domain: string,
  body: MappingBody,
): Promise<SaveMappingResult> {
  await currentShop(ctx.shops, domain);
  const result = await mapCarrier(ctx, { shopDomain: domain, carrierName: body.name, slug: body.slug });
  if (result.ok) return { ok: true, remapped: result.linesRemapped, stillWaiting: result.stillWaiting };
  if (result.reason === 'shop_not_found') throw new Error('the shop row vanished while mapping a carrier');
  return { ok: false, reason: result.reason, message: result.message };
}
