import { describe, expect, it } from 'vitest';
import { attentionUrl, storeHandle } from '../../src/notifications/attention-link.js';
import {
  digestEmail,
  digestSlackText,
  escapeHtml,
  escapeSlack,
  instantSlackText,
} from '../../src/notifications/digest-message.js';
import { digestRecipients, parseRecipients } from '../../src/notifications/recipients.js';
import { isEmailAddress } from '../../src/settings/notifications.js';

/** What the merchant reads, built from data: links into the admin, counts, and everything escaped. */

describe('attentionUrl', () => {
  it('is the app’s embedded attention page in the store admin, filtered by kind', () => {
    expect(storeHandle('acme-goods.myshopify.com')).toBe('acme-goods');
    expect(attentionUrl('acme-goods.myshopify.com', 'abc123', 'stalled')).toBe(
      'https://admin.shopify.com/store/acme-goods/apps/abc123/attention?kind=stalled',
    );
    expect(attentionUrl('acme-goods.myshopify.com', 'abc123')).toBe(
      'https://admin.shopify.com/store/acme-goods/apps/abc123/attention',
    );
  });
});

describe('digestEmail', () => {
  const content = {
    shopDomain: 'acme-goods.myshopify.com',
    day: '2026-11-25',
    opened: { on_hold: 1, stalled: 2, returning: 0 },
    closedByThemselves: 4,
  };

  it('says the same in its text and HTML parts, kinds in the pages’ order, empty kinds left out', () => {
    const email = digestEmail(content, 'key');
    expect(email.subject).toBe('acme-goods: 3 new shipment problems since the last digest (2026-11-25)');
    const lines = email.text.split('\n');
    expect(lines.findIndex((l) => l.includes('Stalled'))).toBeLessThan(
      lines.findIndex((l) => l.includes('On hold')),
    );
    expect(email.text).not.toContain('Returning');
    expect(email.text).toContain('4 problems closed by themselves since the last digest');
    expect(email.html).toContain('4 problems closed by themselves');
    expect(email.html).not.toContain('Returning');
    // What to do, from the same words as the pages.
    expect(email.text).toContain('No news from the carrier for days');
    expect(email.html).toContain('No news from the carrier for days');
  });

  it('escapes whatever comes from data in the HTML part, and keeps the subject on one line', () => {
    const hostile = { ...content, shopDomain: 'a<script>"x"\r\nBcc: victim@example.com' };
    const email = digestEmail(hostile, 'k"ey');
    expect(email.html).not.toContain('<script>');
    expect(email.html).toContain('a&lt;script&gt;&quot;x&quot;');
    expect(email.html).not.toMatch(/href="[^"]*"x/);
    expect(email.subject).not.toMatch(/[\r\n]/);
    expect(email.text).not.toContain('\r');
  });

  it('a single problem is said in the singular', () => {
    const email = digestEmail({ ...content, opened: { stalled: 1 }, closedByThemselves: 1 }, 'key');
    expect(email.subject).toContain('1 new shipment problem since the last digest');
    expect(email.text).toContain('1 problem closed by itself since the last digest');
  });
});

describe('Slack texts', () => {
  it('the digest links each kind to its filtered view', () => {
    const text = digestSlackText(
      { shopDomain: 'acme.myshopify.com', day: '2026-11-25', opened: { stalled: 2 }, closedByThemselves: 0 },
      'key',
    );
    expect(text).toBe(
      [
        '*Shipment problems at acme, 2026-11-25*: 2 new problems since the last digest',
        '• <https://admin.shopify.com/store/acme/apps/key/attention?kind=stalled|Stalled>: 2',
        '<https://admin.shopify.com/store/acme/apps/key/attention|See every open problem>',
      ].join('\n'),
    );
  });

  it('the instant message escapes details and numbers, one line each', () => {
    const text = instantSlackText(
      {
        shopDomain: 'acme.myshopify.com',
        problems: [{ kind: 'on_hold', trackingNumber: '1Z<b>', detail: 'Line one\nline two <@U123> &' }],
        total: 1,
      },
      'key',
    );
    expect(text).toContain('· 1Z&lt;b&gt;: Line one line two &lt;@U123&gt; &amp;');
    expect(escapeSlack('<!here>')).toBe('&lt;!here&gt;');
    expect(escapeHtml(`<a href="x">'`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;');
  });
});

describe('recipients', () => {
  it('the contact e-mail first, then the further ones, each once whatever its case, valid ones only', () => {
    expect(
      digestRecipients({
        contactEmail: ' Owner@Example.com ',
        digestRecipients: JSON.stringify(['ops@example.com', 'owner@example.com', 'not an address', 7]),
      }),
    ).toEqual(['Owner@Example.com', 'ops@example.com']);
    expect(digestRecipients({ contactEmail: null, digestRecipients: null })).toEqual([]);
    expect(parseRecipients('{"not":"a list"}')).toEqual([]);
    expect(parseRecipients('not json')).toEqual([]);
  });

  it('an address is local@domain.tld, nothing that could smuggle a second one', () => {
    expect(isEmailAddress('ops@example.com')).toBe(true);
    expect(isEmailAddress('first.last+tag@sub.example.co.uk')).toBe(true);
    for (const bad of [
      'ops@example',
      'a@b@c.com',
      'a b@c.com',
      'a@c.com, b@d.com',
      'Name <a@b.com>',
      'a@b..com',
      '@b.com',
    ])
      expect(isEmailAddress(bad), bad).toBe(false);
  });
});
