import { describe, expect, it } from 'vitest';
import { proxyLocale, proxyMessages } from '../../src/proxy/messages.js';

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
    expect(proxyMessages('fr').title).toBe('Suivre votre commande');
  });
});
