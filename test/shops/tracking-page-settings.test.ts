import { describe, expect, it } from 'vitest';
import {
  defaultTrackingPageSettings,
  parseStoredSettings,
  trackingPageSettingsSchema,
} from '../../src/shops/tracking-page-settings.js';

const valid = {
  accentColor: '#0A7F5A',
  show: { items: false, history: true, estimate: true, location: false },
  messages: { en: '  Orders ship within two days.  ', de: 'Versand in zwei Tagen.', fr: '' },
  contact: { kind: 'url', url: 'https://shop.example/contact' },
};

describe('the tracking page settings', () => {
  it('take a whole document: the colour in lower case, messages trimmed, empty ones dropped', () => {
    expect(trackingPageSettingsSchema.parse(valid)).toEqual({
      ...valid,
      accentColor: '#0a7f5a',
      messages: { en: 'Orders ship within two days.', de: 'Versand in zwei Tagen.' },
    });
  });

  it('refuse what the page cannot show, naming the field', () => {
    const refused = (patch: Record<string, unknown>) => {
      const result = trackingPageSettingsSchema.safeParse({ ...valid, ...patch });
      return result.success
        ? null
        : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    };
    expect(refused({ accentColor: 'red' })).toMatch(/^accentColor: accentColor must be a colour/);
    expect(refused({ accentColor: '#12345' })).toMatch(/accentColor/);
    expect(refused({ messages: { xx: 'Hi' } })).toMatch(/^messages: /);
    expect(refused({ messages: { en: 'x'.repeat(501) } })).toMatch(/at most 500/);
    expect(refused({ messages: { en: 'a\u0000b' } })).toMatch(/NUL/);
    expect(refused({ contact: { kind: 'url', url: 'javascript:alert(1)' } })).toMatch(/contact.url/);
    expect(refused({ contact: { kind: 'url', url: '' } })).toMatch(/needed when contact.kind is url/);
    expect(refused({ contact: { kind: 'phone', url: '' } })).toMatch(/contact.kind/);
    expect(refused({ show: { items: 'yes', history: true, estimate: true, location: true } })).toMatch(
      /show.items must be true or false/,
    );
    expect(refused({ extra: 1 })).not.toBeNull();
  });

  it('read a stored document that no longer parses as the defaults', () => {
    expect(parseStoredSettings(null)).toEqual(defaultTrackingPageSettings);
    expect(parseStoredSettings('{')).toEqual(defaultTrackingPageSettings);
    expect(parseStoredSettings(JSON.stringify({ accentColor: 'nope' }))).toEqual(defaultTrackingPageSettings);
    expect(parseStoredSettings(JSON.stringify(valid)).contact).toEqual(valid.contact);
  });
});
