import { buildPage } from '../../tools/build/page-build.js';

/**
 * vitest globalSetup: the page's bundles (src/ui/public/assets) are built before any test loads the page
 * (files whose content did not change are not rewritten).
 */
export default async function setup(): Promise<void> {
  await buildPage();
}
