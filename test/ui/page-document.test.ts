import { describe, expect, it } from 'vitest';
import { publicDir } from '../../src/app/server.js';
import { APP_BRIDGE_URL, POLARIS_URL } from '../../src/ui/auth/embedded-page.js';
import { pageDocument, standInUrls } from '../../src/ui/page-document.js';

/** The document as the platform requires it: api-key meta tag, then App Bridge's script, first in <head>. */
function headOf(html: string): string[] {
  const head = /<head>([\s\S]*?)<\/head>/.exec(html)?.[1] ?? '';
  return [...head.matchAll(/<(meta|script|link|title)\b[^>]*>/g)].map((m) => m[0]);
}

describe('pageDocument', () => {
  it('loads App Bridge (first script, synchronous) and Polaris from the CDN, after the api-key meta tag', () => {
    const tags = headOf(pageDocument({ publicDir, apiKey: 'client-id-1', scripts: 'cdn' }));
    const scripts = tags.filter((t) => t.startsWith('<script'));
    expect(scripts[0]).toBe(`<script src="${APP_BRIDGE_URL}">`);
    expect(scripts[1]).toBe(`<script src="${POLARIS_URL}">`);
    const meta = tags.findIndex((t) => t.includes('name="shopify-api-key"'));
    expect(tags[meta]).toContain('content="client-id-1"');
    expect(meta).toBeLessThan(tags.indexOf(scripts[0]!));
    // Nothing but the charset comes before them.
    expect(tags.slice(0, meta)).toEqual(['<meta charset="utf-8" />']);
    expect(scripts[2]).toBe('<script type="module" src="/assets/page.js">');
  });

  it('uses the offline stand-ins only when asked, at the same places', () => {
    const scripts = headOf(pageDocument({ publicDir, apiKey: 'k', scripts: 'stand-in' })).filter((t) =>
      t.startsWith('<script'),
    );
    expect(scripts.slice(0, 2)).toEqual([
      `<script src="${standInUrls.appBridge}">`,
      `<script src="${standInUrls.polaris}">`,
    ]);
  });

  it('escapes the api key into the attribute', () => {
    const html = pageDocument({ publicDir, apiKey: '"><script>x</script>', scripts: 'cdn' });
    expect(html).toContain('content="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(html).not.toContain('<script>x</script>');
  });
});
