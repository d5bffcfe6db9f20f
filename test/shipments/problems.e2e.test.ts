import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePushToken } from '../../src/status-pushes/token.js';
import { trackerSeed, variantFor } from '../../tools/emulator/lifecycle.js';
import { startTestApp, TEST_ACCOUNT, TEST_SECRET, type TestApp, waitFor } from '../helpers/app.js';
import { installShop } from '../helpers/browser.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { addShop, numberedUpsFulfillment, type ScenarioShop } from '../helpers/scenario.js';
import { bearer, mintSessionToken } from '../helpers/session-token.js';
import { cliEnv, killRunningClis, runCli } from '../cli/cli-process.js';

/**
 * Shipment problems end to end: the emulator's lifecycle (every tracker following one of its other
 * courses: held, a failed attempt, returned, a number it cannot follow) pushes each event to the app; the
 * app's worker stores it and its problem sweep opens what the merchant must hear about, and closes it when
 * the parcel moves on. The merchant marks one handled and snoozes another through the page API.
 */

let app: TestApp;
let shop: ScenarioShop;
const parcels = new Map<string, { number: string; trackerId: string }>();
const hour = 3600;

/** The first numbered UPS fulfilment whose tracker follows the emulator's variant `name`. */
function fulfilmentFollowing(name: string, from: number): { n: number; body: Record<string, unknown> } {
  for (let n = from; n < from + 5000; n++) {
    const body = numberedUpsFulfillment(n);
    if (variantFor(trackerSeed(body.tracking_number as string), 1)?.name === name) return { n, body };
  }
  throw new Error(`no number follows ${name}`);
}

beforeAll(async () => {
  const emulator = await startTestEmulator({
    accounts: [{ ...TEST_ACCOUNT, https: true }],
    statusVariety: 1,
  });
  app = await startTestApp({ connect: false, emulator });
  shop = await addShop(app, 'problems');
  await installShop(app, shop.domain);
  let from = 9000;
  for (const variant of ['on hold', 'failed attempt', 'returned', 'invalid number', 'exception']) {
    const { n, body } = fulfilmentFollowing(variant, from);
    from = n + 1;
    await shop.send('fulfillments/create', body);
    parcels.set(variant, { number: body.tracking_number as string, trackerId: '' });
  }
  await shop.settled();
  for (const [variant, parcel] of parcels) {
    const tracker = await app.database.prisma.tracker.findFirstOrThrow({
      where: { shopId: shop.id, trackingNumber: parcel.number },
    });
    parcels.set(variant, { ...parcel, trackerId: tracker.id });
  }
  const url = `${app.url}/status-webhooks/${await ensurePushToken(app.database.prisma, shop.id)}`;
  await app.emulator.control.patchAccount(shop.appName, { webhookUrl: url });
}, 60_000);
afterAll(async () => {
  killRunningClis();
  await app?.close();
  await app?.emulator.close();
});

const open = async (variant: string) =>
  (
    await app.database.prisma.shipmentProblem.findMany({
      where: { trackerId: parcels.get(variant)!.trackerId },
      orderBy: { openedAt: 'asc' },
    })
  ).map((p) => ({ kind: p.kind, closed: p.closedReason }));

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${app.url}/api${path}`, {
    ...init,
    headers: {
      'content-type': 'application/json',
      ...bearer(
        mintSessionToken({ shop: shop.domain, apiKey: app.config.shopify.apiKey, secret: TEST_SECRET }),
      ),
    },
  });

describe('shipment problems from the service’s statuses', () => {
  it('a number the service cannot follow: a tracking problem', async () => {
    await app.emulator.control.advanceClock(20 * 60);
    // A tracker state is no tracking event, so it is not pushed: the next status read finds it (its time
    // brought forward here instead of waiting for it).
    await app.database.prisma.tracker.update({
      where: { id: parcels.get('invalid number')!.trackerId },
      data: { nextPollAt: new Date() },
    });
    await waitFor('the tracking problem opened', async () =>
      (await open('invalid number')).some((p) => p.kind === 'tracking_problem' && p.closed === null),
    );
  });

  it('held at a facility, or an exception on the way: each opens, and closes by itself once the parcel moves on', async () => {
    await app.emulator.control.advanceClock(29 * hour);
    await waitFor('on hold opened', async () =>
      (await open('on hold')).some((p) => p.kind === 'on_hold' && p.closed === null),
    );
    await app.emulator.control.advanceClock(2 * hour); // about 31 h: the carrier's exception
    await waitFor('carrier exception opened', async () =>
      (await open('exception')).some((p) => p.kind === 'carrier_exception' && p.closed === null),
    );
    await app.emulator.control.advanceClock(10 * hour); // out for delivery at about 40 h
    await waitFor('on hold closed (moved)', async () =>
      (await open('on hold')).every((p) => p.closed !== null),
    );
    expect((await open('on hold')).find((p) => p.kind === 'on_hold')?.closed).toBe('moved');
    await waitFor('carrier exception closed (moved)', async () =>
      (await open('exception')).every((p) => p.closed !== null),
    );
    expect((await open('exception')).find((p) => p.kind === 'carrier_exception')?.closed).toBe('moved');
  });

  it('a failed attempt opens and closes as delivered; returning to sender stays open', async () => {
    await app.emulator.control.advanceClock(4 * hour); // about 45 h: the attempt and the return
    await waitFor('failed attempt and returning opened', async () => {
      const attempt = await open('failed attempt');
      const returned = await open('returned');
      return (
        attempt.some((p) => p.kind === 'failed_attempt' && p.closed === null) &&
        returned.some((p) => p.kind === 'returning' && p.closed === null)
      );
    });
    await app.emulator.control.advanceClock(5 * hour); // delivered at about 48 h
    await waitFor('failed attempt closed (delivered)', async () =>
      (await open('failed attempt')).some((p) => p.kind === 'failed_attempt' && p.closed === 'delivered'),
    );
    expect((await open('returned')).filter((p) => p.closed === null).map((p) => p.kind)).toEqual([
      'returning',
    ]);
    // One problem per kind and episode: the many pushes and reads opened nothing twice.
    const all = await app.database.prisma.shipmentProblem.findMany({ where: { shopId: shop.id } });
    const keys = all.map((p) => `${p.trackerId} ${p.kind} ${p.since.toISOString()}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('the merchant’s view: counts per kind; Handled closes one with a note; Snooze hides one', async () => {
    const list = await api('/problems');
    expect(list.status).toBe(200);
    const page = (await list.json()) as {
      counts: Record<string, number>;
      total: number;
      problems: Array<{
        id: string;
        kind: string;
        label: string;
        advice: string;
        shipment: { trackingNumber: string };
      }>;
    };
    expect(page.counts).toMatchObject({ returning: 1, tracking_problem: 1, on_hold: 0, failed_attempt: 0 });
    expect(page.total).toBe(2);
    const returning = page.problems.find((p) => p.kind === 'returning')!;
    expect(returning).toMatchObject({
      label: 'Returning to sender',
      shipment: { trackingNumber: parcels.get('returned')!.number },
    });
    // Issue 32: one piece of advice (`advice`, the parcel model's), no `todo` beside the status's action.
    expect(returning.advice).toMatch(/reshipment or a refund/);

    const handled = await api(`/problems/${returning.id}/handled`, {
      method: 'POST',
      body: JSON.stringify({ note: 'Refunded the customer' }),
    });
    expect(handled.status).toBe(200);
    const again = await api(`/problems/${returning.id}/handled`, { method: 'POST', body: '{}' });
    expect(again.status).toBe(409);
    const row = await app.database.prisma.shipmentProblem.findUniqueOrThrow({ where: { id: returning.id } });
    expect(row).toMatchObject({ closedReason: 'handled', note: 'Refunded the customer' });

    const tracking = page.problems.find((p) => p.kind === 'tracking_problem')!;
    const snoozed = await api(`/problems/${tracking.id}/snooze`, {
      method: 'POST',
      body: JSON.stringify({ until: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10) }),
    });
    expect(snoozed.status).toBe(200);
    const after = (await (await api('/problems')).json()) as { total: number };
    expect(after.total).toBe(0);

    expect((await api('/problems/unknown-id/handled', { method: 'POST', body: '{}' })).status).toBe(404);
    expect(
      (await api(`/problems/${tracking.id}/snooze`, { method: 'POST', body: '{"until":"soon"}' })).status,
    ).toBe(400);
    expect((await api('/problems?kind=nonsense')).status).toBe(400);
  });

  it('the rules: defaults in the store’s time zone; a kind switched off closes its open problems', async () => {
    const rules = (await (await api('/problems/rules')).json()) as {
      timezone: string;
      rules: Record<string, { on: boolean; days: number }>;
    };
    expect(rules.timezone).toBe('UTC');
    expect(rules.rules.stalled).toEqual({ on: true, days: 4 });
    expect(rules.rules.not_picked_up).toEqual({ on: true, days: 3 });

    const tracking = await app.database.prisma.shipmentProblem.findFirstOrThrow({
      where: { shopId: shop.id, kind: 'tracking_problem', closedAt: null },
    });
    const saved = await api('/problems/rules', {
      method: 'PUT',
      body: JSON.stringify({ stalled: { days: 6 }, tracking_problem: { on: false } }),
    });
    expect(saved.status).toBe(200);
    expect(((await saved.json()) as { rules: Record<string, unknown> }).rules).toMatchObject({
      stalled: { on: true, days: 6 },
      tracking_problem: { on: false },
      on_hold: { on: true },
    });
    const closed = await app.database.prisma.shipmentProblem.findUniqueOrThrow({
      where: { id: tracking.id },
    });
    expect(closed.closedReason).toBe('rule_off');
    // Kept: the next read of the rules says the same.
    const reread = (await (await api('/problems/rules')).json()) as { rules: Record<string, unknown> };
    expect(reread.rules).toMatchObject({ stalled: { days: 6 }, tracking_problem: { on: false } });

    const bad = await api('/problems/rules', {
      method: 'PUT',
      body: JSON.stringify({ stalled: { days: 0 } }),
    });
    expect(bad.status).toBe(400);
    const unknown = await api('/problems/rules', {
      method: 'PUT',
      body: JSON.stringify({ lost: { on: true } }),
    });
    expect(unknown.status).toBe(400);
  });

  it('the operator CLI shows each parcel’s status, last event, estimate and open problem', async () => {
    const env = cliEnv({
      databaseUrl: app.database.url,
      trackingApiBaseUrl: app.emulator.baseUrl,
      encryptionKey: app.config.encryptionKey,
    });
    const text = await runCli(['trackers:list', '--shop', shop.domain], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/STATUS\s+LAST EVENT\s+ESTIMATE\s+PROBLEM/);
    const returned = parcels.get('returned')!.number;
    // The parcel model's label, as on the Shipments page (issue 32: not the raw code).
    expect(text.stdout).toMatch(new RegExp(`${returned}.*Returned`));
    const json = JSON.parse(
      (await runCli(['trackers:list', '--shop', shop.domain, '--json'], env)).stdout,
    ) as {
      trackers: Array<{
        trackingNumber: string;
        status: string;
        lastEventMessage: string;
        openProblems: unknown[];
      }>;
    };
    const attempt = json.trackers.find((t) => t.trackingNumber === parcels.get('failed attempt')!.number)!;
    expect(attempt).toMatchObject({ status: 'delivered', openProblems: [] });
    // Its tracking problem was closed when the kind was switched off (above).
    const invalid = json.trackers.find((t) => t.trackingNumber === parcels.get('invalid number')!.number)!;
    expect(invalid).toMatchObject({ status: 'invalid_tracking', openProblems: [] });
  });
});
