import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every schema at an input boundary (the page API's queries, paths and bodies; the CLI's flags; the use
 * cases whose schemas they reuse; page cursors) takes text with storableString (src/db/storable-text.ts),
 * never a bare z.string(): a NUL or a lone surrogate is refused there (400 / exit 2, naming the field)
 * instead of reaching SQL, where PostgreSQL answers it with an error (a 500).
 */
const srcDir = path.resolve(import.meta.dirname, '../../src');
const tsFiles = (dir: string) =>
  readdirSync(path.join(srcDir, dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${dir}/${f}`);

const boundaries = [
  ...tsFiles('ui/api'),
  ...tsFiles('cli'),
  'shops/connect-shop.ts',
  'trackers/map-carrier.ts',
  'db/keyset-cursor.ts',
];

describe('input boundaries', () => {
  it('take text only through storableString', () => {
    const bare = boundaries.flatMap((file) => {
      const source = readFileSync(path.join(srcDir, file), 'utf8');
      return [...source.matchAll(/\bz\s*\.\s*(?:string|coerce\s*\.\s*string)\s*\(/g)].map(
        (m) => `${file}:${source.slice(0, m.index).split('\n').length}`,
      );
    });
    expect(bare).toEqual([]);
  });
});
