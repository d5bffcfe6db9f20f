import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

/**
 * The merchant's page is TypeScript (src/ui/page, type-checked by tsconfig.page.json) bundled by esbuild
 * into `<publicDir>/assets/`: `page.js`, `exit-iframe.js` (GET /exitiframe's redirect), and the offline
 * stand-ins for the platform's two CDN scripts (src/ui/stand-in), which only tests and offline
 * development load (ADMIN_UI_SCRIPTS=stand-in).
 *
 * - `npm run build` writes dist/ui/public/assets (minified, with source maps, without the stand-ins: a
 *   production build serves only the platform's CDN scripts, ADMIN_UI_SCRIPTS=cdn);
 * - `npm run dev` and the test suite write src/ui/public/assets (git-ignored), dev in watch mode.
 */

/** src/ui: the page's sources (page/, stand-in/) and its public folder. */
const uiDir = fileURLToPath(new URL('../../src/ui/', import.meta.url));

export const pageEntries = {
  page: path.join(uiDir, 'page', 'main.ts'),
  'stand-in/app-bridge': path.join(uiDir, 'stand-in', 'app-bridge.ts'),
  'stand-in/polaris': path.join(uiDir, 'stand-in', 'polaris.ts'),
  // GET /exitiframe's redirect out of the admin's iframe (a served file: its CSP runs no inline script).
  'exit-iframe': path.join(uiDir, 'page', 'exit-iframe.ts'),
};

/** src/ui/public when run from source. */
export const sourcePublicDir = path.join(uiDir, 'public');

export interface PageBuildOptions {
  /** The folder index.html is served from; the bundles go to its `assets/`. */
  publicDir?: string;
  minify?: boolean;
  /** The production build (`npm run build`): the stand-ins are left out, as tooling, not the app. */
  production?: boolean;
}

/**
 * Writes what esbuild made, each file only when its content changed, through a temporary file and a
 * rename: a page being served while `npm run dev` (or a test that runs it) rebuilds never reads half a
 * bundle.
 */
const writeChangedFiles: esbuild.Plugin = {
  name: 'write-changed-files',
  setup(build) {
    build.onEnd((result) => {
      for (const file of result.outputFiles ?? []) {
        if (existsSync(file.path) && readFileSync(file.path).equals(file.contents)) continue;
        mkdirSync(path.dirname(file.path), { recursive: true });
        const temporary = `${file.path}.${process.pid}.tmp`;
        writeFileSync(temporary, file.contents);
        renameSync(temporary, file.path);
      }
    });
  },
};

function buildOptions(options: PageBuildOptions): esbuild.BuildOptions {
  const outdir = path.join(options.publicDir ?? sourcePublicDir, 'assets');
  return {
    write: false,
    plugins: [writeChangedFiles],
    entryPoints: options.production
      ? Object.fromEntries(Object.entries(pageEntries).filter(([name]) => !name.startsWith('stand-in/')))
      : pageEntries,
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
  await esbuild.build(buildOptions(options));
}

/** Rebuilds on every change under src/ui until disposed (npm run dev). */
export async function watchPage(options: PageBuildOptions = {}): Promise<{ close(): Promise<void> }> {
  const context = await esbuild.context(buildOptions(options));
  await context.rebuild();
  await context.watch();
  return { close: () => context.dispose() };
}
