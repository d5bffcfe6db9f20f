import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleGraph, srcDir } from '../helpers/module-graph.js';

/**
 * src/'s floors, lowest first. A module may import its own folder, any folder of a lower floor, and, on an
 * `ordered` floor, the folders listed before its own; never a folder above it or beside it. So the domain
 * core knows nothing of webhooks, workers, routes or pages, and the shoppers' page nothing of the admin's.
 * `(root)` is src/config.ts and src/logger.ts. A new top folder must be given its floor here.
 */
export const floors: ReadonlyArray<{ name: string; folders: readonly string[]; ordered?: boolean }> = [
  { name: 'shared primitives', folders: ['lib', 'errors', '(root)'], ordered: true },
  { name: 'the database and the metrics', folders: ['db', 'observability'] },
  { name: "the tracking service's client", folders: ['tracking'] },
  // settings: each area's schema, shared by the API and the page (src/settings), below what it describes.
  // context: what every use case works with (the repositories and the client), built once at the
  // composition root and handed down whole.
  {
    name: 'the domain core',
    folders: ['settings', 'shops', 'carriers', 'context', 'shipments', 'trackers'],
    ordered: true,
  },
  {
    name: 'the store adapter, use cases and workers',
    folders: ['shopify', 'flow', 'webhooks', 'status-pushes', 'notifications', 'jobs'],
    ordered: true,
  },
  // Ordered: the admin's pages preview the shoppers' page with its own renderer; never the other way.
  { name: 'the edges: the pages, their routes, the CLI', folders: ['proxy', 'ui', 'cli'], ordered: true },
  { name: 'the composition root', folders: ['app'] },
];

/** Where a folder stands: its floor, and its place on an ordered floor. */
function placeOf(folder: string): { floor: number; place: number } | null {
  for (const [floor, f] of floors.entries()) {
    const index = f.folders.indexOf(folder);
    if (index >= 0) return { floor, place: f.ordered ? index : -1 };
  }
  return null;
}

function folderOf(file: string): string {
  const relative = path.relative(srcDir, file).split(path.sep);
  return relative.length === 1 ? '(root)' : relative[0]!;
}

function mayImport(from: string, to: string): boolean {
  if (from === to) return true;
  const a = placeOf(from);
  const b = placeOf(to);
  if (!a || !b) return false;
  if (b.floor !== a.floor) return b.floor < a.floor;
  return a.place >= 0 && b.place < a.place;
}

/** Every import that runs up or sideways, as `from-module -> to-module`. */
function wrongImports(graph: Map<string, string[]>): string[] {
  const wrong: string[] = [];
  for (const [file, imports] of graph) {
    for (const target of imports) {
      if (!mayImport(folderOf(file), folderOf(target)))
        wrong.push(`${path.relative(srcDir, file)} -> ${path.relative(srcDir, target)}`);
    }
  }
  return wrong.sort();
}

describe('src/ floors', () => {
  const graph = moduleGraph();

  it('every top folder has its floor', () => {
    const folders = new Set([...graph.keys()].map(folderOf));
    expect([...folders].filter((f) => placeOf(f) === null)).toEqual([]);
    expect(folders.size).toBeGreaterThan(15);
  });

  it('no import runs up a floor, or sideways on an unordered one', () => {
    expect(wrongImports(graph)).toEqual([]);
  });

  it('finds a wrong import when there is one (the check itself works)', () => {
    const at = (p: string) => path.join(srcDir, p);
    const deliberate = new Map([
      [at('trackers/desired-state.ts'), [at('webhooks/payloads.ts'), at('shops/shop-lock.ts')]],
      [at('proxy/lookup.ts'), [at('ui/vocabulary.ts')]],
      [at('shops/shop-repository.ts'), [at('shipments/tracking-links.ts')]],
      [at('config.ts'), [at('lib/backoff.ts')]],
    ]);
    expect(wrongImports(deliberate)).toEqual([
      'proxy/lookup.ts -> ui/vocabulary.ts',
      'shops/shop-repository.ts -> shipments/tracking-links.ts',
      'trackers/desired-state.ts -> webhooks/payloads.ts',
    ]);
  });
});
