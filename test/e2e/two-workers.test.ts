import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Runtime, startRuntime } from '../../src/app/runtime.js';
import { silentLogger } from '../../src/logger.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addShop, countByNumber, numberedUpsFulfillment, numbersOf } from '../helpers/scenario.js';

/**
 * Two workers on one database (a scaled-out deployment): they share deliveries and trackers through leases,
 * so every tracker is still created exactly once.
 */

let app: TestApp;
let secondWorker: Runtime;
/** Creates sent by the second worker (through its own fetch). */
let secondWorkerCreates = 0;

beforeAll(async () => {
  app = await startTestApp({ connect: false });
  secondWorker = await startRuntime(
    { ...app.config, role: 'worker' },
    {
      logger: silentLogger,
      migrate: false,
      idlePollMs: 10,
      fetch: (input, init) => {
        if (input.endsWith('/shipment/create/')) secondWorkerCreates++;
        return fetch(input, init);
      },
    },
  );
});
afterAll(async () => {
  await secondWorker?.close();
  await app?.close();
});

describe('two workers, one database', () => {
  it(
    '40 fulfilments with slow creates: every tracker created once, work shared',
    { timeout: 60_000 },
    async () => {
      const shop = await addShop(app, 'shared');
      // Slow creates keep both workers busy at the same time.
      await app.emulator.control.setFaults({ latencyMs: 100, operations: ['create'] });
      const numbers: string[] = [];
      try {
        for (let n = 0; n < 40; n++) {
          const body = numberedUpsFulfillment(n);
          numbers.push(body.tracking_number as string);
          await shop.send('fulfillments/create', body);
          secondWorker.worker?.wake();
        }
        numbers.sort();
        await shop.settled(30_000);
      } finally {
        await app.emulator.control.setFaults({});
      }

      expect(numbersOf(await shop.remote())).toEqual(numbers);
      const creates = await shop.calls('create');
      expect(creates).toHaveLength(40);
      expect([...countByNumber(creates).values()].every((n) => n === 1)).toBe(true);
      expect(await shop.calls('get')).toEqual([]);
      // Both took part.
      expect(secondWorkerCreates).toBeGreaterThan(0);
      expect(secondWorkerCreates).toBeLessThan(40);
      console.info(`two workers: 40 trackers, 40 create calls, ${secondWorkerCreates} by the second worker`);
      const deliveries = await app.database.prisma.webhookDelivery.findMany({
        where: { shopDomain: shop.domain },
      });
      expect(deliveries.every((d) => d.state === 'processed' && d.attempts === 1)).toBe(true);
    },
  );
});
