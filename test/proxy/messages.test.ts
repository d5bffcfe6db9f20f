import { describe, expect, it } from 'vitest';
import { directionOf, shopperLocales } from '../../src/lib/shopper-locales.js';
import { proxyLocale, proxyMessages } from '../../src/proxy/messages.js';

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

function placeholders(text: string): string[] {
  return (text.match(/\{[^{}]*\}/g) ?? []).sort();
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

  it.each(translated)('%s keeps every placeholder of English, each once', (locale) => {
    const own = texts(proxyMessages(locale));
    for (const [path, english] of en) {
      expect(placeholders(String(own.get(path))), `${locale} ${path}`).toEqual(placeholders(String(english)));
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
    expect(sentence('fr', 'shareValidUntil')).toContain('jusqu’au vendredi 27 novembre.');
    expect(sentence('it', 'arriving')).toBe('Arriva venerdì 27 novembre');
    expect(sentence('ja', 'arriving')).toBe('11月27日金曜日にお届け予定');
    expect(proxyMessages('pl').parcelCount.replace('{n}', '1').replace('{total}', '2')).toBe('Paczka 1 z 2');
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
