import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addShop, numberedUpsFulfillment, type ScenarioShop } from '../helpers/scenario.js';

/**
 * The balance a create reports is stored with the batch's outcomes, and a shop whose balance lasts fewer
 * days than its setting at its current volume gets "Tracking balance running low" queued through Flow, once
 * a day: only a shop with a workflow on that trigger (the forecast is read for those alone).
 */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function useTrigger(shop: ScenarioShop) {
  await app.database.prisma.flowTriggerInUse.create({
    data: { shopId: shop.id, handle: 'tracking-balance-low' },
  });
}

const flowEvents = (shop: ScenarioShop) =>
  app.database.prisma.flowEvent.findMany({
    where: { shopId: shop.id },
    select: { handle: true, payload: true },
  });

describe('the balance a create reports', () => {
  it('is stored, and warns through Flow the shop whose balance runs low, if it uses the trigger', async () => {
    const watching = await addShop(app, 'balance-watch', { balance: 4 });
    const silent = await addShop(app, 'balance-silent', { balance: 4 });
    await useTrigger(watching);
    for (const shop of [watching, silent]) {
      for (let n = 1; n <= 3; n++) await shop.send('fulfillments/create', numberedUpsFulfillment(n));
    }
    await Promise.all([watching.settled(), silent.settled()]);

    for (const shop of [watching, silent]) {
      expect((await shop.remote()).length).toBe(3);
      const stored = await app.database.prisma.shop.findUniqueOrThrow({ where: { id: shop.id } });
      // 4 at the start, one taken by each create.
      expect(stored.trackersBalance).toBe(1);
    }
    // 3 parcels today: 3/14 a day, so 1 left lasts 4 days, fewer than the default 7.
    const [event, ...more] = await flowEvents(watching);
    expect(more).toEqual([]);
    expect(event?.handle).toBe('tracking-balance-low');
    expect(JSON.parse(event!.payload)).toMatchObject({ Balance: 1, 'Days left': 4 });
    expect(await flowEvents(silent)).toEqual([]);
  });
});
