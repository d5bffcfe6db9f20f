import { describe, expect, it } from 'vitest';
import { proxyMessages } from '../../src/proxy/messages.js';
import { sampleParcels } from '../../src/proxy/preview.js';
import {
  copyScriptHash,
  type ProxyPage,
  proxyPagePolicy,
  renderProxyPage,
  textOn,
} from '../../src/proxy/render.js';
import {
  defaultTrackingPageSettings,
  type TrackingPageSettings,
} from '../../src/shops/tracking-page-settings.js';
import { createHash } from 'node:crypto';

const now = new Date(Date.UTC(2026, 10, 25, 12));

function page(overrides: Partial<ProxyPage> = {}, settings: Partial<TrackingPageSettings> = {}): string {
  return renderProxyPage({
    action: '/apps/track',
    locale: 'en',
    messages: proxyMessages('en'),
    tracking: '',
    order: '',
    html: true,
    localeParam: null,
    settings: { ...defaultTrackingPageSettings, ...settings },
    contactEmail: 'help@shop.example',
    timeZone: 'UTC',
    share: { href: '/apps/track?view=a.b', validUntil: '2027-01-24' },
    result: { kind: 'order', orderName: '#1001', parcels: sampleParcels(now) },
    ...overrides,
  });
}

describe('the shoppers’ page markup', () => {
  it('shows each part the merchant left on, and none switched off', () => {
    const all = page();
    expect(all).toContain('<h4 class="ts-sub">In this parcel</h4>');
    expect(all).toContain('Linen shirt');
    expect(all).toContain('Shipment history');
    expect(all).toContain('data-estimate="service">Arriving Friday, 27 November</h3>');
    expect(all).toContain('Louisville, KY, US');
    const none = page({}, { show: { items: false, history: false, estimate: false, location: false } });
    expect(none).not.toContain('In this parcel');
    expect(none).not.toContain('Shipment history');
    expect(none).not.toContain('data-estimate');
    expect(none).toContain('<h3 class="ts-head">In transit</h3>');
    expect(none).not.toContain('Louisville');
    // The status, the steps and the delivery day stay whatever is switched off.
    expect(none).toContain('<h3 class="ts-head">Delivered on Tuesday, 24 November</h3>');
    expect(none.match(/aria-current="step"/g)).toHaveLength(2);
  });

  it('writes the merchant’s message escaped, in the page’s language only', () => {
    const messages = { en: 'Ships in 2 days {{ shop.name }} <b>', de: 'Versand in 2 Tagen' };
    const en = page({}, { messages });
    expect(en).toContain(
      '<p class="ts-note">Ships in 2 days &#123;&#123; shop.name &#125;&#125; &lt;b&gt;</p>',
    );
    expect(en).not.toContain('Versand');
    const de = page({ locale: 'de', messages: proxyMessages('de') }, { messages });
    expect(de).toContain('<p class="ts-note">Versand in 2 Tagen</p>');
  });

  it('the contact line: the store’s e-mail, the merchant’s page, or none', () => {
    expect(page()).toContain('<a href="mailto:help@shop.example">Email the store</a>');
    const url = page({}, { contact: { kind: 'url', url: 'https://shop.example/help?a=1&b=2' } });
    expect(url).toContain(
      '<a href="https://shop.example/help?a=1&amp;b=2" rel="noopener noreferrer">Contact the store</a>',
    );
    expect(page({}, { contact: { kind: 'none', url: '' } })).not.toContain('class="ts-contact"');
    expect(page({ contactEmail: null })).not.toContain('class="ts-contact"');
  });

  it('the whole document takes the accent colour with readable text on it; the theme’s page keeps its own', () => {
    const light = page({}, { accentColor: '#ffd500' });
    expect(light).toContain('--ts-accent:#ffd500;--ts-on-accent:#000000');
    expect(page({}, { accentColor: '#1a1a1a' })).toContain('--ts-on-accent:#ffffff');
    const liquid = page({ html: false }, { accentColor: '#ffd500' });
    expect(liquid).not.toContain('#ffd500');
    expect(liquid).toContain('--ts-accent:currentColor');
    expect(liquid).not.toContain('<html');
    expect(textOn('#0a7f5a')).toBe('#ffffff');
    expect(textOn('#f2f2f2')).toBe('#000000');
  });

  it('runs one script, the copy button’s, allowed by its hash; without it the link still works', () => {
    const html = page();
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    expect(`sha256-${createHash('sha256').update(scripts[0]!).digest('base64')}`).toBe(copyScriptHash);
    expect(proxyPagePolicy).toContain(`script-src '${copyScriptHash}'`);
    expect(html).toContain('<a href="/apps/track?view=a.b">Link to this page</a>');
    expect(html).toMatch(/<button type="button" hidden data-ts-copy=/);
    expect(page({ share: null })).not.toContain('<script');
    expect(page({ result: { kind: 'not_found' } })).not.toContain('<script');
  });

  it('an order with nothing shipped yet says so; an expired link says so with the forms open', () => {
    expect(page({ result: { kind: 'order', orderName: '#1001', parcels: [] } })).toContain(
      'We found your order. It has not shipped yet',
    );
    const expired = page({ result: { kind: 'expired' } });
    expect(expired).toContain('This link has expired.');
    expect(expired).not.toContain('<details class="ts-lookup">');
  });

  it('lays Arabic out right to left', () => {
    const ar = page({ locale: 'ar', messages: proxyMessages('ar') });
    expect(ar).toContain('<html lang="ar" dir="rtl">');
    expect(page()).toContain('<html lang="en" dir="ltr">');
  });

  it('shows an item’s picture only from an https address', () => {
    const [parcel] = sampleParcels(now);
    parcel!.items = [
      {
        name: 'Lamp',
        variant: null,
        quantity: 1,
        imageUrl: 'https://cdn.shop.example/lamp.png?w=160',
        imageAlt: 'A "brass" lamp',
      },
      {
        name: 'Bulb',
        variant: null,
        quantity: 2,
        imageUrl: 'http://cdn.shop.example/bulb.png',
        imageAlt: null,
      },
      { name: 'Cable', variant: null, quantity: 1, imageUrl: 'javascript:alert(1)', imageAlt: null },
    ];
    const html = page({ result: { kind: 'parcel', parcel: parcel! } });
    expect(html).toContain(
      '<img src="https://cdn.shop.example/lamp.png?w=160" alt="A &quot;brass&quot; lamp" width="56" height="56" loading="lazy" decoding="async">',
    );
    expect(html.match(/<img /g)).toHaveLength(1);
    expect(html).not.toContain('javascript:');
    expect(proxyPagePolicy).toContain('img-src https:');
  });
});
