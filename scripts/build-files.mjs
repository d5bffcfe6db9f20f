/**
 * The non-TypeScript steps of `npm run build` (plain JavaScript: needs nothing but Node).
 *   node scripts/build-files.mjs clean   removes dist/, so no file of a deleted module survives a build
 *   node scripts/build-files.mjs copy    copies the page's static files (src/ui/public, not its dev
 *                                        bundle) to dist/ui/public, where dist/app/server.js serves them,
 *                                        and the shoppers' texts (src/proxy/locales/*.json) beside
 *                                        dist/proxy/messages.js, which reads them at start-up
 * tsc (tsconfig.build.json) compiles the server between the two; scripts/build-page.ts then bundles the
 * page into dist/ui/public/assets.
 */
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

const steps = {
  clean: () => rmSync(dist, { recursive: true, force: true }),
  copy: () => {
    cpSync(path.join(root, 'src', 'ui', 'public'), path.join(dist, 'ui', 'public'), {
      recursive: true,
      // assets/ is the page's bundle as `npm run dev` or the tests built it: the build bundles its own.
      filter: (source) => source !== path.join(root, 'src', 'ui', 'public', 'assets'),
    });
    cpSync(path.join(root, 'src', 'proxy', 'locales'), path.join(dist, 'proxy', 'locales'), {
      recursive: true,
    });
  },
};

const step = steps[process.argv[2] ?? ''];
if (step === undefined) {
  process.stderr.write(`Usage: node scripts/build-files.mjs ${Object.keys(steps).join('|')}\n`);
  process.exit(2);
}
step();
