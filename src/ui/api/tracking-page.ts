import type { AppContext } from '../../context/app-context.js';
import { z } from 'zod';
import { type ShopperLocale, shopperLocales } from '../../lib/shopper-locales.js';
import { proxyMessages } from '../../proxy/messages.js';
import { renderTrackingPagePreview } from '../../proxy/preview.js';
import {
  readTrackingPageSettings,
  saveTrackingPageSettings,
  type TrackingPageSettings,
  trackingPageSettingsSchema,
} from '../../shops/tracking-page-settings.js';
import { currentShop } from './current-shop.js';

/**
 * The admin's "Tracking page" section: how the shoppers' page looks and what it shows
 * (src/shops/tracking-page-settings.ts), and a preview of the real page with a sample order as the
 * merchant's unsaved settings would make it (src/proxy/preview.ts). The whole document is written at
 * once; the preview stores nothing.
 */

/** PUT /api/tracking-page: the whole document. */
export const trackingPageBody = trackingPageSettingsSchema;

/**
 * POST /api/tracking-page/preview: the settings as typed (validated as a save would be), in one language.
 * One document serves both frames: the page lays itself out by each frame's own width.
 */
export const previewBody = z
  .object({
    settings: trackingPageSettingsSchema,
    locale: z.enum(shopperLocales, { error: `locale must be one of ${shopperLocales.join(', ')}` }),
  })
  .strict();
export type PreviewBody = z.output<typeof previewBody>;

/**
 * The bodies of these routes are small (eleven messages of at most 500 characters): anything over this
 * is refused (413) before it is parsed.
 */
export const trackingPageBodyLimit = '32kb';

export interface TrackingPageView {
  settings: TrackingPageSettings;
  /** The store's contact e-mail (from the store): the contact line's address when it is the store's. */
  contactEmail: string | null;
  /** The languages the shoppers' page speaks, English first. */
  locales: ShopperLocale[];
  /** What the page says above the results in each language when the merchant wrote nothing. */
  defaults: Record<ShopperLocale, string>;
}

function defaultMessages(): Record<ShopperLocale, string> {
  return Object.fromEntries(shopperLocales.map((locale) => [locale, proxyMessages(locale).intro])) as Record<
    ShopperLocale,
    string
  >;
}

function viewOf(settings: TrackingPageSettings, contactEmail: string | null): TrackingPageView {
  return { settings, contactEmail, locales: [...shopperLocales], defaults: defaultMessages() };
}

export async function getTrackingPage(
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
): Promise<TrackingPageView> {
  const shop = await currentShop(ctx.shops, domain);
  return viewOf(await readTrackingPageSettings(ctx.prisma, shop.id), shop.contactEmail);
}

/** Replaces the shop's document; answers it as it now reads. */
export async function saveTrackingPage(
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
  settings: TrackingPageSettings,
): Promise<TrackingPageView> {
  const shop = await currentShop(ctx.shops, domain);
  await saveTrackingPageSettings(ctx.prisma, shop.id, settings);
  return viewOf(await readTrackingPageSettings(ctx.prisma, shop.id), shop.contactEmail);
}

/** The shoppers' page (a whole HTML document) as these settings would make it; nothing is stored. */
export async function previewTrackingPage(
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
  body: PreviewBody,
): Promise<{ html: string }> {
  const shop = await currentShop(ctx.shops, domain);
  return {
    html: renderTrackingPagePreview({
      settings: body.settings,
      locale: body.locale,
      contactEmail: shop.contactEmail,
    }),
  };
}
