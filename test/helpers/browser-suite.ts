import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startTestApp, type TestApp } from './app.js';
import { launchBrowser, newTestPage, type TestPage } from './browser.js';

/**
 * A browser test file's fixtures: the app (with the emulator) and Debian's Chromium, started once, and a
 * fresh page per call whose console errors and requests beyond loopback fail the test it was opened in
 * (checked, then closed, after each test).
 */
export function browserSuite(options: Parameters<typeof startTestApp>[0] = { connect: false }) {
  let app: TestApp | undefined;
  let browser: Browser | undefined;
  const opened: TestPage[] = [];
  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestApp(options), launchBrowser()]);
  });
  afterEach(async () => {
    const pages = opened.splice(0);
    for (const page of pages) {
      expect(page.blocked).toEqual([]);
      expect(page.errors).toEqual([]);
      await page.close();
    }
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });
  return {
    get app(): TestApp {
      return app!;
    },
    get browser(): Browser {
      return browser!;
    },
    /** A new checked page in a fresh context. */
    async page(): Promise<TestPage> {
      const page = await newTestPage(browser!);
      opened.push(page);
      return page;
    },
  };
}
