import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

/**
 * The merchant's page is TypeScript (src/ui/page, type-checked by tsconfig.page.json) bundled by esbuild
 * into `<publicDir>/assets/`: `page.js`, and the offline stand-ins for the platform's two CDN scripts
 * (src/ui/stand-in), which only tests and offline development load (ADMIN_UI_SCRIPTS=stand-in).
 *
 * - `npm run build` writes dist/ui/public/assets (minified, with source maps);
 * - `npm run dev` and the test suite write src/ui/public/assets (git-ignored), dev in watch mode.
 */

const uiDir = path.dirname(fileURLToPath(import.meta.url));

export const pageEntries = {
  page: path.join(uiDir, 'page', 'main.ts'),
  'stand-in/app-bridge': path.join(uiDir, 'stand-in', 'app-bridge.ts'),
  'stand-in/polaris': path.join(uiDir, 'stand-in', 'polaris.ts'),
};

/** src/ui/public when run from source. */
export const sourcePublicDir = path.join(uiDir, 'public');

export interface PageBuildOptions {
  /** The folder index.html is served from; the bundles go to its `assets/`. */
  publicDir?: string;
  minify?: boolean;
}

function buildOptions(options: PageBuildOptions): esbuild.BuildOptions {
  const outdir = path.join(options.publicDir ?? sourcePublicDir, 'assets');
  return {
    entryPoints: pageEntries,
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome111', 'firefox115', 'safari16.4'],
    minify: options.minify ?? false,
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'silent',
  };
}

/** One build; throws with esbuild's messages when the page does not compile. */
export async function buildPage(options: PageBuildOptions = {}): Promise<void> {
  const config = buildOptions(options);
  rmSync(config.outdir!, { recursive: true, force: true });
  await esbuild.build(config);
}

/** Rebuilds on every change under src/ui until disposed (npm run dev). */
export async function watchPage(options: PageBuildOptions = {}): Promise<{ close(): Promise<void> }> {
  const context = await esbuild.context(buildOptions(options));
  await context.rebuild();
  await context.watch();
  return { close: () => context.dispose() };
}

/** Every file the bundles are built from (the page, the stand-ins, and the modules they import). */
function newestSourceMs(): number {
  let newest = 0;
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (file !== path.join(uiDir, 'public')) visit(file);
      } else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(file).mtimeMs);
    }
  };
  visit(uiDir);
  return newest;
}

/** Builds src/ui/public/assets unless it is newer than every source under src/ui (the test suite's setup). */
export async function ensurePageBuilt(): Promise<void> {
  const bundle = path.join(sourcePublicDir, 'assets', 'page.js');
  if (existsSync(bundle) && statSync(bundle).mtimeMs >= newestSourceMs()) return;
  await buildPage();
}
