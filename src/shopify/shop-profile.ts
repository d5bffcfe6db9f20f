import { z } from 'zod';
import type { DatabaseClient } from '../db/client.js';
import { knownTimeZone } from '../lib/business-days.js';
import { nowOf } from '../lib/clock.js';
import type { Logger } from '../logger.js';
import type { StoreCallResult } from '../shipments/post-store-events.js';
import { shopsDueProfileRead, updateShopProfile } from '../shops/shop-repository.js';
import type { StoreAdmin } from './admin-graphql.js';

/**
 * The store's own facts the app needs beyond fulfilments: its time zone (business days, the estimated day's
 * end, the digest's hour) and its contact e-mail (the digest's first recipient), read with the Admin API's
 * `shop` query (no scope needed beyond the app's install) once after install and again weekly.
 */

export const SHOP_PROFILE_QUERY = `query shopProfile {
  shop { ianaTimezone contactEmail email }
}`;

const profileAnswer = z.object({
  shop: z.object({
    ianaTimezone: z.string().nullish(),
    contactEmail: z.string().nullish(),
    email: z.string().nullish(),
  }),
});

export interface ShopProfile {
  timezone: string;
  contactEmail: string | null;
}

export interface ShopProfileApi {
  read(shopDomain: string): Promise<StoreCallResult<ShopProfile>>;
}

const plausibleEmail = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export function shopifyShopProfile(admin: StoreAdmin): ShopProfileApi {
  return {
    async read(shopDomain) {
      const result = await admin.request(shopDomain, SHOP_PROFILE_QUERY, {});
      if (!result.ok) return result;
      const answer = profileAnswer.safeParse(result.value);
      if (!answer.success)
        return {
          ok: false,
          kind: 'retry',
          message: 'the store answered the shop query in a shape not expected',
        };
      const { ianaTimezone, contactEmail, email } = answer.data.shop;
      const address = [contactEmail, email].find((e): e is string => !!e && plausibleEmail.test(e.trim()));
      return {
        ok: true,
        value: { timezone: knownTimeZone(ianaTimezone), contactEmail: address?.trim().slice(0, 320) ?? null },
      };
    },
  };
}

/** How often a store's profile is read again. */
export const profileEveryMs = 7 * 24 * 3_600_000;
/** After a failure (the store could not be asked), when it is tried again. */
const profileRetryMs = 3_600_000;

/**
 * Reads the profile of up to `limit` installed stores never read or read a week ago, and stores it. A store
 * that cannot be asked is tried again in an hour; its zone stays as it was (UTC until first read).
 */
export async function refreshShopProfiles(
  deps: { prisma: DatabaseClient; api: ShopProfileApi; logger: Logger; now?: () => Date },
  limit: number,
): Promise<number> {
  const now = nowOf(deps);
  const due = await shopsDueProfileRead(deps.prisma, new Date(now.getTime() - profileEveryMs), limit);
  let read = 0;
  for (const shop of due) {
    const result = await deps.api.read(shop.domain);
    if (result.ok) {
      await updateShopProfile(deps.prisma, shop.id, {
        timezone: result.value.timezone,
        contactEmail: result.value.contactEmail,
        profileCheckedAt: now,
        // Another zone: the next digest's hour is worked out again (src/notifications/digest-schedule.ts).
        ...(result.value.timezone !== shop.timezone ? { nextDigestAt: null } : {}),
      });
      read++;
      continue;
    }
    deps.logger.warn({ shop: shop.domain, reason: result.kind }, 'store profile not read; tried again later');
    await updateShopProfile(deps.prisma, shop.id, {
      profileCheckedAt: new Date(now.getTime() - profileEveryMs + profileRetryMs),
    });
  }
  return read;
}
