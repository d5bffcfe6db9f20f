import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseKeyring } from '../../src/shops/crypto.js';
import { connectShop } from '../../src/shops/connect-shop.js';
import { createShopRepository, type ShopRepository } from '../../src/shops/shop-repository.js';
import { createTrackingClient, type TrackingClient } from '../../src/tracking/client.js';
import { useTestDatabase } from '../helpers/database.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { randomKey, uniqueDomain } from '../helpers/factories.js';

const account = {
  apiKey: 'connect-key-000000001',
  appName: 'connect-store',
  plan: 'Pro',
  balance: 5,
  https: true,
};
const plainHttpAccount = {
  apiKey: 'connect-key-000000002',
  appName: 'plain-http-store',
  plan: 'Free',
  balance: 5,
  https: false,
};

const db = useTestDatabase({ reset: true });
let emulator: TestEmulator;
let client: TrackingClient;
let shops: ShopRepository;

beforeAll(async () => {
  emulator = await startTestEmulator({ accounts: [account, plainHttpAccount] });
  client = createTrackingClient({ baseUrl: emulator.baseUrl, retry: { maxAttempts: 1 }, timeoutMs: 2_000 });
  shops = createShopRepository(db.prisma, parseKeyring(randomKey()));
});
afterAll(async () => {
  await emulator?.close();
});
beforeEach(async () => {
  await emulator.control.reset();
});

describe('connectShop', () => {
  it('accepts credentials the service knows, stores them sealed and lifts the shop pause', async () => {
    const domain = uniqueDomain();
    await shops.ensure(domain); // first heard of through a webhook: paused, not connected
    const result = await connectShop(
      { client, shops },
      { domain: `  ${domain.toUpperCase()} `, apiKey: account.apiKey, appName: account.appName },
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.shop).toMatchObject({ domain, appName: account.appName, pausedReason: null });
    expect(result.shop.apiKeyCiphertext).not.toContain(account.apiKey);
    expect(await shops.credentials(result.shop)).toEqual({
      apiKey: account.apiKey,
      appName: account.appName,
    });

    // The check is one get of a number that cannot exist: no tracker, no balance spent.
    const calls = await emulator.control.calls();
    expect(calls.map((c) => c.operation)).toEqual(['get']);
    expect(calls[0]!.body).toMatchObject({ tracking_number: 'TRACKSYNC-CONNECTION-CHECK' });
    expect(await emulator.control.trackers()).toEqual([]);
  });

  it('reports ssl_error for an account whose store is not HTTPS, and stores nothing', async () => {
    const domain = uniqueDomain();
    const result = await connectShop(
      { client, shops },
      { domain, apiKey: plainHttpAccount.apiKey, appName: plainHttpAccount.appName },
    );
    expect(result).toMatchObject({ ok: false, reason: 'ssl_error' });
    expect(await shops.findByDomain(domain)).toBeNull();
  });

  it('reports unauthorized for an unknown API key', async () => {
    const domain = uniqueDomain();
    const result = await connectShop(
      { client, shops },
      { domain, apiKey: 'not-a-known-key-123', appName: account.appName },
    );
    expect(result).toMatchObject({ ok: false, reason: 'unauthorized' });
    if (!result.ok) expect(result.message).not.toContain('not-a-known-key-123');
    expect(await shops.findByDomain(domain)).toBeNull();
  });

  it('reports unauthorized for a known key with another app name', async () => {
    const result = await connectShop(
      { client, shops },
      { domain: uniqueDomain(), apiKey: account.apiKey, appName: 'someone-else' },
    );
    expect(result).toMatchObject({ ok: false, reason: 'unauthorized' });
  });

  it('reports unreachable when the service fails, and keeps an earlier connection untouched', async () => {
    const domain = uniqueDomain();
    const earlier = await shops.saveCredentials(domain, { apiKey: account.apiKey, appName: account.appName });
    await emulator.control.setFaults({ errorRate: 1 });
    const result = await connectShop(
      { client, shops },
      { domain, apiKey: 'another-key-0000000', appName: account.appName },
    );
    expect(result).toMatchObject({ ok: false, reason: 'unreachable' });
    const row = await shops.findByDomain(domain);
    expect(row?.apiKeyCiphertext).toBe(earlier.apiKeyCiphertext);
  });

  it('reports unreachable when nothing listens', async () => {
    const gone = await startTestEmulator();
    const baseUrl = gone.baseUrl;
    await gone.close();
    const offline = createTrackingClient({ baseUrl, retry: { maxAttempts: 1 }, timeoutMs: 2_000 });
    const result = await connectShop(
      { client: offline, shops },
      { domain: uniqueDomain(), apiKey: account.apiKey, appName: account.appName },
    );
    expect(result).toMatchObject({ ok: false, reason: 'unreachable' });
  });

  it.each([
    ['a domain that is not *.myshopify.com', { domain: 'example.com' }, /domain/],
    ['a short API key', { apiKey: 'short' }, /apiKey/],
    ['an empty app name', { appName: '   ' }, /appName/],
  ])('refuses %s as invalid_input without calling the service', async (_what, patch, message) => {
    const result = await connectShop(
      { client, shops },
      { domain: uniqueDomain(), apiKey: account.apiKey, appName: account.appName, ...patch },
    );
    expect(result).toMatchObject({ ok: false, reason: 'invalid_input' });
    if (!result.ok) expect(result.message).toMatch(message);
    expect(await emulator.control.calls()).toEqual([]);
  });
});
