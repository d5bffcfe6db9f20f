/**
 * The languages the shoppers' side speaks (the tracking page, the order status extension's link): the
 * store's or the shopper's choice among these, else English. `ar` is written right to left.
 */
export const shopperLocales = ['en', 'de', 'fr', 'es', 'nl', 'it', 'pt-BR', 'ja', 'pl', 'sv', 'ar'] as const;
export type ShopperLocale = (typeof shopperLocales)[number];

const rightToLeft: ReadonlySet<string> = new Set(['ar']);

/** The page's writing direction in this language. */
export function directionOf(locale: string): 'rtl' | 'ltr' {
  return rightToLeft.has(locale) ? 'rtl' : 'ltr';
}

/** The language of a tag if the page speaks it ("pt-br", "pt", "de-AT", "DE"), else null. */
export function shopperLocaleOf(tag: string): ShopperLocale | null {
  const lower = tag.trim().toLowerCase();
  if (lower === '') return null;
  const exact = shopperLocales.find((l) => l.toLowerCase() === lower);
  if (exact) return exact;
  const base = lower.split(/[-_]/)[0]!;
  // Portuguese is written for Brazil here; any other region still reads it best.
  return shopperLocales.find((l) => l.toLowerCase().split('-')[0] === base) ?? null;
}
