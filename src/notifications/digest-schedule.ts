import type { DatabaseClient } from '../db/client.js';
import { knownTimeZone } from '../lib/business-days.js';
import { nextLocalHour } from '../lib/local-time.js';
import { moveDigestTime, shopsWithoutDigestTime } from './queries/digests.js';

/**
 * When each shop's daily digest is due: `Shop.nextDigestAt`, the next time the shop's clock shows its
 * digest hour. The digest pass reads the shops due from that column's index, so a pass costs the shops
 * due, not the Shop table. A shop gets its time when its notification settings are saved, after each
 * digest, and (for shops that never had one: new installs, shops from before digests) from a small batch
 * per pass here.
 */

/** The next time after `now` that the shop's clock shows its digest hour. */
export function nextDigestTime(shop: { digestHour: number; timezone: string }, now: Date): Date {
  return nextLocalHour(now, shop.digestHour, knownTimeZone(shop.timezone));
}

/** Gives up to `limit` shops without a digest time their next one; returns how many got one. */
export async function scheduleMissingDigests(
  prisma: DatabaseClient,
  limit: number,
  now: Date,
): Promise<number> {
  const shops = await shopsWithoutDigestTime(prisma, limit);
  let scheduled = 0;
  for (const shop of shops) {
    // Only while still unset: a settings save meanwhile has put the right time there.
    scheduled += await moveDigestTime(prisma, shop.id, null, nextDigestTime(shop, now));
  }
  return scheduled;
}
