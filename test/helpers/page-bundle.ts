import { ensurePageBuilt } from '../../src/ui/page-build.js';

/** vitest globalSetup: the page's bundles (src/ui/public/assets) are built before any test loads the page. */
export default async function setup(): Promise<void> {
  await ensurePageBuilt();
}
