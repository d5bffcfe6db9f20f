import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/db/paths.js';
import { filesUnder, importSpecifiers, strayImports } from '../build/module-imports.js';

/**
 * What `npm run build` compiles (tsconfig.build.json: src/ but the page and its stand-ins, which esbuild
 * bundles for the browser) runs after `npm prune --omit=dev`: it imports production dependencies and
 * Node's own modules only, and nothing outside src/. Development and test tooling (the page bundler, the
 * dev server's extras, migration tooling, scratch databases, the fetch seam) lives in tools/ and scripts/.
 * test/build/production-build.test.ts checks the same of the built dist/.
 */

const srcDir = path.join(PROJECT_ROOT, 'src');
const browserOnly = [path.join(srcDir, 'ui', 'page'), path.join(srcDir, 'ui', 'stand-in')];
const packageJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};
const dependencies = Object.keys(packageJson.dependencies);

describe('the production build imports only what production has', () => {
  it("src/'s compiled modules import production dependencies, Node's modules and src/ only", () => {
    const files = filesUnder(srcDir, ['.ts'], (folder) => browserOnly.includes(folder));
    expect(files.length).toBeGreaterThan(100);
    expect(strayImports(srcDir, files, dependencies)).toEqual([]);
  });

  it('reads every kind of import, type-only ones left out (the check itself works)', () => {
    const text = [
      "import { a, type B } from 'esbuild';",
      "import type { C } from 'vitest';",
      "export type { D } from '../../tools/x.js';",
      "import {\n  e,\n  f,\n} from '../../tools/dev/dev-app.js';",
      "export { g } from './g.js';",
      "import 'tsx/esm';",
      "const h = await import('node:fs');",
      "const i = require('prisma/package.json');",
    ].join('\n');
    expect(importSpecifiers(text).sort()).toEqual(
      ['../../tools/dev/dev-app.js', './g.js', 'esbuild', 'node:fs', 'prisma/package.json', 'tsx/esm'].sort(),
    );
  });
});
