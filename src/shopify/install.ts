import { RequestedTokenType, type Session } from '@shopify/shopify-api';
import type { RequestHandler } from 'express';
import type { DatabaseClient } from '../db/client.js';
import type { Logger } from '../logger.js';
import { inTransaction } from '../db/transaction.js';
import { ensureShop, markShopReinstalled, type Shop } from '../shops/shop-repository.js';
import type { TracksyncShopify } from './api.js';
import { pausedColumns } from '../shops/pause-reasons.js';

/**
 * What happens once a store has granted the app an offline token, by OAuth or by token exchange: the
 * shop row exists (made "not connected" when new). A store that reinstalls after app/uninstalled (and
 * before shop/redact took its data) gets its "uninstalled" pause lifted: back to running when its
 * tracking service key is still stored, to "not connected" otherwise.
 */
export async function recordInstall(prisma: DatabaseClient, domain: string): Promise<Shop> {
  return inTransaction(prisma, async (tx) => {
    const shop = await ensureShop(tx, domain);
    if (shop.pausedReason !== 'uninstalled' && shop.uninstalledAt === null) return shop;
    const connected = shop.apiKeyCiphertext !== null && shop.appName !== null;
    const stillUninstalledPause = shop.pausedReason === 'uninstalled';
    return markShopReinstalled(
      tx,
      shop.id,
      stillUninstalledPause
        ? connected
          ? { pausedReason: null, pausedMessage: null, pausedAt: null, probeAt: null }
          : pausedColumns('not_connected')
        : {},
    );
  });
}

/**
 * Express step after shopify.auth.callback(): records the install of the session's shop, then hands on
 * to shopify.redirectToShopifyOrAppRoot().
 */
export function afterAuth(deps: { prisma: DatabaseClient; logger: Logger }): RequestHandler {
  return async (_req, res, next) => {
    const session = (res.locals.shopify as { session?: Session } | undefined)?.session;
    if (!session) {
      res.status(500).send('The OAuth callback produced no session.');
      return;
    }
    await recordInstall(deps.prisma, session.shop);
    deps.logger.info({ shop: session.shop }, 'app installed (OAuth)');
    next();
  };
}

/** Swaps a verified session token for an offline access token (expiring, with a refresh token). */
export type OfflineTokenExchange = (params: { shop: string; sessionToken: string }) => Promise<Session>;

export function offlineTokenExchange(shopify: TracksyncShopify): OfflineTokenExchange {
  return async ({ shop, sessionToken }) => {
    const { session } = await shopify.api.auth.tokenExchange({
      shop,
      sessionToken,
      requestedTokenType: RequestedTokenType.OfflineAccessToken,
      expiring: shopify.config.future.expiringOfflineAccessTokens ?? false,
    });
    return session;
  };
}
