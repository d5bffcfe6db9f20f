import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { check } from '@shopify/theme-check-node';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/db/paths.js';
import { storeProxyPath } from '../../src/lib/proxy-paths.js';

/**
 * The theme app extension (extensions/tracking-block): the "Track your order" block merchants place in
 * their theme. The platform's theme checker (@shopify/theme-check-node, with the theme app extension
 * rules of its .theme-check.yml) finds nothing to report; a broken copy shows the checker is at work.
 */

const extension = path.join(PROJECT_ROOT, 'extensions', 'tracking-block');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'tracking-block-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the Track your order block', () => {
  it('passes the theme checker', async () => {
    const offenses = await check(extension);
    expect(offenses.map((o) => `${o.check}: ${o.message}`)).toEqual([]);
  }, 60_000);

  it('is checked for real: a missing translation and an unknown filter are reported', async () => {
    cpSync(extension, scratch, { recursive: true });
    const block = path.join(scratch, 'blocks', 'track-order.liquid');
    writeFileSync(
      block,
      readFileSync(block, 'utf8').replace(
        "{{ 'blocks.track_order.submit' | t }}",
        "{{ 'blocks.nope' | t | bogus_filter }}",
      ),
    );
    const offenses = await check(scratch);
    expect(offenses.map((o) => o.check)).toEqual(
      expect.arrayContaining(['TranslationKeyExists', 'UnknownFilter']),
    );
  }, 60_000);

  it('sends the shopper to the tracking page with the fields it reads, in the page’s eleven languages', () => {
    const liquid = readFileSync(path.join(extension, 'blocks', 'track-order.liquid'), 'utf8');
    expect(liquid).toContain(`append: '${storeProxyPath}'`);
    expect(liquid).toMatch(/name="order"/);
    expect(liquid).toMatch(/name="email"/);
    for (const locale of ['en.default', 'de', 'fr', 'es', 'nl', 'it', 'pt-BR', 'ja', 'pl', 'sv', 'ar']) {
      const words = JSON.parse(readFileSync(path.join(extension, 'locales', `${locale}.json`), 'utf8'));
      expect(Object.keys(words.blocks.track_order).sort()).toEqual([
        'email_label',
        'intro',
        'order_label',
        'submit',
      ]);
    }
  });
});
