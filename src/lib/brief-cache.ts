/**
 * Answers asked of someone else (a store's Admin API) for a page a shopper is waiting on, kept briefly in
 * memory and never stored:
 * - an answer is kept `keepMs` per key, and shared by every request for that key while it is being read;
 * - a caller waits at most `waitMs` for it and otherwise gets null (the read goes on, and a good answer
 *   that comes late is kept for the next request);
 * - a failure (null, or a throw) is not kept: the next request asks again;
 * - at most `maxEntries` answers are kept, the least recently used dropped first;
 * - an answer kept from before `notBefore` (e.g. the shop's last customers/redact) is not used.
 * Used for a logged-in customer's recent orders (src/proxy/customer-orders.ts) and the items of orders'
 * fulfilments (src/shopify/order-details.ts). The keeping (time to live, most entries) is lru-cache's; this
 * module adds the shared read, the wait, the dropped failures and notBefore.
 */
import { LRUCache } from 'lru-cache';

export interface BriefCacheOptions {
  /** How long an answer is kept, in ms. */
  keepMs: number;
  /** How long a caller waits for an answer being read, in ms. */
  waitMs: number;
  /** The most answers kept. */
  maxEntries: number;
  now?: () => number;
}

export interface BriefCache<T> {
  /** The answer for `key`: the kept one, or `read()`'s; null when it failed or did not come within waitMs. */
  get(key: string, read: () => Promise<T | null>, notBefore?: Date | null): Promise<T | null>;
  /**
   * The answers for several keys, those not kept read together: `read` is called once per `batchSize` of
   * them (at once), and a key its answer leaves out failed. Null when any key's answer failed or did not
   * come within waitMs (one wait for all).
   */
  getMany(
    keys: readonly string[],
    read: (keys: string[]) => Promise<ReadonlyMap<string, T> | null>,
    options?: { batchSize?: number; notBefore?: Date | null },
  ): Promise<Map<string, T> | null>;
  /** How many answers are kept or being read now. */
  readonly size: number;
}

interface Entry<T> {
  at: number;
  value: Promise<T | null>;
}

export function createBriefCache<T>(options: BriefCacheOptions): BriefCache<T> {
  const now = options.now ?? Date.now;
  // lru-cache keeps the entries: at most maxEntries (the least recently used dropped first), each while
  // its age is at most ttl (so keepMs - 1: the times are whole ms and an answer keepMs old is gone), the
  // time read from `now` (ttlResolution 0: no clock of its own in between).
  const entries = new LRUCache<string, Entry<T>>({
    max: Math.max(1, options.maxEntries),
    ttl: Math.max(1, options.keepMs - 1),
    ttlResolution: 0,
    perf: { now },
  });

  /** The kept answer (or the one being read) for key, unless it is too old. */
  function kept(key: string, notBefore: Date | null | undefined): Promise<T | null> | undefined {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (notBefore && entry.at <= notBefore.getTime()) {
      entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Keeps an answer being read; dropped again as soon as it turns out a failure. */
  function keep(key: string, answer: Promise<T | null>): Promise<T | null> {
    const value = answer.catch(() => null);
    const entry: Entry<T> = { at: now(), value };
    entries.set(key, entry);
    void value.then((v) => {
      if (v === null && entries.peek(key) === entry) entries.delete(key);
    });
    return value;
  }

  /** The value, or null once waitMs have passed. */
  async function waitFor<V>(value: Promise<V>): Promise<V | null> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        value,
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), options.waitMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    get size() {
      return entries.size;
    },

    async get(key, read, notBefore) {
      const value = kept(key, notBefore) ?? keep(key, Promise.resolve().then(read));
      return waitFor(value);
    },

    async getMany(keys, read, { batchSize = Number.POSITIVE_INFINITY, notBefore } = {}) {
      const unique = [...new Set(keys)];
      const values = new Map<string, Promise<T | null>>();
      const missing: string[] = [];
      for (const key of unique) {
        const value = kept(key, notBefore);
        if (value) values.set(key, value);
        else missing.push(key);
      }
      const size = Math.max(1, Math.floor(batchSize));
      for (let i = 0; i < missing.length; i += size) {
        const batch = missing.slice(i, i + size);
        const answer = Promise.resolve()
          .then(() => read(batch))
          .catch(() => null);
        for (const key of batch)
          values.set(
            key,
            keep(
              key,
              answer.then((map) => map?.get(key) ?? null),
            ),
          );
      }
      const settled = await waitFor(Promise.all(unique.map((key) => values.get(key)!)));
      if (!settled) return null;
      const answers = new Map<string, T>();
      for (const [index, key] of unique.entries()) {
        const value = settled[index];
        if (value === null || value === undefined) return null;
        answers.set(key, value);
      }
      return answers;
    },
  };
}
