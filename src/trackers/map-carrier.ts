import type { AppContext } from '../context/app-context.js';
import { z } from 'zod';
import { storableString } from '../db/storable-text.js';
import { refreshCarriers } from './refresh-carriers.js';
import type { ShippingProvider } from '../tracking/types.js';
import { remapLines } from './desired-state.js';
import { carrierOverrides } from '../carriers/carrier-repository.js';
import { normaliseCarrierName } from '../carriers/match.js';
import { inTransaction } from '../db/transaction.js';
import { shopByDomain } from '../shops/shop-repository.js';
import { safeReason } from '../errors/safe-reason.js';

export const mapCarrierInput = z.object({
  shopDomain: storableString()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9][a-z0-9-]*\.myshopify\.com$/, 'must be a *.myshopify.com domain'),
  carrierName: storableString()
    .trim()
    .min(1, 'is empty')
    .max(255)
    .refine((name) => normaliseCarrierName(name) !== '', 'needs at least one letter or digit'),
  slug: storableString().trim().toLowerCase().min(1, 'is empty').max(100),
});
export type MapCarrierInput = z.input<typeof mapCarrierInput>;

export type MapCarrierResult =
  | {
      ok: true;
      shopDomain: string;
      carrierName: string;
      slug: string;
      /** The shop's active lines with this carrier name, now pointing at the mapped provider's trackers. */
      linesRemapped: number;
      /** Lines of this carrier name still without a tracker (0 unless something changed meanwhile). */
      stillWaiting: number;
      trackersTouched: number;
    }
  | { ok: false; reason: 'invalid_input'; message: string }
  | { ok: false; reason: 'shop_not_found'; message: string }
  | { ok: false; reason: 'carriers_unavailable'; message: string }
  | { ok: false; reason: 'unknown_slug'; message: string; suggestions: string[] };

/**
 * Saves a shop's own mapping from a store carrier name to a provider slug of the service, and points
 * the shop's lines of that carrier name at it in the same transaction: lines that were waiting for a
 * carrier get their tracker (pending, so the worker creates it), lines mapped elsewhere move over.
 */
export async function mapCarrier(
  ctx: Pick<AppContext, 'prisma' | 'carriers' | 'client' | 'logger'>,
  input: MapCarrierInput,
): Promise<MapCarrierResult> {
  const parsed = mapCarrierInput.safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      reason: 'invalid_input',
      message: parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`).join('; '),
    };
  }
  const { shopDomain, carrierName, slug } = parsed.data;

  const shop = await shopByDomain(ctx.prisma, shopDomain);
  if (!shop) return { ok: false, reason: 'shop_not_found', message: `No shop ${shopDomain} is known.` };

  let providers = await ctx.carriers.providers();
  if (providers.length === 0) {
    try {
      await refreshCarriers(ctx);
    } catch (error) {
      return {
        ok: false,
        reason: 'carriers_unavailable',
        message: `The carrier list is empty and could not be fetched: ${safeReason(error)}`,
      };
    }
    providers = await ctx.carriers.providers();
  }
  if (!providers.some((p) => p.slug === slug)) {
    const suggestions = closeSlugs(providers, slug);
    return {
      ok: false,
      reason: 'unknown_slug',
      suggestions,
      message:
        `The tracking service has no carrier "${slug}".` +
        (suggestions.length > 0 ? ` Close: ${suggestions.join(', ')}.` : ''),
    };
  }

  // On SQLite a transaction holds the one connection: read everything inside it through `tx`, and
  // build the matcher (which reads the carrier list) before opening it.
  const matcher = await ctx.carriers.matcher();
  const outcome = await inTransaction(ctx.prisma, async (tx) => {
    await ctx.carriers.setOverride(tx, shop.id, carrierName, slug);
    const overrides = await carrierOverrides(tx, shop.id);
    return remapLines(tx, shop, { matcher, overrides }, carrierName);
  });
  return {
    ok: true,
    shopDomain,
    carrierName,
    slug,
    linesRemapped: outcome.linesRemapped,
    stillWaiting: outcome.stillWaiting,
    trackersTouched: outcome.trackersTouched,
  };
}

/** Up to `limit` slugs close to what was typed: prefix matches first, then substrings of slug or label. */
export function closeSlugs(providers: readonly ShippingProvider[], typed: string, limit = 5): string[] {
  const wanted = typed.trim().toLowerCase();
  const key = normaliseCarrierName(typed);
  if (wanted === '') return [];
  const scored: Array<{ slug: string; score: number }> = [];
  for (const p of providers) {
    const slugKey = normaliseCarrierName(p.slug);
    const labelKey = normaliseCarrierName(p.label);
    let score = -1;
    if (p.slug.startsWith(wanted) || wanted.startsWith(p.slug)) score = 0;
    else if (key !== '' && (slugKey.startsWith(key) || labelKey.startsWith(key))) score = 1;
    else if (key !== '' && (slugKey.includes(key) || labelKey.includes(key))) score = 2;
    else if (slugKey !== '' && key.includes(slugKey)) score = 3;
    if (score >= 0) scored.push({ slug: p.slug, score });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.slug.localeCompare(b.slug))
    .slice(0, limit)
    .map((s) => s.slug);
}
