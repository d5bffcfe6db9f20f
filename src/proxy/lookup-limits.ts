import type { LookupLimits } from '../config.js';
import { createHmac } from 'node:crypto';
import { addressKey } from '../lib/client-address.js';
import type { DatabaseClient } from '../db/client.js';
import { countOf } from '../db/sql.js';
import {
  bumpLookupCounters,
  type Kind,
  lookupCounters,
  markVisitorRowsFull,
  visitorRowsUpTo,
} from './queries/lookup-limits.js';
import type { Logger } from '../logger.js';

/**
 * The shoppers' page's limits: what an attacker needs and a shopper does not.
 *
 * - **Failed lookups, per visitor.** A lookup that finds nothing (an unknown number, an order with another
 *   email) counts against the visitor's address at that shop (src/lib/client-address.ts: never an address
 *   the visitor wrote). After `failuresBeforeBackoff` of them each further failure holds the address back,
 *   2 s, then 4 s, 8 s, … up to an hour; the streak is forgotten a day after its last failure. A lookup
 *   that finds something never counts, and never clears the streak (a guesser cannot reset it with a
 *   number it knows).
 * - **Failed lookups, per shop.** When a shop sees `shopFailuresPerMinute` failures in a minute it is under
 *   attack: every visitor is then held back after its first failure. Nobody is held back by other
 *   visitors' failures: a shopper with a real order and email, from an address that did not fail, is
 *   answered whatever the shop's count.
 * - **Service calls, per shop.** A lookup may read a stale order again at the tracking service (one call,
 *   src/proxy/refresh.ts); at most `serviceCallsPerMinute` a minute a shop. Over it the page shows what is
 *   stored. That, not a limit on lookups, protects the shop's service quota.
 *
 * - **Visitors remembered, per shop.** At most `visitorRowsPerShop` visitors of a shop have a row of their
 *   own: an attacker with many real addresses (an IPv6 /56 each) cannot grow the table without bound. A
 *   failure from a visitor without a row first counts the shop's visitor rows, on the index and no further
 *   than the bound; when they are full no row is made, the shop's counter notes it for a minute (then the
 *   rows are counted again, retention having deleted some meanwhile), and the shop-wide hold takes over:
 *   visitors without a row share the shop's failures a minute (`shopFailuresPerMinute`, and the one that
 *   counts the rows again), and once the minute's are spent they are held until it ends (even a shopper with a real order: nothing tells them
 *   apart from the attacker then). Visitors with a row keep their own rules. Concurrent first failures may
 *   each find room: the bound may be passed by the failures in flight at that moment, no more.
 *
 * The counters are rows of one table (LookupLimit), shared by every web process and kept across restarts.
 * A lookup costs one read of its visitor's and its shop's rows; a failure one more statement (an upsert of
 * both, computed by the database so that concurrent failures all count), and a visitor's first failure one
 * bounded count before it; a refresh one upsert. Addresses are kept only as a keyed hash. Rows expire a day
 * after they last said anything (retention deletes them).
 */

export const defaultLookupLimits: LookupLimits = {
  failuresBeforeBackoff: 5,
  failuresBeforeBackoffUnderAttack: 1,
  backoffMs: 2_000,
  backoffMaxMs: 3_600_000,
  forgetAfterMs: 24 * 3_600_000,
  shopFailuresPerMinute: 60,
  serviceCallsPerMinute: 30,
  // A shop's visitors with a row of their own. Far above a real shop's failing shoppers in a day (a row
  // lives a day after its last failure), small enough that ten thousand shops under attack at once stay
  // within 50 million rows (about a kilobyte each with their indexes); the count before a new row reads at
  // most this many index entries.
  visitorRowsPerShop: 5_000,
};

const windowMs = 60_000;

/** A visitor about to look up: what to count if the lookup finds nothing. */
export interface Visitor {
  shopId: string;
  rowId: string;
  underAttack: boolean;
  /** The visitor had a row of its own at the check. */
  known: boolean;
  /** The shop's visitor rows were full at the check (noted on its counter): no row is made for it. */
  rowsFull: boolean;
}

export type LookupGate = { ok: true; visitor: Visitor } | { ok: false; retryAfterS: number };

export interface LookupLimiter {
  /** Before a lookup: go, or wait this long (the visitor's own failures hold it back). One read. */
  check(shopId: string, address: string): Promise<LookupGate>;
  /** The lookup found nothing. */
  failed(visitor: Visitor): Promise<void>;
  /** Before a service call a lookup would cause: true to make it, false when the shop's minute is spent. */
  takeServiceCall(shopId: string): Promise<boolean>;
}

export function createLookupLimiter(deps: {
  prisma: DatabaseClient;
  /** Keys the addresses' hashes (the app's secret): a row names no address, and nobody can forge one. */
  secret: string;
  limits?: Partial<LookupLimits>;
  logger?: Logger;
  now?: () => number;
}): LookupLimiter {
  const limits: LookupLimits = { ...defaultLookupLimits, ...deps.limits };
  const now = deps.now ?? Date.now;
  // The largest doubling of backoffMs that stays within backoffMaxMs (longer holds are backoffMaxMs).
  const maxShift = Math.max(0, Math.floor(Math.log2(limits.backoffMaxMs / limits.backoffMs)));
  const rowId = (shopId: string, kind: Kind) => `${shopId}:${kind}`;
  const retryAfter = (untilMs: number, t: number) => Math.max(1, Math.ceil((untilMs - t) / 1000));
  const visitorRowId = (shopId: string, address: string) =>
    `${shopId}:visitor:${createHmac('sha256', deps.secret).update(addressKey(address)).digest('base64url').slice(0, 22)}`;

  /**
   * Counts one more at each row, in one statement, and returns the rows. A visitor's streak starts again
   * when its last failure is older than forgetAfterMs, a shop's counts every minute; a visitor over its
   * allowance is held for backoffMs << (failures over it - 1), at most backoffMaxMs.
   */
  async function bump(
    rows: { id: string; shopId: string; kind: Kind }[],
    allowance: number,
  ): Promise<{ kind: Kind; count: number; blockedUntilMs: number }[]> {
    const t = now();
    return bumpLookupCounters(deps.prisma, rows, {
      now: t,
      allowance,
      firstHold: allowance < 1 ? t + limits.backoffMs : 0,
      expiresAt: new Date(t + Math.max(limits.forgetAfterMs, limits.backoffMaxMs, windowMs)),
      forgetBefore: t - limits.forgetAfterMs,
      windowBefore: t - windowMs,
      maxShift,
      backoffMs: limits.backoffMs,
      backoffMaxMs: limits.backoffMaxMs,
    });
  }

  return {
    async check(shopId, address) {
      const t = now();
      const id = visitorRowId(shopId, address);
      const rows = await lookupCounters(deps.prisma, [id, rowId(shopId, 'shop_failures')]);
      const visitor = rows.find((r) => r.kind === 'visitor');
      const heldUntil = visitor ? countOf(visitor.blockedUntilMs) : 0;
      if (heldUntil > t) return { ok: false, retryAfterS: retryAfter(heldUntil, t) };
      const shop = rows.find((r) => r.kind === 'shop_failures');
      const windowStart = shop ? countOf(shop.windowStartMs) : 0;
      const underAttack =
        !!shop && windowStart >= t - windowMs && countOf(shop.count) >= limits.shopFailuresPerMinute;
      const rowsFull = !!shop && countOf(shop.blockedUntilMs) > t;
      // No row of its own and none to be had: the shop-wide hold, until the shop's minute ends.
      if (!visitor && rowsFull && underAttack)
        return { ok: false, retryAfterS: retryAfter(windowStart + windowMs, t) };
      return { ok: true, visitor: { shopId, rowId: id, underAttack, known: !!visitor, rowsFull } };
    },

    async failed(visitor) {
      const shopRow = {
        id: rowId(visitor.shopId, 'shop_failures'),
        shopId: visitor.shopId,
        kind: 'shop_failures' as const,
      };
      let full = visitor.rowsFull && !visitor.known;
      if (!visitor.known && !full) {
        full =
          (await visitorRowsUpTo(deps.prisma, visitor.shopId, limits.visitorRowsPerShop)) >=
          limits.visitorRowsPerShop;
      }
      const rows = await bump(
        full ? [shopRow] : [{ id: visitor.rowId, shopId: visitor.shopId, kind: 'visitor' }, shopRow],
        visitor.underAttack ? limits.failuresBeforeBackoffUnderAttack : limits.failuresBeforeBackoff,
      );
      if (full && !visitor.rowsFull) {
        await markVisitorRowsFull(deps.prisma, shopRow.id, now() + windowMs);
        deps.logger?.warn(
          { shopId: visitor.shopId, visitorRows: limits.visitorRowsPerShop },
          "tracking page: the shop's failed-lookup visitors are at their bound; new ones are held shop-wide",
        );
      }
      // Said once a minute per shop, by whichever process counted the failure that crossed the line.
      const shop = rows.find((r) => r.kind === 'shop_failures');
      if (shop?.count === limits.shopFailuresPerMinute)
        deps.logger?.warn(
          { shopId: visitor.shopId, failuresPerMinute: limits.shopFailuresPerMinute },
          'tracking page: many failed lookups at a shop; every visitor now backs off after one',
        );
    },

    async takeServiceCall(shopId) {
      if (limits.serviceCallsPerMinute <= 0) return false;
      const [row] = await bump([{ id: rowId(shopId, 'service_calls'), shopId, kind: 'service_calls' }], 0);
      return !!row && row.count <= limits.serviceCallsPerMinute;
    },
  };
}
