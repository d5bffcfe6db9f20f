import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/db/paths.js';

/**
 * The project's sample webhook deliveries (`samples/shopify/*.json`, described in its README): the bodies
 * `npm run dev:send`, the benchmarks and the tests send. The one place that names their folder.
 */
export const samplesDir = path.join(PROJECT_ROOT, 'samples', 'shopify');

/** The sample names (file names without `.json`), sorted. */
export function sampleNames(dir: string = samplesDir): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length))
      .sort();
  } catch {
    return [];
  }
}

/** The file of a sample name (`fulfillments-create.ups`, with or without `.json`); null when not a plain name. */
export function samplePath(name: string, dir: string = samplesDir): string | null {
  const base = name.endsWith('.json') ? name.slice(0, -'.json'.length) : name;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(base)) return null;
  return path.join(dir, `${base}.json`);
}

/** A sample's body, parsed (e.g. `readSample('fulfillments-create.ups')`); throws when there is none. */
export function readSample(name: string): Record<string, unknown> {
  const file = samplePath(name);
  if (file === null) throw new Error(`"${name}" is not a sample name`);
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

const topicPrefixes: ReadonlyArray<[string, string]> = [
  ['fulfillments-create', 'fulfillments/create'],
  ['fulfillments-update', 'fulfillments/update'],
  ['orders-cancelled', 'orders/cancelled'],
];

/** The webhook topic a sample's name implies: `fulfillments-create.ups` → `fulfillments/create`. */
export function topicForSample(name: string): string | null {
  const base = path.basename(name).replace(/\.json$/, '');
  for (const [prefix, topic] of topicPrefixes) {
    if (base === prefix || base.startsWith(`${prefix}.`)) return topic;
  }
  return null;
}
