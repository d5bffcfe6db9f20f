import type { DatabaseClient } from '../../db/client.js';

/** The Overview's own figures (the others come from the lists they link to). */

/** The tracking-page links of the shop's fulfilments wanting `wanted`, per state, and the latest problem. */
export async function trackingLinkProgress(
  prisma: DatabaseClient,
  shopId: string,
  wanted: 'store' | 'carrier',
): Promise<{ byState: Map<string, number>; problem: string | null }> {
  const [groups, problem] = await Promise.all([
    prisma.storeTrackingLink.groupBy({ by: ['state'], where: { shopId, wanted }, _count: { _all: true } }),
    prisma.storeTrackingLink.findFirst({
      where: { shopId, wanted, error: { not: null }, state: { in: ['pending', 'failed'] } },
      orderBy: { updatedAt: 'desc' },
      select: { error: true },
    }),
  ]);
  return {
    byState: new Map(groups.map((g) => [g.state, g._count._all])),
    problem: problem?.error ?? null,
  };
}

/** Whether the shop ever had a tracker (the first setup step). */
export async function hasAnyTracker(prisma: DatabaseClient, shopId: string): Promise<boolean> {
  return (await prisma.tracker.findFirst({ where: { shopId }, select: { id: true } })) !== null;
}
