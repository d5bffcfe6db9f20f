import type { DatabaseClient, Tx } from '../db/client.js';
import type { ShippingProvider } from '../tracking/types.js';
import { type CarrierMatcher, createCarrierMatcher, normaliseCarrierName } from './match.js';

const refreshKey = 'carriers.refreshedAt';
export const carrierRefreshIntervalMs = 24 * 60 * 60 * 1000;

/** The shop's overrides, keyed by normalised carrier name. */
export async function carrierOverrides(
  db: DatabaseClient | Tx,
  shopId: string,
): Promise<Map<string, string>> {
  const rows = await db.carrierMapping.findMany({ where: { shopId }, select: { nameKey: true, slug: true } });
  return new Map(rows.map((r) => [r.nameKey, r.slug]));
}

/** The cached carrier list, the shops' own mappings, and the matcher built from them. */
export function createCarrierRepository(prisma: DatabaseClient, options: { matcherTtlMs?: number } = {}) {
  const ttl = options.matcherTtlMs ?? 60_000;
  let cached: { matcher: CarrierMatcher; at: number } | null = null;

  return {
    async providers(): Promise<ShippingProvider[]> {
      return prisma.carrier.findMany({ orderBy: { label: 'asc' }, select: { slug: true, label: true } });
    },

    /** The labels of these slugs (by primary key: the few a page shows, never the whole list). */
    async labelsOf(slugs: Iterable<string>): Promise<Map<string, string>> {
      const wanted = [...new Set(slugs)];
      if (wanted.length === 0) return new Map();
      const rows = await prisma.carrier.findMany({
        where: { slug: { in: wanted } },
        select: { slug: true, label: true },
      });
      return new Map(rows.map((r) => [r.slug, r.label]));
    },

    async hasProvider(slug: string): Promise<boolean> {
      const count = await prisma.carrier.count();
      return count === 0 || (await prisma.carrier.findUnique({ where: { slug } })) !== null;
    },

    /** The matcher over the cached list; rebuilt at most every `matcherTtlMs` or after a refresh here. */
    async matcher(): Promise<CarrierMatcher> {
      if (cached && Date.now() - cached.at < ttl) return cached.matcher;
      const matcher = createCarrierMatcher(await this.providers());
      cached = { matcher, at: Date.now() };
      return matcher;
    },

    /** Replaces the cached list in one transaction. An empty list is refused: it would unmap everything. */
    async replaceProviders(list: ShippingProvider[]): Promise<number> {
      if (list.length === 0) throw new Error('Refusing to replace the carrier list with an empty one');
      const unique = [...new Map(list.map((p) => [p.slug, p])).values()];
      await prisma.$transaction([
        prisma.carrier.deleteMany({}),
        prisma.carrier.createMany({ data: unique.map((p) => ({ slug: p.slug, label: p.label })) }),
        prisma.appState.upsert({
          where: { key: refreshKey },
          update: { value: new Date().toISOString() },
          create: { key: refreshKey, value: new Date().toISOString() },
        }),
      ]);
      cached = null;
      return unique.length;
    },

    async lastRefreshedAt(): Promise<Date | null> {
      const row = await prisma.appState.findUnique({ where: { key: refreshKey } });
      return row ? new Date(row.value) : null;
    },

    /**
     * Claims the daily refresh for this process: true for exactly one caller across every process on the
     * database while a refresh is due (a conditional write on one row decides).
     */
    async claimRefresh(now: Date): Promise<boolean> {
      const dueBefore = new Date(now.getTime() - carrierRefreshIntervalMs).toISOString();
      const claimedValue = now.toISOString();
      const existing = await prisma.appState.findUnique({ where: { key: refreshKey } });
      if (!existing) {
        try {
          await prisma.appState.create({ data: { key: refreshKey, value: claimedValue } });
          return true;
        } catch {
          return false; // another process created it first
        }
      }
      if (existing.value > dueBefore) return false;
      const { count } = await prisma.appState.updateMany({
        where: { key: refreshKey, value: existing.value },
        data: { value: claimedValue },
      });
      return count === 1;
    },

    /** After a failed refresh: due again in an hour rather than a day. */
    async scheduleRefreshRetry(): Promise<void> {
      const value = new Date(Date.now() - carrierRefreshIntervalMs + 60 * 60_000).toISOString();
      await prisma.appState.upsert({
        where: { key: refreshKey },
        update: { value },
        create: { key: refreshKey, value },
      });
    },

    async setOverride(
      db: DatabaseClient | Tx,
      shopId: string,
      carrierName: string,
      slug: string,
    ): Promise<void> {
      const nameKey = normaliseCarrierName(carrierName);
      if (nameKey === '') throw new Error('A carrier name needs at least one letter or digit');
      await db.carrierMapping.upsert({
        where: { shopId_nameKey: { shopId, nameKey } },
        update: { slug, carrierName },
        create: { shopId, nameKey, carrierName, slug },
      });
    },
  };
}

export type CarrierRepository = ReturnType<typeof createCarrierRepository>;
