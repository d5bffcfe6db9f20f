import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTrackingClient, defaultMaxResponseBytes } from '../../src/tracking/client.js';
import { readBounded } from '../../src/tracking/transport.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

/**
 * The service's answers are read with a bound: an endpoint answering 50 MB (a broken proxy, a hostile
 * endpoint) costs at most the bound in memory and becomes a transient invalid_response. Before, the whole
 * answer was read with response.text(): 500 MB took the process from 224 MB to 3.5 GB.
 */

const account = { apiKey: 'bounded-read-key-0001', appName: 'bounded-store' };
let emulator: TestEmulator;

beforeAll(async () => {
  emulator = await startTestEmulator({ accounts: [{ ...account, plan: 'Pro', balance: 50, https: true }] });
});
afterAll(async () => {
  await emulator?.close();
});

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

describe('an answer larger than the bound', () => {
  it(
    'of 50 MB is not read: a transient invalid_response, with memory kept small',
    { timeout: 60_000 },
    async () => {
      await emulator.control.setFaults({
        oversizeRate: 1,
        oversizeBytes: 50 * 1024 * 1024,
        operations: ['get'],
      });
      const client = createTrackingClient({
        baseUrl: emulator.baseUrl,
        timeoutMs: 20_000,
        retry: { maxAttempts: 1 },
      });
      global.gc?.();
      const before = process.memoryUsage();
      let peakRss = before.rss;
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5);
      const started = performance.now();
      const results = [];
      for (let i = 0; i < 3; i++) {
        results.push(
          await client.getShipment(account, {
            trackingNumber: '1Z999AA10123456784',
            trackingProvider: 'ups',
          }),
        );
      }
      clearInterval(sampler);
      const after = process.memoryUsage();
      peakRss = Math.max(peakRss, after.rss);
      console.info(
        `50 MB answers ×3: ${(performance.now() - started).toFixed(0)} ms; rss ${mb(before.rss)} → peak ${mb(peakRss)} → ${mb(after.rss)} MB; ` +
          `heap ${mb(before.heapUsed)} → ${mb(after.heapUsed)} MB`,
      );
      for (const result of results) {
        expect(result.ok).toBe(false);
        if (result.ok) continue;
        expect(result.error).toMatchObject({ kind: 'invalid_response', retryable: true, httpStatus: 200 });
        expect(result.error.message).toMatch(new RegExp(`more than ${defaultMaxResponseBytes} bytes`));
      }
      // Reading three 50 MB answers whole would have cost at least 150 MB (twice that as strings).
      expect(peakRss - before.rss).toBeLessThan(80 * 1024 * 1024);
      await emulator.control.setFaults({});
    },
  );

  it('is refused up front when Content-Length says so, and read in full when within the bound', async () => {
    const big = new Response('x'.repeat(64), { headers: { 'content-length': '64' } });
    expect(await readBounded(big, 63)).toEqual({ oversize: true });
    const fits = new Response('{"a":1}');
    expect(await readBounded(fits, 7)).toEqual({ text: '{"a":1}' });
    const streamed = new Response(
      new ReadableStream({
        pull(controller) {
          controller.enqueue(new Uint8Array(1024));
        },
      }),
    );
    // An endless stream stops at the bound.
    expect(await readBounded(streamed, 10 * 1024)).toEqual({ oversize: true });
  });
});
