import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CallLogEntry } from '../../tools/emulator/call-log.js';
import { type RunningEmulator, startEmulator } from '../../tools/emulator/index.js';
import { control, createTracker } from './http-helpers.js';

/**
 * The emulator's tracking webhook: a local receiver gets one POST per new tracking event, with the
 * account's key in both headers and the get operation's data as the body; failures are retried; the push
 * faults drop, duplicate and reorder; every attempt is in the call log as `push`.
 */

const key = 'push-secret-key-123';
const auth = { 'service-api-key': key, 'app-name': 'pusher' };

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: {
    tracking_number: string;
    tracking_event_status: string;
    events: unknown[];
    last_event_time: string;
  };
}

let em: RunningEmulator;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
/** Answers for the next requests (default 200). */
const answers: number[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = answers.shift() ?? 200;
      if (status === 200)
        received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(status).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/secret-token-abc`;
  em = await startEmulator({
    port: 0,
    accounts: [{ apiKey: key, appName: 'pusher', plan: 'Pro', balance: 50, https: true }],
    pushes: { intervalMs: 20, retryBaseMs: 20, reorderHoldMs: 300 },
  });
});
afterEach(async () => {
  await control(em, '/reset');
  received.length = 0;
  answers.length = 0;
});
afterAll(async () => {
  await em.close();
  receiver.closeAllConnections();
  receiver.close();
});

async function pushCalls(): Promise<CallLogEntry[]> {
  return (await control(em, '/calls?operation=push', undefined, 'GET')).json.calls;
}

async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A tracker, the webhook set, and the clock moved past its first `events` events' latest times. */
async function trackerWithWebhook(number: string, seconds: number): Promise<void> {
  const patched = await control(em, '/accounts/pusher', { webhookUrl: receiverUrl }, 'PATCH');
  expect(patched.json.account).toMatchObject({ webhookUrl: receiverUrl });
  await createTracker(em, { tracking_number: number, tracking_provider: 'ups', order_id: '9001' }, auth);
  await control(em, '/clock/advance', { seconds });
}

describe('the emulator pushes tracking events', () => {
  it('one POST per new event, with the key in both headers and the shipment as it was at that event', async () => {
    await trackerWithWebhook('PUSH1', 7 * 3600);
    await until(() => received.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received).toHaveLength(2);
    for (const r of received) {
      expect(r.headers['service-api-key']).toBe(key);
      expect(r.headers['trackship-api-key']).toBe(key);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.body.tracking_number).toBe('PUSH1');
    }
    expect(received.map((r) => r.body.events.length)).toEqual([1, 2]);
    expect(received.map((r) => r.body.tracking_event_status)).toEqual(['pre_transit', 'in_transit']);
    // Nothing new: nothing more.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received).toHaveLength(2);
    const calls = await pushCalls();
    expect(calls.map((c) => [c.operation, c.httpStatus, c.appName])).toEqual([
      ['push', 200, 'pusher'],
      ['push', 200, 'pusher'],
    ]);
    // The receiver's token is not kept in the log.
    expect(calls[0]!.path).toBe('/hooks/[token]');
    expect(JSON.stringify(calls)).not.toContain(key);
  });

  it('a push not answered 2xx is tried again with backoff', async () => {
    answers.push(500, 503);
    await trackerWithWebhook('PUSH2', 30 * 60);
    await until(() => received.length >= 1);
    expect((await pushCalls()).map((c) => c.httpStatus)).toEqual([500, 503, 200]);
  });

  it('events from before the webhook was set are not pushed', async () => {
    await createTracker(em, { tracking_number: 'PUSH3', tracking_provider: 'ups', order_id: '9003' }, auth);
    await control(em, '/clock/advance', { seconds: 7 * 3600 });
    await control(em, '/accounts/pusher', { webhookUrl: receiverUrl }, 'PATCH');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(received).toHaveLength(0);
    await control(em, '/accounts/pusher', { webhookUrl: null }, 'PATCH');
  });

  it('faults: dropped pushes never come, duplicated ones come twice, reordered ones come late', async () => {
    await control(em, '/faults', { pushDropRate: 1 }, 'PATCH');
    await trackerWithWebhook('PUSH4', 30 * 60);
    await until(async () => (await pushCalls()).length >= 1);
    expect((await pushCalls()).map((c) => c.fault)).toEqual(['drop']);
    expect(received).toHaveLength(0);

    await control(em, '/reset');
    await control(em, '/faults', { pushDuplicateRate: 1 }, 'PATCH');
    await trackerWithWebhook('PUSH5', 30 * 60);
    await until(() => received.length >= 2);
    expect(received.map((r) => r.body.tracking_number)).toEqual(['PUSH5', 'PUSH5']);

    await control(em, '/reset');
    received.length = 0;
    await control(em, '/faults', { pushReorderRate: 0.5 }, 'PATCH');
    await trackerWithWebhook('PUSH6', 5 * 24 * 3600);
    await until(() => received.length >= 5, 5_000);
    const counts = received.map((r) => r.body.events.length);
    expect([...counts].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
    expect(counts).not.toEqual([1, 2, 3, 4, 5]);
  });
});
