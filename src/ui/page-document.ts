import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AdminUiScripts } from '../config.js';
import { APP_BRIDGE_URL, escapeHtml, POLARIS_URL } from './auth/embedded-page.js';
import { adminPages } from './vocabulary.js';

/** The page's routes: each answers the same document, which shows the page its path names. */
export const pagePaths: readonly string[] = Object.values(adminPages).map((page) => page.path);

/** The offline stand-ins (src/ui/stand-in), bundled beside the page. */
export const standInUrls = {
  appBridge: '/assets/stand-in/app-bridge.js',
  polaris: '/assets/stand-in/polaris.js',
};

/**
 * index.html with the app's client id in the `shopify-api-key` meta tag and App Bridge's script first in
 * `<head>`, then Polaris's, from the platform's CDN as it requires (or the stand-ins). Read once.
 */
export function pageDocument(options: {
  publicDir: string;
  apiKey: string;
  scripts: AdminUiScripts;
}): string {
  const template = readFileSync(path.join(options.publicDir, 'index.html'), 'utf8');
  const local = options.scripts === 'stand-in';
  const values: Record<string, string> = {
    SHOPIFY_API_KEY: options.apiKey,
    APP_BRIDGE_SRC: local ? standInUrls.appBridge : APP_BRIDGE_URL,
    POLARIS_SRC: local ? standInUrls.polaris : POLARIS_URL,
  };
  return template.replace(/%([A-Z_]+)%/g, (whole, name: string) =>
    name in values ? escapeHtml(values[name]!) : whole,
  );
}

/**
 * The document for one load, with that load's style nonce (set with the page's CSP by embeddedPageAuth)
 * in its `style-nonce` meta tag; none: the tag is empty and no inline style applies.
 */
export function withStyleNonce(document: string, nonce: unknown): string {
  return document.replace('%STYLE_NONCE%', typeof nonce === 'string' ? escapeHtml(nonce) : '');
}
