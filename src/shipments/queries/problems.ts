import type { DatabaseClient } from '../../db/client.js';
import { problemKinds, type ProblemKind } from '../problem-words.js';

/**
 * The "Needs attention" view's queries (src/ui/api/problems.ts): a shop's open problems, oldest first by
 * keyset on (since, id), their count per kind, the merchant's handled and snooze, and a change of the
 * rules. Each reads or writes by the shop's index on ShipmentProblem (shopId, closedAt, …).
 */

/** Open and not snoozed (or its snooze is over) at `now`. */
const showing = (shopId: string, now: Date) => ({
  shopId,
  closedAt: null,
  OR: [{ snoozedUntil: null }, { snoozedUntil: { lte: now } }],
});

/** The shop's open problems per kind, snoozed ones left out: one grouped count on the index. */
export async function countOpenProblems(
  prisma: DatabaseClient,
  shopId: string,
  now: Date = new Date(),
): Promise<Record<ProblemKind, number>> {
  const grouped = await prisma.shipmentProblem.groupBy({
    by: ['kind'],
    where: showing(shopId, now),
    _count: { _all: true },
  });
  const counts = Object.fromEntries(problemKinds.map((k) => [k, 0])) as Record<ProblemKind, number>;
  for (const g of grouped) if (g.kind in counts) counts[g.kind as ProblemKind] = g._count._all;
  return counts;
}

/** One page of the shop's showing problems (`take` of them, one more to tell whether a next page exists). */
export function openProblemsPage(
  prisma: DatabaseClient,
  shopId: string,
  page: {
    kind?: ProblemKind | undefined;
    after?: { at: Date | null; id: string } | null | undefined;
    take: number;
  },
  now: Date,
) {
  const after = page.after;
  return prisma.shipmentProblem.findMany({
    where: {
      AND: [
        { ...showing(shopId, now), ...(page.kind ? { kind: page.kind } : {}) },
        ...(after?.at
          ? [{ OR: [{ since: { gt: after.at } }, { since: after.at, id: { gt: after.id } }] }]
          : []),
      ],
    },
    orderBy: [{ since: 'asc' }, { id: 'asc' }],
    take: page.take + 1,
    include: {
      tracker: {
        select: {
          id: true,
          trackingNumber: true,
          provider: true,
          orderKey: true,
          status: true,
          statusDetail: true,
        },
      },
    },
  });
}

/**
 * Changes an open problem of the shop; `changed` says whether it was open, `row` is the problem after (null:
 * the shop has no such problem).
 */
export async function changeOpenProblem(
  prisma: DatabaseClient,
  shopId: string,
  problemId: string,
  data: { closedAt?: Date; closedReason?: string; note?: string | null; snoozedUntil?: Date },
) {
  const { count } = await prisma.shipmentProblem.updateMany({
    where: { id: problemId, shopId, closedAt: null },
    data,
  });
  const row = await prisma.shipmentProblem.findFirst({ where: { id: problemId, shopId } });
  return { changed: count > 0, row };
}

/**
 * The shop's new rules, at once: the kinds switched `off` close their open problems (closedReason
 * `rule_off`), and the shipments waiting on a rule are made due again now.
 */
export async function applyProblemRules(
  prisma: DatabaseClient,
  shopId: string,
  stored: string,
  off: readonly ProblemKind[],
  now: Date,
): Promise<void> {
  await prisma.$transaction([
    prisma.shop.update({ where: { id: shopId }, data: { problemRules: stored } }),
    prisma.shipmentProblem.updateMany({
      where: { shopId, closedAt: null, kind: { in: [...off] } },
      data: { closedAt: now, closedReason: 'rule_off' },
    }),
    prisma.tracker.updateMany({
      where: { shopId, problemCheckAt: { not: null } },
      data: { problemCheckAt: now },
    }),
  ]);
}
