import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowLifecyclePath } from '../../src/flow/lifecycle-route.js';
import { queueFlowEvent } from '../../src/flow/queue-flow-event.js';
import { flowPayload } from '../../src/flow/triggers.js';
import { startTestApp, TEST_SECRET, TEST_SHOP, type TestApp } from '../helpers/app.js';

/**
 * Shopify Flow's trigger lifecycle callback through the running app (POST /flow/lifecycle): signed with the
 * app's secret exactly as the platform signs it (base64 HMAC-SHA256 of the raw body, X-Shopify-Hmac-SHA256),
 * it turns a trigger on or off for the shop (FlowTriggerInUse), newest callback first; a wrong signature is
 * refused before anything is read.
 */

let app: TestApp;
let shopId: string;

beforeAll(async () => {
  app = await startTestApp();
  shopId = (await app.database.prisma.shop.findUniqueOrThrow({ where: { domain: TEST_SHOP } })).id;
});
afterAll(async () => {
  await app?.close();
});

const prisma = () => app.database.prisma;

function callback(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    flow_trigger_definition_id: 'shipment-delivered',
    has_enabled_flow: true,
    shop_id: 690933842,
    shopify_domain: TEST_SHOP,
    timestamp: '2026-11-20T10:00:00.000Z',
    ...overrides,
  });
}

const sign = (body: string, secret = TEST_SECRET) =>
  createHmac('sha256', secret).update(body, 'utf8').digest('base64');

async function post(
  body: string,
  hmac: string | null = sign(body),
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${app.url}${flowLifecyclePath}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(hmac === null ? {} : { 'x-shopify-hmac-sha256': hmac }),
    },
    body,
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

const inUse = () =>
  prisma().flowTriggerInUse.findMany({
    where: { shopId },
    orderBy: { handle: 'asc' },
    select: { handle: true, updatedAt: true },
  });

describe('the Flow trigger lifecycle callback', () => {
  it('a signed callback turning a workflow on puts the trigger in use for the shop, as of its timestamp', async () => {
    expect(await post(callback())).toEqual({ status: 200, body: { ok: true, result: 'enabled' } });
    expect(await inUse()).toEqual([
      { handle: 'shipment-delivered', updatedAt: new Date('2026-11-20T10:00:00.000Z') },
    ]);
  });

  it('the trigger may be named by its name, and shop_id may come as a string', async () => {
    const body = callback({
      flow_trigger_definition_id: 'Tracking balance running low',
      shop_id: '690933842',
    });
    expect(await post(body)).toEqual({ status: 200, body: { ok: true, result: 'enabled' } });
    expect((await inUse()).map((r) => r.handle)).toEqual(['shipment-delivered', 'tracking-balance-low']);
    const event = {
      shopId,
      handle: 'tracking-balance-low' as const,
      payload: flowPayload('tracking-balance-low', { balance: 9, daysLeft: 1, perDay: 9 }),
      dedupeKey: 'lifecycle-on',
    };
    expect(await queueFlowEvent(prisma(), event)).toBe('queued');
  });

  it('turned off: no longer in use, and nothing more is queued for it', async () => {
    const body = callback({
      flow_trigger_definition_id: 'tracking-balance-low',
      has_enabled_flow: false,
      timestamp: '2026-11-20T11:00:00Z',
    });
    expect(await post(body)).toEqual({ status: 200, body: { ok: true, result: 'disabled' } });
    expect((await inUse()).map((r) => r.handle)).toEqual(['shipment-delivered']);
    const event = {
      shopId,
      handle: 'tracking-balance-low' as const,
      payload: flowPayload('tracking-balance-low', { balance: 9, daysLeft: 1, perDay: 9 }),
      dedupeKey: 'lifecycle-off',
    };
    expect(await queueFlowEvent(prisma(), event)).toBe('not_in_use');
  });

  it('an older callback than the one stored changes nothing', async () => {
    const older = callback({ has_enabled_flow: false, timestamp: '2026-11-20T09:00:00+01:00' });
    expect(await post(older)).toEqual({ status: 200, body: { ok: true, result: 'stale' } });
    const olderOn = callback({ timestamp: '2026-11-20T09:30:00Z' });
    expect(await post(olderOn)).toEqual({ status: 200, body: { ok: true, result: 'stale' } });
    expect(await inUse()).toEqual([
      { handle: 'shipment-delivered', updatedAt: new Date('2026-11-20T10:00:00.000Z') },
    ]);
    const newer = callback({ timestamp: '2026-11-20T12:00:00Z' });
    expect(await post(newer)).toEqual({ status: 200, body: { ok: true, result: 'enabled' } });
    expect((await inUse())[0]!.updatedAt).toEqual(new Date('2026-11-20T12:00:00Z'));
  });

  it('a wrong or missing signature is refused with 401 and changes nothing', async () => {
    const body = callback({ flow_trigger_definition_id: 'shipment-status-changed' });
    expect(await post(body, sign(body, 'another-apps-secret'))).toMatchObject({
      status: 401,
      body: { error: 'invalid_hmac' },
    });
    expect(await post(body, sign(`${body} `))).toMatchObject({
      status: 401,
      body: { error: 'invalid_hmac' },
    });
    expect(await post(body, null)).toMatchObject({ status: 401, body: { error: 'missing_hmac' } });
    expect((await inUse()).map((r) => r.handle)).toEqual(['shipment-delivered']);
  });

  it('a signed body that is not a callback is refused with 400', async () => {
    const bodies = [
      'not json',
      callback({ has_enabled_flow: 'yes' }),
      callback({ shopify_domain: 'example.com' }),
      callback({ timestamp: 'yesterday' }),
      JSON.stringify({ flow_trigger_definition_id: 'shipment-delivered' }),
    ];
    for (const body of bodies) {
      expect(await post(body), body).toMatchObject({ status: 400, body: { error: 'malformed_body' } });
    }
  });

  it('a shop or trigger this app does not know: 200, ignored', async () => {
    const unknownShop = callback({ shopify_domain: 'not-installed.myshopify.com' });
    expect(await post(unknownShop)).toEqual({ status: 200, body: { ok: true, result: 'unknown_shop' } });
    const unknownTrigger = callback({ flow_trigger_definition_id: 'Add row to spreadsheet' });
    expect(await post(unknownTrigger)).toEqual({
      status: 200,
      body: { ok: true, result: 'unknown_trigger' },
    });
    expect(await prisma().flowTriggerInUse.count({ where: { handle: 'Add row to spreadsheet' } })).toBe(0);
    expect((await inUse()).map((r) => r.handle)).toEqual(['shipment-delivered']);
  });

  it('a callback dated far ahead is taken as of its arrival: it does not hide the later real ones', async () => {
    const handle = 'delivery-estimate-changed';
    const at = (timestamp: string, enabled: boolean) =>
      callback({ flow_trigger_definition_id: handle, has_enabled_flow: enabled, timestamp });
    const stored = () =>
      prisma().flowTriggerInUse.findUnique({ where: { shopId_handle: { shopId, handle } } });
    const before = Date.now();
    expect(await post(at('9999-12-31T23:59:59Z', true))).toEqual({
      status: 200,
      body: { ok: true, result: 'enabled' },
    });
    const clamped = (await stored())!.updatedAt.getTime();
    expect(clamped).toBeGreaterThanOrEqual(before);
    expect(clamped).toBeLessThanOrEqual(Date.now());
    // The merchant turns the workflow off a moment later (a real time, a second after the clamped one).
    expect(await post(at(new Date(clamped + 1000).toISOString(), false))).toEqual({
      status: 200,
      body: { ok: true, result: 'disabled' },
    });
    expect(await stored()).toBeNull();
    // A few minutes of clock drift are taken as sent.
    const drift = new Date(Date.now() + 2 * 60_000).toISOString();
    expect(await post(at(drift, true))).toMatchObject({ status: 200, body: { result: 'enabled' } });
    expect((await stored())!.updatedAt.toISOString()).toBe(drift);
  });

  it('a far-future time stored before the rule holds no callback back', async () => {
    const handle = 'shipment-needs-attention';
    await prisma().flowTriggerInUse.create({
      data: { shopId, handle, updatedAt: new Date('9999-12-31T00:00:00Z') },
    });
    const now = new Date().toISOString();
    const off = callback({ flow_trigger_definition_id: handle, has_enabled_flow: false, timestamp: now });
    expect(await post(off)).toEqual({ status: 200, body: { ok: true, result: 'disabled' } });
    await prisma().flowTriggerInUse.create({
      data: { shopId, handle, updatedAt: new Date('9999-12-31T00:00:00Z') },
    });
    const on = callback({ flow_trigger_definition_id: handle, timestamp: now });
    expect(await post(on)).toEqual({ status: 200, body: { ok: true, result: 'enabled' } });
    const row = await prisma().flowTriggerInUse.findUniqueOrThrow({
      where: { shopId_handle: { shopId, handle } },
    });
    expect(row.updatedAt.toISOString()).toBe(now);
  });
});
