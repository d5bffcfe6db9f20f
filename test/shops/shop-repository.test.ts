import { changeShopSettings } from '../../src/shipments/shop-settings.js';
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { open, parseKeyring, SecretUnreadableError } from '../../src/shops/crypto.js';
import { ensurePushToken } from '../../src/status-pushes/token.js';
import { createShopRepository, ensureShop, viewOf } from '../../src/shops/shop-repository.js';
import { createShop, randomKey, uniqueDomain } from '../helpers/factories.js';
import { useTestDatabase } from '../helpers/database.js';

const db = useTestDatabase({ reset: true });

const credentials = { apiKey: 'service-key-0123456789', appName: 'my-store' };

describe('credentials at rest', () => {
  it('seals the API key on write: the row holds ciphertext and the key id, never the key', async () => {
    const keyring = parseKeyring(`k1:${randomKey()}`);
    const shops = createShopRepository(db.prisma, keyring);
    const domain = uniqueDomain();
    const shop = await shops.saveCredentials(domain, credentials);

    const row = await db.prisma.shop.findUniqueOrThrow({ where: { domain } });
    expect(row.appName).toBe('my-store');
    expect(row.apiKeyKeyId).toBe('k1');
    expect(row.apiKeyCiphertext).toBeTruthy();
    expect(JSON.stringify(row)).not.toContain(credentials.apiKey);
    expect(open(keyring, { keyId: 'k1', ciphertext: row.apiKeyCiphertext! })).toBe(credentials.apiKey);
    expect(viewOf(shop)).toMatchObject({ hasApiKey: true, appName: 'my-store' });
    expect(JSON.stringify(viewOf(shop))).not.toContain(row.apiKeyCiphertext!);
  });

  it('opens the key when asked, and answers null for a shop with no credentials', async () => {
    const shops = createShopRepository(db.prisma, parseKeyring(randomKey()));
    const saved = await shops.saveCredentials(uniqueDomain(), credentials);
    expect(await shops.credentials(saved)).toEqual(credentials);

    const bare = await shops.ensure(uniqueDomain());
    expect(await shops.credentials(bare)).toBeNull();
  });

  it('ensure: concurrent first calls for a new store all get its one row (no unique-key error)', async () => {
    const shops = createShopRepository(db.prisma, parseKeyring(randomKey()));
    for (let round = 0; round < 5; round++) {
      const domain = uniqueDomain();
      const rows = await Promise.all(Array.from({ length: 6 }, () => shops.ensure(domain)));
      expect(new Set(rows.map((r) => r.id)).size).toBe(1);
      expect(rows[0]).toMatchObject({ domain, pausedReason: 'not_connected' });
    }
  });

  it('re-seals a key sealed with a retired key id when it is read, and keeps opening it', async () => {
    const oldKey = randomKey();
    const before = createShopRepository(db.prisma, parseKeyring(`k1:${oldKey}`));
    const domain = uniqueDomain();
    await before.saveCredentials(domain, credentials);
    const oldRow = await db.prisma.shop.findUniqueOrThrow({ where: { domain } });

    const rotated = parseKeyring(`k2:${randomKey()},k1:${oldKey}`);
    const after = createShopRepository(db.prisma, rotated);
    expect(await after.credentials(oldRow)).toEqual(credentials);

    const resealed = await db.prisma.shop.findUniqueOrThrow({ where: { domain } });
    expect(resealed.apiKeyKeyId).toBe('k2');
    expect(resealed.apiKeyCiphertext).not.toBe(oldRow.apiKeyCiphertext);
    expect(open(rotated, { keyId: 'k2', ciphertext: resealed.apiKeyCiphertext! })).toBe(credentials.apiKey);

    // Once the old key is retired for good, the re-sealed secret still opens.
    const onlyNew = createShopRepository(
      db.prisma,
      parseKeyring(`k2:${rotated.keys.get('k2')!.toString('base64')}`),
    );
    expect(await onlyNew.credentials(resealed)).toEqual(credentials);
  });

  it('does not overwrite credentials saved meanwhile when re-sealing a stale read', async () => {
    const oldKey = randomKey();
    const domain = uniqueDomain();
    await createShopRepository(db.prisma, parseKeyring(`k1:${oldKey}`)).saveCredentials(domain, credentials);
    const staleRow = await db.prisma.shop.findUniqueOrThrow({ where: { domain } });

    const rotated = createShopRepository(db.prisma, parseKeyring(`k2:${randomKey()},k1:${oldKey}`));
    await rotated.saveCredentials(domain, { apiKey: 'a-newer-key-000000', appName: 'my-store' });
    expect(await rotated.credentials(staleRow)).toEqual(credentials); // what that read held

    const fresh = await db.prisma.shop.findUniqueOrThrow({ where: { domain } });
    expect(await rotated.credentials(fresh)).toEqual({ apiKey: 'a-newer-key-000000', appName: 'my-store' });
  });

  it('saving credentials lifts every pause and the uninstalled mark', async () => {
    const shops = createShopRepository(db.prisma, parseKeyring(randomKey()));
    const shop = await createShop(db.prisma, {
      pausedReason: 'uninstalled',
      pausedAt: new Date(),
      probeAt: new Date(),
    });
    await db.prisma.shop.update({ where: { id: shop.id }, data: { uninstalledAt: new Date() } });
    const saved = await shops.saveCredentials(shop.domain, credentials);
    expect(saved).toMatchObject({
      pausedReason: null,
      pausedAt: null,
      pausedMessage: null,
      probeAt: null,
      uninstalledAt: null,
    });
    expect(viewOf(saved).paused).toBeNull();
  });
});

describe('ensureShop', () => {
  it('makes an unknown shop paused as not connected, and leaves a known one as it is', async () => {
    const domain = uniqueDomain();
    const made = await ensureShop(db.prisma, domain);
    expect(made).toMatchObject({ domain, pausedReason: 'not_connected', apiKeyCiphertext: null });
    expect(made.pausedAt).toBeInstanceOf(Date);

    const shops = createShopRepository(db.prisma, parseKeyring(randomKey()));
    await shops.saveCredentials(domain, credentials);
    const again = await ensureShop(db.prisma, domain);
    expect(again.id).toBe(made.id);
    expect(again.pausedReason).toBeNull();
  });
});

describe('pause and resume', () => {
  it('pauses with reason, message and probe time, and shows it in the view', async () => {
    const shops = createShopRepository(db.prisma, parseKeyring(randomKey()));
    const shop = await shops.saveCredentials(uniqueDomain(), credentials);
    const probeAt = new Date(Date.now() + 60_000);
    await shops.pause(shop.id, 'balance_exhausted', 'no trackers left', probeAt);
    const paused = (await shops.findById(shop.id))!;
    expect(paused).toMatchObject({
      pausedReason: 'balance_exhausted',
      pausedMessage: 'no trackers left',
      probeAt,
    });
    expect(viewOf(paused).paused).toMatchObject({ reason: 'balance_exhausted', message: 'no trackers left' });
  });

  it.each(['ssl_error', 'unauthorized', 'balance_exhausted'] as const)(
    'a successful probe lifts a %s pause',
    async (reason) => {
      const shops = createShopRepository(db.prisma, parseKeyring(randomKey()));
      const shop = await shops.saveCredentials(uniqueDomain(), credentials);
      await shops.pause(shop.id, reason, 'held', new Date());
      await shops.resumeAfterProbe(shop.id);
      expect(await shops.findById(shop.id)).toMatchObject({
        pausedReason: null,
        pausedAt: null,
        pausedMessage: null,
        probeAt: null,
      });
    },
  );

  it.each(['not_connected', 'uninstalled'] as const)(
    'a probe never lifts a %s pause: that needs the merchant',
    async (reason) => {
      const shops = createShopRepository(db.prisma, parseKeyring(randomKey()));
      const shop = await shops.saveCredentials(uniqueDomain(), credentials);
      await shops.pause(shop.id, reason, 'held', null);
      await shops.resumeAfterProbe(shop.id);
      expect(await shops.findById(shop.id)).toMatchObject({ pausedReason: reason });
    },
  );
});

describe('recordAccount and settings', () => {
  it('records balance (truncated) and plan, and leaves a value alone when the answer lacked it', async () => {
    const shops = createShopRepository(db.prisma, parseKeyring(randomKey()));
    const shop = await shops.saveCredentials(uniqueDomain(), credentials);
    await shops.recordAccount(shop.id, { trackersBalance: 41.9, userPlan: 'Pro' });
    expect(await shops.findById(shop.id)).toMatchObject({ trackersBalance: 41, userPlan: 'Pro' });
    await shops.recordAccount(shop.id, { trackersBalance: null, userPlan: 'Business' });
    expect(await shops.findById(shop.id)).toMatchObject({ trackersBalance: 41, userPlan: 'Business' });
    await shops.recordAccount(shop.id, { trackersBalance: 0, userPlan: null });
    expect(await shops.findById(shop.id)).toMatchObject({ trackersBalance: 0, userPlan: 'Business' });
    await shops.recordAccount(shop.id, { trackersBalance: null, userPlan: null });
    expect(await shops.findById(shop.id)).toMatchObject({ trackersBalance: 0, userPlan: 'Business' });
  });

  it('answers the stored balance and warning days; holds an absurd balance to the column; null for no shop', async () => {
    const shops = createShopRepository(db.prisma, parseKeyring(randomKey()));
    const shop = await shops.saveCredentials(uniqueDomain(), credentials);
    expect(await shops.recordAccount(shop.id, { trackersBalance: 12, userPlan: null })).toEqual({
      trackersBalance: 12,
      balanceWarnDays: 7,
    });
    expect(await shops.recordAccount(shop.id, { trackersBalance: null, userPlan: null })).toEqual({
      trackersBalance: 12,
      balanceWarnDays: 7,
    });
    const before = (await shops.findById(shop.id))!.updatedAt;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await shops.recordAccount(shop.id, { trackersBalance: 1e15, userPlan: 'Max' })).toEqual({
      trackersBalance: 2 ** 31 - 1,
      balanceWarnDays: 7,
    });
    expect(await shops.recordAccount(shop.id, { trackersBalance: -1e15, userPlan: null })).toMatchObject({
      trackersBalance: -(2 ** 31),
    });
    const after = (await shops.findById(shop.id))!;
    expect(after.userPlan).toBe('Max');
    expect(after.updatedAt.getTime()).toBeGreaterThan(before.getTime());
    expect(await shops.recordAccount('no-such-shop', { trackersBalance: 1, userPlan: null })).toBeNull();
  });

  it('updates settings and shows them in the view', async () => {
    const shops = createShopRepository(db.prisma, parseKeyring(randomKey()));
    const shop = await shops.saveCredentials(uniqueDomain(), credentials);
    expect(viewOf(shop).settings).toEqual({
      createOnFulfillment: true,
      deleteOnCancel: true,
      orderIdSource: 'id',
      postFulfillmentEvents: true,
      showOrderDelivered: true,
      linkToTrackingPage: false,
      pushSafetyPollHours: 24,
    });
    // The Behaviour settings are changed in one place (src/shipments/shop-settings.ts, the API's use case).
    const updated = await changeShopSettings(db.prisma, shop.id, {
      orderIdSource: 'name',
      deleteOnCancel: false,
      showOrderDelivered: false,
    });
    expect(viewOf(updated).settings).toEqual({
      createOnFulfillment: true,
      deleteOnCancel: false,
      orderIdSource: 'name',
      postFulfillmentEvents: true,
      showOrderDelivered: false,
      linkToTrackingPage: false,
      pushSafetyPollHours: 24,
    });
  });

  it('lists shops by domain', async () => {
    const shops = createShopRepository(db.prisma, parseKeyring(randomKey()));
    await shops.ensure('b-shop.myshopify.com');
    await shops.ensure('a-shop.myshopify.com');
    expect((await shops.list()).map((s) => s.domain)).toEqual([
      'a-shop.myshopify.com',
      'b-shop.myshopify.com',
    ]);
    expect((await shops.findByDomain('a-shop.myshopify.com'))?.domain).toBe('a-shop.myshopify.com');
  });
});

describe("pushReceiver (the status push URL's shop and key)", () => {
  const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest();

  it('names the installed shop with its key’s digest; a new key or an uninstall counts at once', async () => {
    const shops = createShopRepository(db.prisma, parseKeyring(randomKey()));
    const domain = uniqueDomain();
    const shop = await shops.saveCredentials(domain, credentials);
    const token = await ensurePushToken(db.prisma, shop.id);

    expect(await shops.pushReceiver(token)).toEqual({ shopId: shop.id, keyDigest: sha(credentials.apiKey) });
    expect(await shops.pushReceiver('B'.repeat(token.length))).toBeNull();

    await shops.saveCredentials(domain, { ...credentials, apiKey: 'another-service-key-42' });
    expect((await shops.pushReceiver(token))?.keyDigest).toEqual(sha('another-service-key-42'));

    await db.prisma.shop.update({ where: { id: shop.id }, data: { uninstalledAt: new Date() } });
    expect(await shops.pushReceiver(token)).toBeNull();
  });

  it('a shop with no key stored: named, with no digest; a key it cannot open: SecretUnreadableError', async () => {
    const shops = createShopRepository(db.prisma, parseKeyring(`k1:${randomKey()}`));
    const bare = await createShop(db.prisma);
    expect(await shops.pushReceiver(await ensurePushToken(db.prisma, bare.id))).toEqual({
      shopId: bare.id,
      keyDigest: null,
    });
    const sealed = await shops.saveCredentials(uniqueDomain(), credentials);
    const other = createShopRepository(db.prisma, parseKeyring(`k9:${randomKey()}`));
    await expect(other.pushReceiver(await ensurePushToken(db.prisma, sealed.id))).rejects.toBeInstanceOf(
      SecretUnreadableError,
    );
  });
});
