import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { modules, srcDir } from '../helpers/module-graph.js';

/**
 * Every row id is time-ordered (src/lib/row-id.ts): the app's own inserts take newRowId(), never
 * randomUUID(), and the schema's generated ids are uuid(7). A random id would put each new row on a random
 * page of its table's primary-key index. randomUUID() stays only where the text is no row's key.
 */
const notRowIds = new Set([
  'app/runtime.ts', // the process's owner name
  'db/lease-queue.ts', // a lease token
]);

describe('row ids', () => {
  it('are made by newRowId in src/ (randomUUID only for text that is no row key)', () => {
    const random = modules()
      .map((file) => path.relative(srcDir, file).split(path.sep).join('/'))
      .filter((file) => !notRowIds.has(file))
      .filter((file) => /\brandomUUID\b/.test(readFileSync(path.join(srcDir, file), 'utf8')));
    expect(random).toEqual([]);
  });

  it('are uuid(7) where the schema makes them (DueShop excepted: its triggers make them)', () => {
    const schema = readFileSync(path.join(srcDir, '../prisma/schema.prisma'), 'utf8');
    const defaults = [
      ...schema.matchAll(/^model (\w+) \{[^}]*?\bid\s+String\s+(?:@id\s+)?@default\((\w+\(\d*\))\)/gms),
    ];
    expect(defaults.length).toBeGreaterThan(10);
    expect(
      defaults.filter(([, model, fn]) => fn !== 'uuid(7)' && model !== 'DueShop').map(([, m]) => m),
    ).toEqual([]);
  });
});
