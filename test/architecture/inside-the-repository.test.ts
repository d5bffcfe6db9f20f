import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/db/paths.js';
import { sampleNames, samplesDir } from '../../tools/dev/samples.js';

/**
 * The repository holds what it uses: no file of it (code, scripts, CI, Dockerfile, README, docs) names a
 * folder beside the repository or a path above its root. A clone anywhere, with nothing next to it, runs
 * the app, `dev:send`, the benchmarks and the tests; the sample deliveries are in samples/shopify/ and the
 * tracking service's interface is summarised in docs/tracking-service.md.
 */

const root = path.resolve(PROJECT_ROOT);

/** What `git ls-files` holds, tracked and untracked-but-not-ignored (a file being added counts too). */
function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  return out
    .split('\0')
    .filter((f) => f !== '' && !f.startsWith('src/generated/'))
    .filter((f) => existsSync(path.join(root, f)) && statSync(path.join(root, f)).isFile());
}

/** The text of a file, or null for a binary one (a NUL in its first 8 kB). */
function textOf(file: string): string | null {
  const bytes = readFileSync(path.join(root, file));
  if (bytes.subarray(0, 8192).includes(0)) return null;
  return bytes.toString('utf8');
}

/**
 * The folder beside the repository that the samples and the service's interface used to be read from: named
 * as a relative path (either slash), as path segments joined in code, or by its subfolders.
 */
const siblingFolder = [
  /(?:^|[^.\w])\.\.[\\/]+shared\b/,
  /['"]\.\.['"]\s*,\s*['"]shared['"]/,
  /\bshared[\\/]+(?:fixtures|spec)\b/,
];

/** A path built from the project's root constant whose next segment climbs out of it. */
const aboveTheRootConstant = /\b(?:PROJECT_ROOT|ROOT|root|projectRoot|repoRoot|rootDir)\s*,\s*['"]\.\.['"]/;

/** A relative path written out (`../x`, `../../x`): in quotes, backticks, a link or after a space. */
const relativePath = /(?:^|[\s'"`(=:,[])((?:\.\.\/)+[^\s'"`)\]]*)/g;

/** Every place a file's text leaves the repository, as `file:line: text`. */
function outsidePaths(file: string, text: string): string[] {
  const found: string[] = [];
  const folder = path.dirname(path.join(root, file));
  text.split('\n').forEach((line, i) => {
    const at = `${file}:${i + 1}: ${line.trim().slice(0, 160)}`;
    if (siblingFolder.some((pattern) => pattern.test(line)) || aboveTheRootConstant.test(line)) {
      found.push(at);
      return;
    }
    for (const match of line.matchAll(relativePath)) {
      const written = match[1]!;
      // Globs (eslint's import patterns) are matched against importers, not read from here.
      if (written.includes('*')) continue;
      const resolved = path.resolve(folder, written);
      if (path.relative(root, resolved).startsWith('..')) {
        found.push(at);
        return;
      }
    }
  });
  return found;
}

describe('the repository holds what it uses', () => {
  const files = repositoryFiles();

  it('reads the whole repository: code, scripts, CI, the Dockerfile, README and docs', () => {
    for (const file of [
      'README.md',
      'package.json',
      'Dockerfile',
      '.dockerignore',
      '.ci/run',
      'docs/tracking-service.md',
      'samples/shopify/README.md',
      'tools/dev/dev-send.ts',
      'bench/burst.ts',
      'test/helpers/webhooks.ts',
    ]) {
      expect(files, file).toContain(file);
    }
  });

  it('no file names a folder beside the repository or a path above its root', () => {
    const found = files.flatMap((file) => {
      const text = textOf(file);
      return text === null ? [] : outsidePaths(file, text);
    });
    expect(found).toEqual([]);
  });

  it('finds such a path when there is one (the check itself works)', () => {
    const up = ['..', ''].join('/');
    const sibling = `${up}${'shared'}`;
    expect(outsidePaths('README.md', `The interface is \`${sibling}/spec/x.md\`.`)).toHaveLength(1);
    expect(
      outsidePaths('tools/dev/x.ts', `const d = path.resolve(${'PROJECT_ROOT'}, '..', 'data');`),
    ).toHaveLength(1);
    expect(outsidePaths('bench/x.ts', `const d = path.join(here, '..', '${'shared'}');`)).toHaveLength(1);
    expect(outsidePaths('test/helpers/x.ts', `readFileSync('${up}${up}${up}elsewhere/a.json')`)).toHaveLength(
      1,
    );
    expect(outsidePaths('docs/x.md', `See [the samples](${up}samples/shopify/README.md).`)).toEqual([]);
    expect(outsidePaths('src/ui/page/pages/a/b.ts', `import { x } from '${up}${up}${up}api/y.js';`)).toEqual(
      [],
    );
  });

  it('keeps the sample deliveries inside it, and every sample the code names is there', () => {
    expect(path.relative(root, samplesDir)).toBe(path.join('samples', 'shopify'));
    const names = new Set(sampleNames());
    expect(names.size).toBeGreaterThanOrEqual(6);
    const named = new Set<string>();
    for (const file of files.filter((f) => /^(test|bench|tools)\/.*\.ts$/.test(f))) {
      for (const match of textOf(file)!.matchAll(
        /\b(?:fixture|readSample|variant)\(\s*'((?:fulfillments|orders)-[\w.-]+)'/g,
      )) {
        named.add(match[1]!);
      }
    }
    expect(named.size).toBeGreaterThanOrEqual(6);
    expect([...named].filter((name) => !names.has(name))).toEqual([]);
  });
});
