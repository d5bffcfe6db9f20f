import { z } from 'zod';
import type { DatabaseClient } from '../db/client.js';
import { storableString } from '../db/storable-text.js';
import { storedTrackingPageSettings, storeTrackingPageSettings } from './tracking-page-repository.js';
import { shopperLocales } from '../lib/shopper-locales.js';

/**
 * How the shoppers' tracking page looks and what it shows, as the merchant set it on the admin's
 * "Tracking page" section. One JSON document per shop (TrackingPageSettings), validated here when written
 * and again when read (a row that no longer parses reads as the defaults, never as a broken page).
 *
 * - `accentColor`: the whole-document page's accent (the progress, the buttons); the theme's own colours
 *   rule in the store's theme (Liquid).
 * - `show`: which parts the page shows besides the status and the steps.
 * - `messages`: a note above the results, per language (none: no note).
 * - `contact`: the line under the results: the store's contact e-mail, a page the merchant names, or none.
 */

export const accentColorMessage = 'accentColor must be a colour as #rrggbb';
const maxMessageLength = 500;

const onOff = (name: string) => z.boolean({ error: `${name} must be true or false` });

export const trackingPageShowSchema = z
  .object({
    items: onOff('show.items'),
    history: onOff('show.history'),
    estimate: onOff('show.estimate'),
    location: onOff('show.location'),
  })
  .strict();

export const trackingPageMessagesSchema = z
  .partialRecord(
    z.enum(shopperLocales, { error: `messages are keyed by language: ${shopperLocales.join(', ')}` }),
    storableString()
      .trim()
      .max(maxMessageLength, { error: `a message is at most ${maxMessageLength} characters` }),
  )
  .transform((messages) => Object.fromEntries(Object.entries(messages).filter(([, text]) => text !== '')));

const contactUrlMessage = 'contact.url must be an https:// or http:// address';
export const trackingPageContactSchema = z
  .object({
    kind: z.enum(['store_email', 'url', 'none'], { error: 'contact.kind must be store_email, url or none' }),
    url: storableString()
      .trim()
      .max(500, { error: contactUrlMessage, abort: true })
      .refine((v) => v === '' || isWebAddress(v), { error: contactUrlMessage }),
  })
  .strict()
  .refine((c) => c.kind !== 'url' || c.url !== '', {
    error: 'contact.url is needed when contact.kind is url',
  });

export const trackingPageSettingsSchema = z
  .object({
    accentColor: storableString()
      .regex(/^#[0-9a-fA-F]{6}$/, { error: accentColorMessage })
      .toLowerCase(),
    show: trackingPageShowSchema,
    messages: trackingPageMessagesSchema,
    contact: trackingPageContactSchema,
  })
  .strict();

export type TrackingPageSettings = z.output<typeof trackingPageSettingsSchema>;

export const defaultTrackingPageSettings: TrackingPageSettings = {
  accentColor: '#1a1a1a',
  show: { items: true, history: true, estimate: true, location: true },
  messages: {},
  contact: { kind: 'store_email', url: '' },
};

function isWebAddress(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The shop's settings, or the defaults when none are saved (or the saved ones no longer parse). */
export async function readTrackingPageSettings(
  prisma: DatabaseClient,
  shopId: string,
): Promise<TrackingPageSettings> {
  return parseStoredSettings(await storedTrackingPageSettings(prisma, shopId));
}

/** A stored document as settings: whatever fails to parse falls back to the defaults. */
export function parseStoredSettings(stored: string | null): TrackingPageSettings {
  if (stored === null) return defaultTrackingPageSettings;
  try {
    const parsed = trackingPageSettingsSchema.safeParse(JSON.parse(stored));
    return parsed.success ? parsed.data : defaultTrackingPageSettings;
  } catch {
    return defaultTrackingPageSettings;
  }
}

/** Saves the whole document (already validated by trackingPageSettingsSchema). */
export async function saveTrackingPageSettings(
  prisma: DatabaseClient,
  shopId: string,
  settings: TrackingPageSettings,
): Promise<void> {
  const document = JSON.stringify(trackingPageSettingsSchema.parse(settings));
  await storeTrackingPageSettings(prisma, shopId, document);
}
