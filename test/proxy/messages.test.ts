import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import IntlMessageFormat from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/db/paths.js';
import { directionOf, shopperLocales } from '../../src/lib/shopper-locales.js';
import { formatProxyMessage, messageTexts, proxyLocale, proxyMessages } from '../../src/proxy/messages.js';

/** Every text of a messages object by its path ("troubles.pickup.advice"), nested objects walked. */
function texts(messages: object, prefix = ''): Map<string, unknown> {
  const found = new Map<string, unknown>();
  for (const [key, value] of Object.entries(messages)) {
    const path = `${prefix}${key}`;
    if (value !== null && typeof value === 'object') {
      for (const [inner, text] of texts(value as object, `${path}.`)) found.set(inner, text);
    } else {
      found.set(path, value);
    }
  }
  return found;
}

interface IcuElement {
  type: number;
  value?: unknown;
  options?: Record<string, { value: IcuElement[] }>;
  children?: IcuElement[];
}

/** The argument names of an ICU message ("{day}", "{count, plural, …}"), each once, sorted. */
function placeholders(message: string, locale = 'en'): string[] {
  const names = new Set<string>();
  const walk = (elements: readonly IcuElement[]) => {
    for (const element of elements) {
      // Literals (0) and a plural's `#` (7) name no argument; every other element does.
      if (element.type !== 0 && element.type !== 7 && typeof element.value === 'string')
        names.add(element.value);
      for (const option of Object.values(element.options ?? {})) walk(option.value);
      walk(element.children ?? []);
    }
  };
  walk(new IntlMessageFormat(message, locale, undefined, { ignoreTag: true }).getAst() as IcuElement[]);
  return [...names].sort();
}

/** The plural branches of an ICU message, by argument ("count" → ["one", "other"]). */
function pluralBranches(message: string, locale: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const walk = (elements: readonly IcuElement[]) => {
    for (const element of elements) {
      // 6 is a plural (`{count, plural, …}`).
      if (element.type === 6) found.set(String(element.value), Object.keys(element.options ?? {}));
      for (const option of Object.values(element.options ?? {})) walk(option.value);
    }
  };
  walk(new IntlMessageFormat(message, locale, undefined, { ignoreTag: true }).getAst() as IcuElement[]);
  return found;
}

/** English texts a translation may keep as they are (the same word in that language). */
const sameInTranslation = new Set(['Status']);

const en = texts(proxyMessages('en'));
const translated = shopperLocales.filter((locale) => locale !== 'en');

describe('the translations', () => {
  it('cover the eleven shopper languages', () => {
    expect(translated).toEqual(['de', 'fr', 'es', 'nl', 'it', 'pt-BR', 'ja', 'pl', 'sv', 'ar']);
    expect(en.size).toBeGreaterThan(50);
  });

  it.each(translated)('%s has every text of English, none empty, and no other', (locale) => {
    const own = texts(proxyMessages(locale));
    expect([...own.keys()].sort()).toEqual([...en.keys()].sort());
    for (const [path, text] of own) {
      expect(typeof text, `${locale} ${path}`).toBe('string');
      expect((text as string).trim(), `${locale} ${path}`).not.toBe('');
      expect(text, `${locale} ${path}: no stray spaces`).toBe((text as string).trim());
    }
  });

  it.each(translated)('%s keeps every argument of English (ICU), and no other', (locale) => {
    const own = texts(proxyMessages(locale));
    for (const [path, english] of en) {
      expect(placeholders(String(own.get(path)), locale), `${locale} ${path}`).toEqual(
        placeholders(String(english)),
      );
    }
  });

  it.each(translated)('%s leaves no text in English', (locale) => {
    const own = texts(proxyMessages(locale));
    const untranslated = [...en].filter(
      ([path, english]) => own.get(path) === english && !sameInTranslation.has(String(english)),
    );
    expect(untranslated.map(([path]) => path)).toEqual([]);
  });

  it('put the date where each language says it', () => {
    const day = (locale: string) =>
      new Intl.DateTimeFormat(locale, {
        weekday: 'long',
        day: 'numeric',
        month: 'long',
        timeZone: 'UTC',
      }).format(new Date(Date.UTC(2026, 10, 27)));
    const sentence = (locale: string, key: 'arriving' | 'deliveredOn' | 'shareValidUntil') =>
      proxyMessages(locale)[key].replace('{day}', day(locale));
    expect(sentence('de', 'arriving')).toBe('Zustellung am Freitag, 27. November');
    expect(sentence('de', 'deliveredOn')).toBe('Zugestellt am Freitag, 27. November');
    expect(sentence('fr', 'shareValidUntil')).toContain('jusqu’au vendredi 27 novembre à {time}.');
    expect(sentence('it', 'arriving')).toBe('Arriva venerdì 27 novembre');
    expect(sentence('ja', 'arriving')).toBe('11月27日金曜日にお届け予定');
    expect(proxyMessages('pl').parcelCount.replace('{n}', '1').replace('{total}', '2')).toBe('Paczka 1 z 2');
  });
});

describe('the locale files (src/proxy/locales)', () => {
  const dir = path.join(PROJECT_ROOT, 'src', 'proxy', 'locales');
  const read = (locale: string) =>
    new Map(messageTexts(JSON.parse(readFileSync(path.join(dir, `${locale}.json`), 'utf8')) as object));
  const english = read('en');

  it('are one file per shopper language, and no other', () => {
    expect(readdirSync(dir).sort()).toEqual(shopperLocales.map((locale) => `${locale}.json`).sort());
  });

  it.each([...shopperLocales])(
    '%s.json: every key of English, each text valid ICU with the arguments of English',
    (locale) => {
      const own = read(locale);
      expect([...own.keys()].sort()).toEqual([...english.keys()].sort());
      const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories as string[];
      for (const [key, message] of own) {
        expect(() => new IntlMessageFormat(message, locale), `${locale} ${key}`).not.toThrow();
        expect(placeholders(message, locale), `${locale} ${key}`).toEqual(placeholders(english.get(key)!));
        for (const [argument, branches] of pluralBranches(message, locale)) {
          // Each plural says `other`, and names only forms the language has (or an exact `=n`).
          expect(branches, `${locale} ${key} ${argument}`).toContain('other');
          for (const branch of branches)
            expect(branch.startsWith('=') || categories.includes(branch), `${locale} ${key}: ${branch}`).toBe(
              true,
            );
        }
      }
    },
  );

  it('count by the language’s own plural forms (Polish: one, few, many)', () => {
    const show = (count: number) => formatProxyMessage('pl', proxyMessages('pl').showAllEvents, { count });
    expect(show(1)).toBe('Pokaż 1 aktualizację');
    expect(show(3)).toBe('Pokaż wszystkie 3 aktualizacje');
    expect(show(6)).toBe('Pokaż wszystkie 6 aktualizacji');
    expect(show(12)).toBe('Pokaż wszystkie 12 aktualizacji');
    expect(show(22)).toBe('Pokaż wszystkie 22 aktualizacje');
    expect(show(25)).toBe('Pokaż wszystkie 25 aktualizacji');
  });

  it('count by the language’s own plural forms (Arabic: six of them, Latin digits as the page writes)', () => {
    const show = (count: number) => formatProxyMessage('ar', proxyMessages('ar').showAllEvents, { count });
    expect(show(1)).toBe('عرض التحديث');
    expect(show(2)).toBe('عرض التحديثين');
    expect(show(7)).toBe('عرض كل التحديثات (7 تحديثات)');
    expect(show(11)).toBe('عرض كل التحديثات (11 تحديثًا)');
    expect(show(100)).toBe('عرض كل التحديثات (100 تحديث)');
    expect(new Set([0, 1, 2, 7, 11, 100].map(show)).size).toBe(6);
  });

  it('fill arguments as given and count in English and Japanese', () => {
    const en = proxyMessages('en');
    expect(formatProxyMessage('en', en.showAllEvents, { count: 7 })).toBe('Show all 7 updates');
    expect(formatProxyMessage('en', en.showAllEvents, { count: 1 })).toBe('Show 1 update');
    expect(formatProxyMessage('en', en.parcelCount, { n: 2, total: 3 })).toBe('Parcel 2 of 3');
    expect(formatProxyMessage('ja', proxyMessages('ja').showAllEvents, { count: 1234 })).toBe(
      'すべての更新（1,234件）を表示',
    );
    // A language the page does not speak is English.
    expect(formatProxyMessage('xx', en.arriving, { day: 'Friday, 27 November' })).toBe(
      'Arriving Friday, 27 November',
    );
  });
});

describe('proxyLocale', () => {
  it('finds a translation by its own name only, never an Object prototype member', () => {
    for (const name of [
      'constructor',
      '__proto__',
      'toString',
      'hasOwnProperty',
      'valueOf',
      '__defineGetter__',
    ]) {
      expect(proxyLocale(name, null), name).toBe('en');
      expect(proxyLocale(null, name), name).toBe('en');
      expect(proxyLocale(null, `${name};q=1, ${name}-DE`), name).toBe('en');
      expect(proxyMessages(name).title).toBe('Track your order');
    }
  });

  it('takes the parameter, else the first translated language of Accept-Language, else English', () => {
    expect(proxyLocale('de-AT', 'fr')).toBe('de');
    expect(proxyLocale('constructor', 'toString, nl-BE;q=0.8')).toBe('nl');
    expect(proxyLocale(null, 'xx, es_MX')).toBe('es');
    expect(proxyLocale('', '')).toBe('en');
    expect(proxyLocale(null, null)).toBe('en');
    expect(proxyLocale('xx', 'yy, zz-ZZ')).toBe('en');
    expect(proxyMessages('fr').title).toBe('Suivre votre commande');
  });

  it('names every language as the shopper languages do, and each has its own texts', () => {
    for (const locale of shopperLocales) {
      expect(proxyLocale(locale, null)).toBe(locale);
      expect(proxyLocale(locale.toLowerCase(), null)).toBe(locale);
      expect(proxyLocale(null, `xx, ${locale.toUpperCase()};q=0.5`)).toBe(locale);
    }
    const titles = shopperLocales.map((locale) => proxyMessages(locale).title);
    expect(new Set(titles).size).toBe(shopperLocales.length);
  });

  it('reads any Portuguese as Brazilian Portuguese', () => {
    for (const tag of ['pt', 'pt-BR', 'pt-br', 'pt_BR', 'pt-PT', 'PT-pt', 'pt-AO']) {
      expect(proxyLocale(tag, null), tag).toBe('pt-BR');
      expect(proxyLocale(null, `xx, ${tag};q=0.7, en`), tag).toBe('pt-BR');
    }
    expect(proxyMessages(proxyLocale('pt-PT', null)).title).toBe('Rastreie seu pedido');
    // The lookup of texts takes the chosen name only.
    expect(proxyMessages('pt').title).toBe('Track your order');
  });

  it('speaks Japanese and Arabic (right to left)', () => {
    expect(proxyLocale('ja-JP', null)).toBe('ja');
    expect(proxyLocale(null, 'ja,en-US;q=0.9')).toBe('ja');
    expect(proxyMessages('ja').submit).toBe('確認する');
    const arabic = proxyLocale(null, 'ar-EG,ar;q=0.9,en;q=0.8');
    expect(arabic).toBe('ar');
    expect(directionOf(arabic)).toBe('rtl');
    expect(proxyMessages(arabic).title).toBe('تتبّع طلبك');
  });

  it('follows Accept-Language in its order (q-values are not weighed)', () => {
    expect(proxyLocale(null, 'sv-SE, de;q=0.9')).toBe('sv');
    expect(proxyLocale(null, 'de;q=0.1, sv;q=0.9')).toBe('de');
    expect(proxyLocale(null, 'xx-XX, tlh, pl-PL;q=0.8, ja;q=0.7')).toBe('pl');
    expect(proxyLocale(null, ' it-CH ; q=0.9 , fr')).toBe('it');
    expect(proxyLocale(null, '*, nl')).toBe('nl');
    // The parameter comes first, whatever the header says.
    expect(proxyLocale('ar', 'ja, de')).toBe('ar');
  });
});
