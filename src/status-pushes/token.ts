import { randomBytes } from 'node:crypto';
import type { DatabaseClient } from '../db/client.js';
import { setStatusPushToken, setStatusPushTokenIfNone, statusPushTokenOf } from '../shops/shop-repository.js';

/**
 * Each shop's status push URL, `<SHOPIFY_APP_URL>/status-webhooks/<token>`: the token is 24 random bytes
 * (192 bits, base64url), made the first time the URL is shown, and rotated from the page or the CLI (the
 * old URL stops working at once). It names the shop; the push must still carry the shop's API key.
 */

export const statusPushPath = '/status-webhooks';

const tokenPattern = /^[A-Za-z0-9_-]{32}$/;

export function newPushToken(): string {
  return randomBytes(24).toString('base64url');
}

export function isPushToken(value: string): boolean {
  return tokenPattern.test(value);
}

export function statusPushUrl(appUrl: string, token: string): string {
  return `${appUrl.replace(/\/+$/, '')}${statusPushPath}/${token}`;
}

/** The shop's token, made now when it has none (two callers at once end with the same one). */
export async function ensurePushToken(prisma: DatabaseClient, shopId: string): Promise<string> {
  const existing = await statusPushTokenOf(prisma, shopId);
  if (existing) return existing;
  await setStatusPushTokenIfNone(prisma, shopId, newPushToken());
  return (await statusPushTokenOf(prisma, shopId))!;
}

/** A new token: the old URL is refused from now on. */
export async function rotatePushToken(prisma: DatabaseClient, shopId: string): Promise<string> {
  const token = newPushToken();
  await setStatusPushToken(prisma, shopId, token);
  return token;
}
