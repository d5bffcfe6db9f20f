import { readdirSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/db/paths.js';

/** The shop `npm run dev` connects to the emulator's demo account, and `npm run dev:send` delivers for. */
export const devShopDomain = 'demo-shop.myshopify.com';

/** The store platform's sample deliveries, beside this repository in ../shared. */
export const fixturesDir = path.resolve(PROJECT_ROOT, '..', 'shared', 'fixtures', 'shopify');

/** The fixture names available (file names without `.json`). */
export function fixtureNames(dir: string = fixturesDir): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length))
      .sort();
  } catch {
    return [];
  }
}

/** The file of a fixture name (`fulfillments-create.ups`, with or without `.json`); null when not a plain name. */
export function fixturePath(name: string, dir: string = fixturesDir): string | null {
  const base = name.endsWith('.json') ? name.slice(0, -'.json'.length) : name;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(base)) return null;
  return path.join(dir, `${base}.json`);
}

const topicPrefixes: ReadonlyArray<[string, string]> = [
  ['fulfillments-create', 'fulfillments/create'],
  ['fulfillments-update', 'fulfillments/update'],
  ['orders-cancelled', 'orders/cancelled'],
];

/** The webhook topic a fixture's name implies: `fulfillments-create.ups` → `fulfillments/create`. */
export function topicForFixture(name: string): string | null {
  const base = path.basename(name).replace(/\.json$/, '');
  for (const [prefix, topic] of topicPrefixes) {
    if (base === prefix || base.startsWith(`${prefix}.`)) return topic;
  }
  return null;
}
