import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { appScopes, authCallbackPath, webhookPath } from '../../src/shopify/api.js';
import { topicHandlers } from '../../src/webhooks/topics/index.js';

/**
 * The few TOML forms shopify.app.toml uses: `key = "string" | true | false | [ "strings", … ]` (arrays
 * may span lines), `[table]` and `[[array.of.tables]]`, whole-line comments. Anything else fails the test.
 */
type Value = string | boolean | string[];
type Table = Record<string, Value>;

function parseAppToml(text: string): {
  root: Table;
  tables: Record<string, Table>;
  arrays: Record<string, Table[]>;
} {
  const root: Table = {};
  const tables: Record<string, Table> = {};
  const arrays: Record<string, Table[]> = {};
  let current = root;
  // Multi-line arrays joined onto one line first.
  const lines = text
    .replace(/^\s*#.*$/gm, '')
    .replace(/\[\s*\n([^\]]*)\]/g, (_m, inner: string) => `[${inner.replace(/\s*\n\s*/g, ' ')}]`)
    .split('\n');
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '') continue;
    let match: RegExpExecArray | null;
    if ((match = /^\[\[([\w.]+)\]\]$/.exec(line))) {
      current = {};
      (arrays[match[1]!] ??= []).push(current);
    } else if ((match = /^\[([\w.]+)\]$/.exec(line))) {
      current = tables[match[1]!] ??= {};
    } else if ((match = /^([\w-]+)\s*=\s*(.+)$/.exec(line))) {
      current[match[1]!] = parseValue(match[2]!.trim());
    } else {
      throw new Error(`unexpected line in shopify.app.toml: ${line}`);
    }
  }
  return { root, tables, arrays };
}

function parseValue(text: string): Value {
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^"[^"]*"$/.test(text)) return text.slice(1, -1);
  if (/^\[.*\]$/.test(text)) {
    const items = text
      .slice(1, -1)
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    return items.map((item) => {
      if (!/^"[^"]*"$/.test(item)) throw new Error(`not a string in an array: ${item}`);
      return item.slice(1, -1);
    });
  }
  throw new Error(`unsupported TOML value: ${text}`);
}

const toml = parseAppToml(readFileSync(new URL('../../shopify.app.toml', import.meta.url), 'utf8'));
const subscriptions = toml.arrays['webhooks.subscriptions'] ?? [];

describe('shopify.app.toml', () => {
  it('is an embedded app with a client id and an https application URL', () => {
    expect(toml.root.embedded).toBe(true);
    expect(typeof toml.root.client_id).toBe('string');
    expect(toml.root.application_url).toMatch(/^https:\/\//);
  });

  it('asks for exactly the scopes the app asks for at install', () => {
    const scopes = toml.tables.access_scopes?.scopes;
    expect(typeof scopes).toBe('string');
    expect((scopes as string).split(',')).toEqual(appScopes);
  });

  it('redirects OAuth to the app’s callback route', () => {
    const redirects = toml.tables.auth?.redirect_urls as string[];
    const appUrl = new URL(toml.root.application_url as string);
    expect(redirects).toContain(new URL(authCallbackPath, appUrl).href);
  });

  it('pins the webhook API version the app is written for', () => {
    expect(toml.tables.webhooks?.api_version).toBe('2026-10');
  });

  it('subscribes to every topic the app handles, and to nothing else, all at /webhooks', () => {
    const subscribed: string[] = [];
    for (const subscription of subscriptions) {
      expect(subscription.uri).toBe(webhookPath);
      for (const key of ['topics', 'compliance_topics'] as const) {
        const topics = subscription[key];
        if (topics !== undefined) subscribed.push(...(topics as string[]));
      }
    }
    expect([...subscribed].sort()).toEqual(Object.keys(topicHandlers).sort());
    expect(new Set(subscribed).size).toBe(subscribed.length);
  });

  it('lists the three compliance topics as compliance_topics', () => {
    const compliance = subscriptions.flatMap((s) => (s.compliance_topics as string[] | undefined) ?? []);
    expect(compliance.sort()).toEqual(['customers/data_request', 'customers/redact', 'shop/redact']);
  });
});
