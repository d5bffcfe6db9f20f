import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_ACCOUNT, TEST_SECRET, TEST_SHOP, type TestApp, waitFor } from '../helpers/app.js';
import { deliver, fixture } from '../helpers/webhooks.js';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const send = (topic: string, body: unknown, eventId?: string) =>
  deliver(app.url, { topic, shop: TEST_SHOP, body, secret: TEST_SECRET, ...(eventId ? { eventId } : {}) });

describe('a fulfilment becomes a tracker', () => {
  it('creates the UPS fixture tracker once', async () => {
    const response = await send('fulfillments/create', fixture('fulfillments-create.ups'));
    expect(response.status).toBe(200);
    await waitFor(
      'the UPS tracker at the emulator',
      async () => (await app.emulator.control.trackers(TEST_ACCOUNT.appName)).length === 1,
    );
    const [tracker] = await app.emulator.control.trackers(TEST_ACCOUNT.appName);
    expect(tracker).toMatchObject({
      tracking_number: '1Z999AA10123456784',
      tracking_provider: 'ups',
      order_id: '6120000000001',
      postal_code: '40003',
      destination_country: 'US',
    });
    expect(await app.emulator.control.calls({ operation: 'create' })).toHaveLength(1);
  });
});
