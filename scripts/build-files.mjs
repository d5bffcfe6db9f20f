/**
 * The non-TypeScript steps of `npm run build` (plain JavaScript: needs nothing but Node).
 *   node scripts/build-files.mjs clean   removes dist/, so no file of a deleted module survives a build
 *   node scripts/build-files.mjs copy    copies the page's static files (src/ui/public) to dist/ui/public,
 *                                        where the compiled server (dist/app/server.js) serves them from
 * tsc (tsconfig.build.json) compiles everything else between the two.
 */
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

const steps = {
  clean: () => rmSync(dist, { recursive: true, force: true }),
  copy: () =>
    cpSync(path.join(root, 'src', 'ui', 'public'), path.join(dist, 'ui', 'public'), { recursive: true }),
};

const step = steps[process.argv[2] ?? ''];
if (step === undefined) {
  process.stderr.write(`Usage: node scripts/build-files.mjs ${Object.keys(steps).join('|')}\n`);
  process.exit(2);
}
step();
