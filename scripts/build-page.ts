/**
 * `tsx scripts/build-page.ts [publicDir] [--minify] [--production]`: bundles the merchant's page (tools/build/page-build.ts).
 * `npm run build` runs it for dist/ui/public; without a folder it writes src/ui/public/assets.
 */
import path from 'node:path';
import process from 'node:process';
import { buildPage } from '../tools/build/page-build.js';

const args = process.argv.slice(2);
const folder = args.find((a) => !a.startsWith('--'));
await buildPage({
  ...(folder ? { publicDir: path.resolve(folder) } : {}),
  minify: args.includes('--minify'),
  production: args.includes('--production'),
});
process.stdout.write(`page built into ${path.join(folder ?? 'src/ui/public', 'assets')}\n`);
