import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../tools/emulator/index.js';
import { call, control, createTracker, paths } from './http-helpers.js';

let em: RunningEmulator;

beforeAll(async () => {
  em = await startEmulator({ port: 0 });
});

afterAll(async () => {
  await em.close();
});

beforeEach(async () => {
  await control(em, '/reset');
});

const missing = (name: string) => ({ status: 'error', message: `Missing required parameter: ${name}` });
const providerNotFound = { status: 'error', message: 'Shipping provider not found' };

async function balance(): Promise<number> {
  const res = await control(em, '/accounts', undefined, 'GET');
  return res.json.accounts.find((a: { appName: string }) => a.appName === 'demo-store').balance;
}

describe('create', () => {
  it('creates a tracker, charges 1 and reports balance as text and plan', async () => {
    const res = await createTracker(em, {
      tracking_number: 'C1',
      tracking_provider: 'usps',
      order_id: '1001',
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      status: 'ok',
      status_msg: 'pending',
      trackers_balance: '99',
      user_plan: 'Free',
    });
    expect(await balance()).toBe(99);
    const trackers = await control(em, '/trackers?appName=demo-store', undefined, 'GET');
    expect(trackers.json.trackers).toEqual([
      {
        appName: 'demo-store',
        tracking_number: 'C1',
        tracking_provider: 'usps',
        order_id: '1001',
        postal_code: null,
        destination_country: '',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        status: 'pending',
      },
    ]);
  });

  it('creating the same tracker twice keeps one tracker and charges once', async () => {
    const body = { tracking_number: 'C2', tracking_provider: 'fedex', order_id: '1002' };
    const first = await createTracker(em, body);
    const second = await createTracker(em, body);
    expect(first.json.trackers_balance).toBe('99');
    expect(second.status).toBe(200);
    expect(second.json).toEqual({
      status: 'ok',
      status_msg: 'pending',
      trackers_balance: '99',
      user_plan: 'Free',
    });
    expect(em.state.listTrackers('demo-store')).toHaveLength(1);
    expect(await balance()).toBe(99);
  });

  it('the same number with another provider is another tracker', async () => {
    await createTracker(em, { tracking_number: 'C3', tracking_provider: 'ups', order_id: '1003' });
    const res = await createTracker(em, {
      tracking_number: 'C3',
      tracking_provider: 'fedex',
      order_id: '1003',
    });
    expect(res.json.trackers_balance).toBe('98');
    expect(em.state.listTrackers()).toHaveLength(2);
  });

  it('a re-create with another order id keeps the first order id', async () => {
    await createTracker(em, { tracking_number: 'C4', tracking_provider: 'ups', order_id: 'A' });
    const res = await createTracker(em, { tracking_number: 'C4', tracking_provider: 'ups', order_id: 'B' });
    expect(res.json.status).toBe('ok');
    expect(em.state.listTrackers()[0]?.orderId).toBe('A');
  });

  it('with balance 0 → 200 Trackers balance exhausted, nothing created; an existing one still answers ok', async () => {
    await createTracker(em, { tracking_number: 'C5', tracking_provider: 'ups', order_id: '1005' });
    await control(em, '/accounts/demo-store', { balance: 0 }, 'PATCH');
    const res = await createTracker(em, {
      tracking_number: 'C6',
      tracking_provider: 'ups',
      order_id: '1006',
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      status: 'error',
      status_msg: 'Trackers balance exhausted',
      trackers_balance: '0',
      user_plan: 'Free',
    });
    expect(em.state.listTrackers()).toHaveLength(1);
    const again = await createTracker(em, {
      tracking_number: 'C5',
      tracking_provider: 'ups',
      order_id: '1005',
    });
    expect(again.json).toEqual({
      status: 'ok',
      status_msg: 'pending',
      trackers_balance: '0',
      user_plan: 'Free',
    });
  });

  it('runs the balance down to exhaustion', async () => {
    await control(em, '/accounts/demo-store', { balance: 2 }, 'PATCH');
    const answers: string[] = [];
    for (const n of ['E1', 'E2', 'E3']) {
      const res = await createTracker(em, { tracking_number: n, tracking_provider: 'dpd', order_id: 'E' });
      answers.push(`${res.json.status}:${res.json.trackers_balance}`);
    }
    expect(answers).toEqual(['ok:1', 'ok:0', 'error:0']);
  });

  it.each(['tracking_number', 'tracking_provider', 'order_id'])(
    'without %s → 400 Missing required parameter',
    async (name) => {
      const body: Record<string, unknown> = {
        tracking_number: 'C7',
        tracking_provider: 'ups',
        order_id: '1007',
      };
      delete body[name];
      const res = await createTracker(em, body);
      expect(res.status).toBe(400);
      expect(res.json).toEqual(missing(name));
    },
  );

  it('a non-string or blank required field counts as missing', async () => {
    for (const value of [123, null, true, {}, [], '', '   ']) {
      const res = await createTracker(em, {
        tracking_number: value,
        tracking_provider: 'ups',
        order_id: '1',
      });
      expect(res.status).toBe(400);
      expect(res.json).toEqual(missing('tracking_number'));
    }
    const numericOrder = await createTracker(em, {
      tracking_number: 'C8',
      tracking_provider: 'ups',
      order_id: 1008,
    });
    expect(numericOrder.json).toEqual(missing('order_id'));
  });

  it('an empty order_id → 200 status_msg Order id not found', async () => {
    const res = await createTracker(em, { tracking_number: 'C9', tracking_provider: 'ups', order_id: '' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      status: 'error',
      status_msg: 'Order id not found',
      trackers_balance: '100',
      user_plan: 'Free',
    });
    expect(em.state.trackerCount).toBe(0);
  });

  it('an unknown provider → 400 Shipping provider not found', async () => {
    const res = await createTracker(em, { tracking_number: 'C10', tracking_provider: 'UPS', order_id: '1' });
    expect(res.status).toBe(400);
    expect(res.json).toEqual(providerNotFound);
  });

  it('a non-string optional field → 400 Invalid parameter', async () => {
    const res = await createTracker(em, {
      tracking_number: 'C11',
      tracking_provider: 'ups',
      order_id: '1',
      postal_code: 12345,
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ status: 'error', message: 'Invalid parameter: postal_code' });
  });

  describe('carrier requirements', () => {
    it.each([
      ['postnl-3s', {}, 'postal_code and destination_country are required for postnl-3s'],
      ['postnl-3s', { postal_code: '1011AB' }, 'destination_country is required for postnl-3s'],
      ['postnl-3s', { destination_country: 'NL' }, 'postal_code is required for postnl-3s'],
      ['postnl', { postal_code: '' }, 'postal_code and destination_country are required for postnl'],
      ['gls', { destination_country: 'DE' }, 'postal_code is required for gls'],
      ['dhl-paket', {}, 'postal_code is required for dhl-paket'],
      ['bpost', {}, 'postal_code is required for bpost'],
      ['chronopost', {}, 'postal_code is required for chronopost'],
    ])('%s with %j → 200 error naming what is missing, nothing created', async (slug, extra, message) => {
      const res = await createTracker(em, {
        tracking_number: 'R1',
        tracking_provider: slug,
        order_id: '1',
        ...extra,
      });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({
        status: 'error',
        status_msg: message,
        trackers_balance: '100',
        user_plan: 'Free',
      });
      expect(em.state.trackerCount).toBe(0);
    });

    it('creates when the required fields are given and reports them back', async () => {
      const res = await createTracker(em, {
        tracking_number: 'R2',
        tracking_provider: 'postnl-3s',
        order_id: '1',
        postal_code: '1011AB',
        destination_country: 'NL',
      });
      expect(res.json.status).toBe('ok');
      const got = await call(em, paths.get, { body: { tracking_number: 'R2' } });
      expect(got.json.data.destination_country).toBe('NL');
      expect(Array.isArray(got.json.data.destination_events)).toBe(true);
    });
  });
});

describe('get', () => {
  it('an unknown tracking → 200 Tracking information does not exist', async () => {
    const res = await call(em, paths.get, { body: { tracking_number: 'nope' } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'error', message: 'Tracking information does not exist' });
  });

  it('without tracking_number → 400', async () => {
    const res = await call(em, paths.get, { body: { tracking_provider: 'ups' } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual(missing('tracking_number'));
  });

  it('an unknown provider → 400 Shipping provider not found', async () => {
    const res = await call(em, paths.get, { body: { tracking_number: 'x', tracking_provider: 'nope' } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual(providerNotFound);
  });

  it('answers the full shipment data, in snake_case, per the spec', async () => {
    await createTracker(em, { tracking_number: 'G1', tracking_provider: 'ups', order_id: '2001' });
    const res = await call(em, paths.get, { body: { tracking_number: 'G1', tracking_provider: 'ups' } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      status: 'success',
      data: {
        order_id: '2001',
        tracking_number: 'G1',
        tracking_provider: 'ups',
        tracking_event_status: 'pending',
        tracking_est_delivery_date: null,
        origin_country: null,
        destination_country: '',
        delivery_number: null,
        delivery_provider: null,
        shipping_service: 'UPS Ground&reg;',
        last_event_time: null,
        events: [],
        destination_events: null,
      },
    });
  });

  it('with several providers for one number, answers the newest unless the provider is given', async () => {
    await createTracker(em, { tracking_number: 'G2', tracking_provider: 'ups', order_id: 'old' });
    await createTracker(em, { tracking_number: 'G2', tracking_provider: 'dhl-express', order_id: 'new' });
    const newest = await call(em, paths.get, { body: { tracking_number: 'G2' } });
    expect(newest.json.data.tracking_provider).toBe('dhl-express');
    expect(newest.json.data.shipping_service).toBe('DHL Express Worldwide &amp; Priority');
    const named = await call(em, paths.get, { body: { tracking_number: 'G2', tracking_provider: 'ups' } });
    expect(named.json.data.order_id).toBe('old');
    const other = await call(em, paths.get, { body: { tracking_number: 'G2', tracking_provider: 'fedex' } });
    expect(other.json).toEqual({ status: 'error', message: 'Tracking information does not exist' });
  });

  it('an empty tracking_provider is treated as absent', async () => {
    await createTracker(em, { tracking_number: 'G3', tracking_provider: 'usps', order_id: '1' });
    const res = await call(em, paths.get, { body: { tracking_number: 'G3', tracking_provider: '' } });
    expect(res.json.data.shipping_service).toBe('<b>Priority</b> Mail&#8482;');
  });
});

describe('by-order-id', () => {
  it('an unknown order → 200 Order id not found', async () => {
    const res = await call(em, paths.byOrderId, { body: { order_id: 'none' } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'error', message: 'Order id not found' });
  });

  it('without order_id → 400', async () => {
    const res = await call(em, paths.byOrderId, { body: {} });
    expect(res.status).toBe(400);
    expect(res.json).toEqual(missing('order_id'));
  });

  it('lists every tracker of the order, oldest first, with a subset of the fields', async () => {
    await createTracker(em, { tracking_number: 'B1', tracking_provider: 'ups', order_id: '3001' });
    await createTracker(em, { tracking_number: 'B2', tracking_provider: 'usps', order_id: '3001' });
    await createTracker(em, { tracking_number: 'B3', tracking_provider: 'usps', order_id: '3002' });
    const res = await call(em, paths.byOrderId, { body: { order_id: '3001' } });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('success');
    expect(res.json.data.map((d: { tracking_number: string }) => d.tracking_number)).toEqual(['B1', 'B2']);
    for (const item of res.json.data) {
      expect(Object.keys(item).sort()).toEqual(
        [
          'order_id',
          'tracking_number',
          'tracking_provider',
          'tracking_event_status',
          'destination_country',
          'last_event_time',
          'events',
          'destination_events',
        ].sort(),
      );
    }
  });
});

describe('delete', () => {
  const body = { tracking_number: 'D1', tracking_provider: 'ups', order_id: '4001' };

  it('deletes, without refund', async () => {
    await createTracker(em, body);
    const res = await call(em, paths.delete, { body });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'success', message: 'Tracking deleted successfully' });
    expect(em.state.trackerCount).toBe(0);
    expect(await balance()).toBe(99);
    const got = await call(em, paths.get, { body: { tracking_number: 'D1' } });
    expect(got.json.status).toBe('error');
    const order = await call(em, paths.byOrderId, { body: { order_id: '4001' } });
    expect(order.json).toEqual({ status: 'error', message: 'Order id not found' });
  });

  it('a deleted tracker can be created again (and is charged again)', async () => {
    await createTracker(em, body);
    await call(em, paths.delete, { body });
    const res = await createTracker(em, body);
    expect(res.json.trackers_balance).toBe('98');
  });

  it.each(['tracking_number', 'tracking_provider', 'order_id'])('without %s → 400', async (name) => {
    const partial: Record<string, unknown> = { ...body };
    delete partial[name];
    const res = await call(em, paths.delete, { body: partial });
    expect(res.status).toBe(400);
    expect(res.json).toEqual(missing(name));
  });

  it('an unknown provider → 400 Shipping provider not found', async () => {
    const res = await call(em, paths.delete, { body: { ...body, tracking_provider: 'zzz' } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual(providerNotFound);
  });

  it('an unknown tracking → 400 Tracking number not found', async () => {
    const res = await call(em, paths.delete, { body });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ status: 'error', message: 'Tracking number not found' });
  });

  it('another order id → 400 Order id not found, tracker kept', async () => {
    await createTracker(em, body);
    const res = await call(em, paths.delete, { body: { ...body, order_id: 'other' } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ status: 'error', message: 'Order id not found' });
    expect(em.state.trackerCount).toBe(1);
  });
});
