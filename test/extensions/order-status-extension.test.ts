import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import path from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PROJECT_ROOT } from '../../src/db/paths.js';
import { orderStatusParcelsPath } from '../../src/proxy/order-status.js';
import { appUrl } from '../../extensions/order-status-tracking/src/app-url.js';
import { parcelsPath } from '../../extensions/order-status-tracking/src/view.js';

/**
 * The order status extension's configuration (extensions/order-status-tracking/shopify.extension.toml) as
 * Shopify CLI reads it, parsed with a real TOML parser: a ui_extension on the target that renders after
 * each fulfilment's details, for the API version of the installed @shopify/ui-extensions, its module
 * there, network access declared, and the app URL it calls the app's own. Its type-check against the
 * package's types is part of `npm run typecheck` (the extension's tsconfig.json); its bundle, made with
 * esbuild as Shopify CLI makes it, holds nothing of the app's server and stays under the platform's 64 KB
 * (compressed) limit for UI extensions of API 2025-10 and later.
 */

const extensionDir = path.join(PROJECT_ROOT, 'extensions', 'order-status-tracking');
const tomlText = readFileSync(path.join(extensionDir, 'shopify.extension.toml'), 'utf8');
const target = 'customer-account.order-status.fulfillment-details.render-after';

const extensionToml = z
  .object({
    api_version: z.string().regex(/^\d{4}-\d{2}$/),
    extensions: z
      .array(
        z
          .object({
            name: z.string().min(1).max(50),
            handle: z
              .string()
              .max(30)
              .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/),
            type: z.literal('ui_extension'),
            targeting: z.array(z.object({ target: z.string(), module: z.string() }).strict()).length(1),
            capabilities: z.object({ network_access: z.literal(true) }).strict(),
          })
          .strict(),
      )
      .length(1),
  })
  .strict();

const toml = extensionToml.parse(parse(tomlText));
const extension = toml.extensions[0]!;
const uiExtensions = path.join(PROJECT_ROOT, 'node_modules', '@shopify', 'ui-extensions');

describe('extensions/order-status-tracking/shopify.extension.toml', () => {
  it('targets the fulfilment details of the order status page, with a module that is there', () => {
    expect(extension.targeting[0]!.target).toBe(target);
    expect(existsSync(path.join(extensionDir, extension.targeting[0]!.module))).toBe(true);
    // A target the installed package defines (its types are what the extension is checked against).
    expect(
      existsSync(
        path.join(uiExtensions, 'build', 'ts', 'surfaces', 'customer-account', 'targets', `${target}.d.ts`),
      ),
    ).toBe(true);
  });

  it('is written for the API version of the installed @shopify/ui-extensions', () => {
    const { version } = JSON.parse(readFileSync(path.join(uiExtensions, 'package.json'), 'utf8')) as {
      version: string;
    };
    const [year, month] = version.split('.');
    expect(toml.api_version).toBe(`${year}-${month!.padStart(2, '0')}`);
    expect(toml.api_version).toBe('2026-07');
  });

  it('declares network access, and calls the app at its application URL, at the app’s route', () => {
    expect(extension.capabilities.network_access).toBe(true);
    const appToml = readFileSync(path.join(PROJECT_ROOT, 'shopify.app.toml'), 'utf8');
    const applicationUrl = /^application_url\s*=\s*"([^"]+)"/m.exec(appToml)?.[1];
    expect(new URL(appUrl).origin).toBe(new URL(applicationUrl!).origin);
    expect(appUrl).toMatch(/^https:\/\/[^/]+$/);
    expect(parcelsPath).toBe(orderStatusParcelsPath);
    // The toml says where the extension's data comes from.
    expect(tomlText).toContain(`${appUrl}${parcelsPath}`);
  });

  it('is type-checked by npm run typecheck', () => {
    const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.typecheck).toContain('tsc -p extensions/order-status-tracking/tsconfig.json');
  });
});

describe('the extension’s bundle', () => {
  it('is the extension, Preact and the package only, under the 64 KB compressed limit', async () => {
    const result = await build({
      entryPoints: [path.join(extensionDir, extension.targeting[0]!.module)],
      bundle: true,
      write: false,
      metafile: true,
      minify: true,
      format: 'esm',
      target: 'es2020',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      logLevel: 'silent',
      absWorkingDir: PROJECT_ROOT,
    });
    const inputs = Object.keys(result.metafile.inputs);
    const outside = inputs.filter(
      (input) =>
        !input.startsWith('extensions/order-status-tracking/src/') &&
        !/^node_modules\/(preact|@preact\/signals(-core)?|@shopify\/ui-extensions)\//.test(input),
    );
    expect(outside).toEqual([]);
    expect(inputs).toContain('extensions/order-status-tracking/src/view.ts');
    const bytes = gzipSync(result.outputFiles[0]!.contents).length;
    expect(bytes).toBeLessThan(64 * 1024);
  });
});
