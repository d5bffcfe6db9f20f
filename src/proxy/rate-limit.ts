/**
 * Lookups on the shoppers' page are limited per client address and per shop (token buckets: `burst`
 * lookups at once, refilled at `perMinute`), so the page cannot be used to try order numbers and emails
 * in bulk or to spend a store's tracking service calls. Kept in memory per process, bounded in size.
 */

export interface Bucket {
  burst: number;
  perMinute: number;
}

export interface LookupLimits {
  perClient: Bucket;
  perShop: Bucket;
}

export const defaultLookupLimits: LookupLimits = {
  perClient: { burst: 10, perMinute: 20 },
  perShop: { burst: 120, perMinute: 600 },
};

/** Buckets kept at most (the oldest are dropped first; a dropped bucket starts full again). */
const maxBuckets = 20_000;

export type LimitDecision = { ok: true } | { ok: false; retryAfterS: number };

export function createLookupLimiter(limits: LookupLimits, now: () => number = Date.now) {
  const buckets = new Map<string, { tokens: number; at: number }>();

  function take(key: string, bucket: Bucket, spend: boolean): number {
    const t = now();
    const rate = bucket.perMinute / 60_000;
    const held = buckets.get(key);
    const tokens = held ? Math.min(bucket.burst, held.tokens + (t - held.at) * rate) : bucket.burst;
    if (tokens < 1) return Math.ceil((1 - tokens) / rate / 1000);
    if (spend) {
      buckets.delete(key);
      buckets.set(key, { tokens: tokens - 1, at: t });
      if (buckets.size > maxBuckets) buckets.delete(buckets.keys().next().value!);
    }
    return 0;
  }

  return {
    /** Takes one lookup from the client's and the shop's buckets, or says how long to wait. */
    take(shop: string, client: string): LimitDecision {
      const clientKey = `c:${shop}:${client}`;
      const shopKey = `s:${shop}`;
      const wait = Math.max(take(clientKey, limits.perClient, false), take(shopKey, limits.perShop, false));
      if (wait > 0) return { ok: false, retryAfterS: wait };
      take(clientKey, limits.perClient, true);
      take(shopKey, limits.perShop, true);
      return { ok: true };
    },
  };
}

export type LookupLimiter = ReturnType<typeof createLookupLimiter>;
