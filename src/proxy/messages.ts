import { readFileSync } from 'node:fs';
import IntlMessageFormat from 'intl-messageformat';
import { z } from 'zod';
import { shopperLocaleOf, shopperLocales, type ShopperLocale } from '../lib/shopper-locales.js';
import { progressSteps, troubles } from '../shipments/shopper-progress.js';
import { parcelGroups } from '../shipments/status-table.js';

/**
 * The shopper's page in the store's language: the eleven of src/lib/shopper-locales.ts (English, German,
 * French, Spanish, Dutch, Italian, Brazilian Portuguese, Japanese, Polish, Swedish, Arabic); any other
 * locale falls back to English. The parcel's status is said by its group (the service's own texts, such
 * as event messages, are shown as the carrier wrote them).
 *
 * The texts are JSON files, one per language (src/proxy/locales/<locale>.json, copied to dist/ by
 * scripts/build-files.mjs), in ICU MessageFormat: `{day}` is an argument, and a count is an ICU plural
 * (`{count, plural, one {# update} other {# updates}}`) with the language's own plural forms. They are
 * read, checked against the schema below and compiled (intl-messageformat) once, when this module loads:
 * a missing text or a broken message stops the start, not a shopper's page.
 */

/** A text: not empty, no spaces around it. */
const text = z.string().regex(/^\S(.*\S)?$/s, 'a text, not empty and with no spaces around it');

/** Every text of the page; a language's file holds each of them, and nothing else. */
export const proxyMessagesSchema = z.strictObject({
  title: text,
  intro: text,
  orderLabel: text,
  emailLabel: text,
  byNumber: text,
  order: text,
  /** Heading of a logged-in customer's orders. */
  recentOrders: text,
  trackingLabel: text,
  submit: text,
  notFound: text,
  /** After a field's label: the value holds a character no lookup can take (a NUL). */
  unusable: text,
  status: text,
  /** The service's estimate; `{day}` is the weekday and date ("Thursday, 27 November"). */
  arriving: text,
  /** An estimate predicted from the store's own deliveries (not the carrier's word). */
  expectedBy: text,
  carrier: text,
  trackOnCarrier: text,
  history: text,
  noEvents: text,
  updated: text,
  groups: z.record(z.enum(parcelGroups), text),
  /** The folded lookup forms' summary, once an answer is shown above them. */
  lookUpAnother: text,
  /** The steps list's accessible name. */
  progress: text,
  /** The journey's steps (src/shipments/shopper-progress.ts). */
  steps: z.record(z.enum(progressSteps), text),
  /** What went wrong, on its step, and what the shopper can do. */
  troubles: z.record(z.enum(troubles), z.strictObject({ title: text, advice: text })),
  /** The headline once delivered; `{day}` as in `arriving`. */
  deliveredOn: text,
  /** The headline while no date is known. */
  noEstimate: text,
  /** Above each card of a multi-parcel order; `{n}` and `{total}`. */
  parcelCount: text,
  trackingNumber: text,
  /** The last-mile carrier's own number ("Local delivery number"), when the service gives one. */
  lastMile: text,
  latestUpdate: text,
  /** The history's fold; an ICU plural on `count`, the number of updates. */
  showAllEvents: text,
  /** Heading of the items in a parcel. */
  items: text,
  /** An item's quantity; `{count}`. */
  quantity: text,
  /** The share link's label and button. */
  shareLink: text,
  copyLink: text,
  /** The copy button once it copied. */
  linkCopied: text,
  /** Under the share link; `{day}` and `{time}` are when it stops opening this page (store's time zone). */
  shareValidUntil: text,
  /** The contact line: the question, then the store's e-mail or the merchant's page. */
  contactQuestion: text,
  contactEmail: text,
  contactPage: text,
  /** An order found with no parcel under way yet. */
  notShipped: text,
  /** A share link past its time, or not for this store. */
  viewExpired: text,
});

export type ProxyMessages = z.infer<typeof proxyMessagesSchema>;

/** Where the language files are, beside this module (src/proxy/locales in development, dist/proxy/locales built). */
const localesDir = new URL('./locales/', import.meta.url);

/** A language's texts, read from its file and checked. */
function readLocale(locale: ShopperLocale): ProxyMessages {
  const file = new URL(`${locale}.json`, localesDir);
  const parsed = proxyMessagesSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file.pathname}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Every text of a language with its path ("troubles.pickup.advice"), nested objects walked. */
export function messageTexts(messages: object, prefix = ''): Array<[path: string, text: string]> {
  return Object.entries(messages).flatMap(([key, value]): Array<[string, string]> =>
    typeof value === 'string'
      ? [[`${prefix}${key}`, value]]
      : messageTexts(value as object, `${prefix}${key}.`),
  );
}

/**
 * A text compiled for its language. Numbers (a plural's `#`) are written in Latin digits in every language,
 * as the page writes its other numbers and dates; the plural rules are the language's own (`-u-nu-latn` only
 * names the digits).
 */
function compile(locale: string, message: string): IntlMessageFormat {
  return new IntlMessageFormat(message, `${locale}-u-nu-latn`, undefined, { ignoreTag: true });
}

/** By language; a Map, so a name such as `constructor` or `__proto__` finds nothing (no prototype). */
const translations: ReadonlyMap<string, ProxyMessages> = new Map(
  shopperLocales.map((locale) => [locale, readLocale(locale)] as const),
);

/** Each language's texts compiled, by the text itself. */
const compiled: ReadonlyMap<string, ReadonlyMap<string, IntlMessageFormat>> = new Map(
  [...translations].map(([locale, messages]) => [
    locale,
    new Map(
      messageTexts(messages).map(([path, message]) => {
        try {
          return [message, compile(locale, message)] as const;
        } catch (error) {
          throw new Error(`src/proxy/locales/${locale}.json ${path}: ${(error as Error).message}`);
        }
      }),
    ),
  ]),
);

const en = translations.get('en')!;

/** The page's texts in a language proxyLocale chose (a ShopperLocale, e.g. `pt-BR`); English for any other. */
export function proxyMessages(locale: string): ProxyMessages {
  return translations.get(locale) ?? en;
}

/**
 * A text of proxyMessages(locale) with its arguments filled: `{day}` by its value, a plural by the language's
 * rule for the count. Plain text (the caller escapes it). A text that is not one of the language's is
 * compiled for the call.
 */
export function formatProxyMessage(
  locale: string,
  message: string,
  values: Record<string, string | number>,
): string {
  const language = translations.has(locale) ? locale : 'en';
  const format = compiled.get(language)?.get(message) ?? compile(language, message);
  return String(format.format(values));
}

/**
 * The page's language: the `locale` parameter, else the first language of Accept-Language the page speaks
 * (`de-AT` → `de`, `pt`/`pt-PT` → `pt-BR`; q-values are not weighed, the header's order counts), else
 * English. Only the languages' own names count (shopperLocaleOf), never an Object prototype member.
 */
export function proxyLocale(localeParam: string | null, acceptLanguage: string | null): ShopperLocale {
  const candidates = [
    localeParam ?? '',
    ...(acceptLanguage ?? '').split(',').map((part) => part.split(';')[0]!),
  ];
  for (const candidate of candidates) {
    const locale = shopperLocaleOf(candidate);
    if (locale) return locale;
  }
  return 'en';
}
