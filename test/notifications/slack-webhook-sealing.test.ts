import { describe, expect, it } from 'vitest';
import { parseKeyring } from '../../src/shops/crypto.js';
import { createShopRepository } from '../../src/shops/shop-repository.js';
import { useTestDatabase } from '../helpers/database.js';
import { createShop, randomKey } from '../helpers/factories.js';

/** The Slack webhook URL at rest: sealed like the API key, opened by the repository, re-sealed on rotation. */

const db = useTestDatabase();

describe('the shop repository and the Slack webhook URL', () => {
  it('stores it sealed, opens it, re-seals it with the current key after a rotation, and removes it', async () => {
    const oldKey = randomKey();
    const url = 'https://hooks.slack.com/services/T0AAA/B0BBB/sealedsecretpart';
    const before = createShopRepository(db.prisma, parseKeyring(`k1:${oldKey}`));
    const shop = await createShop(db.prisma);
    expect(await before.slackWebhook(shop)).toBeNull();

    await before.saveSlackWebhook(shop.id, url);
    const sealed = await db.prisma.shop.findUniqueOrThrow({ where: { id: shop.id } });
    expect(sealed.slackWebhookKeyId).toBe('k1');
    expect(sealed.slackWebhookCiphertext).not.toContain('sealedsecretpart');
    expect(Buffer.from(sealed.slackWebhookCiphertext!, 'base64').toString('latin1')).not.toContain(
      'sealedsecretpart',
    );
    expect(await before.slackWebhook(sealed)).toBe(url);

    // A new current key, the old one kept to open what it sealed: opened, then sealed again with the new.
    const after = createShopRepository(db.prisma, parseKeyring(`k2:${randomKey()},k1:${oldKey}`));
    expect(await after.slackWebhook(sealed)).toBe(url);
    const resealed = await db.prisma.shop.findUniqueOrThrow({ where: { id: shop.id } });
    expect(resealed.slackWebhookKeyId).toBe('k2');
    expect(resealed.slackWebhookCiphertext).not.toBe(sealed.slackWebhookCiphertext);
    expect(await after.slackWebhook(resealed)).toBe(url);

    await after.saveSlackWebhook(shop.id, null);
    const removed = await db.prisma.shop.findUniqueOrThrow({ where: { id: shop.id } });
    expect([removed.slackWebhookCiphertext, removed.slackWebhookKeyId]).toEqual([null, null]);
  });
});
