import { z } from 'zod';
import type { DatabaseClient } from '../../db/client.js';
import { keysetCursorParam, keysetPage } from '../../db/keyset-cursor.js';
import { storableString } from '../../db/storable-text.js';
import { problemKinds, type ProblemKind, problemWords } from '../../shipments/problem-words.js';
import {
  type ProblemRules,
  type ProblemRulesInput,
  problemRulesOf,
  problemRulesSchema,
  storedProblemRules,
} from '../../shipments/problems.js';
import { lineOfEachTracker } from '../../shipments/queries/order-names.js';
import type { ShopRepository } from '../../shops/shop-repository.js';
import { currentShop } from './current-shop.js';
import { type StatusView, statusView } from './shipment-status.js';

/**
 * The "Needs attention" view: the shop's open shipment problems (src/shipments/problems.ts), oldest first,
 * 50 a page by keyset on (since, id), with a count per kind; the merchant marks one handled (with a note)
 * or snoozes it to a date. A snoozed problem stays open and comes back on its date.
 */

export const problemsPerPage = 50;

export const problemsQuery = z.object({
  kind: z.enum(problemKinds).optional(),
  after: keysetCursorParam.optional(),
});
export type ProblemsQuery = z.output<typeof problemsQuery>;

export const problemIdParams = z.object({ problemId: storableString().min(1).max(100) });

export const handledBody = z.object({ note: storableString().trim().max(500).optional() }).strict();
export const snoozeBody = z
  .object({ until: z.iso.date({ error: 'until must be a date (YYYY-MM-DD)' }) })
  .strict();

export interface ProblemRow {
  id: string;
  kind: ProblemKind;
  label: string;
  todo: string;
  since: string;
  openedAt: string;
  detail: string | null;
  note: string | null;
  snoozedUntil: string | null;
  shipment: {
    id: string;
    trackingNumber: string;
    provider: string;
    carrierName: string | null;
    orderId: string;
    orderName: string | null;
    status: StatusView | null;
  };
}

export interface ProblemsPage {
  /** Open problems per kind (snoozed ones left out), all pages. */
  counts: Record<ProblemKind, number>;
  total: number;
  problems: ProblemRow[];
  nextCursor: string | null;
}

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

export async function listProblems(
  deps: { prisma: DatabaseClient; shops: ShopRepository },
  domain: string,
  query: ProblemsQuery,
  now: Date = new Date(),
): Promise<ProblemsPage> {
  const shop = await currentShop(deps.shops, domain);
  const where = { ...showing(shop.id, now), ...(query.kind ? { kind: query.kind } : {}) };
  const after = query.after;
  const [rows, counts] = await Promise.all([
    deps.prisma.shipmentProblem.findMany({
      where: {
        AND: [
          where,
          ...(after?.at
            ? [{ OR: [{ since: { gt: after.at } }, { since: after.at, id: { gt: after.id } }] }]
            : []),
        ],
      },
      orderBy: [{ since: 'asc' }, { id: 'asc' }],
      take: problemsPerPage + 1,
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
    }),
    countOpenProblems(deps.prisma, shop.id, now),
  ]);
  const page = keysetPage(rows, problemsPerPage, (r) => r.since);
  const lineOf = await lineOfEachTracker(
    deps.prisma,
    shop.id,
    page.rows.map((r) => r.trackerId),
  );
  return {
    counts,
    total: Object.values(counts).reduce((a, b) => a + b, 0),
    problems: page.rows.map((r) => {
      const line = lineOf.get(r.trackerId);
      const kind = r.kind as ProblemKind;
      return {
        id: r.id,
        kind,
        label: problemWords[kind]?.label ?? r.kind,
        todo: problemWords[kind]?.todo ?? '',
        since: r.since.toISOString(),
        openedAt: r.openedAt.toISOString(),
        detail: r.detail,
        note: r.note,
        snoozedUntil: r.snoozedUntil?.toISOString() ?? null,
        shipment: {
          id: r.tracker.id,
          trackingNumber: r.tracker.trackingNumber,
          provider: r.tracker.provider,
          carrierName: line?.carrierName ?? null,
          orderId: line?.orderId ?? r.tracker.orderKey,
          orderName: line?.orderName ?? null,
          status: statusView(r.tracker.status, r.tracker.statusDetail),
        },
      };
    }),
    nextCursor: page.next,
  };
}

export type ProblemChange =
  | {
      ok: true;
      problem: {
        id: string;
        closedAt: string | null;
        closedReason: string | null;
        note: string | null;
        snoozedUntil: string | null;
      };
    }
  | { ok: false; reason: 'not_found' | 'closed' };

/** Marks an open problem of the shop handled (closed, with the merchant's note). */
export async function markProblemHandled(
  deps: { prisma: DatabaseClient; shops: ShopRepository },
  domain: string,
  problemId: string,
  body: z.output<typeof handledBody>,
  now: Date = new Date(),
): Promise<ProblemChange> {
  const shop = await currentShop(deps.shops, domain);
  return changeOpen(deps.prisma, shop.id, problemId, {
    closedAt: now,
    closedReason: 'handled',
    note: body.note || null,
  });
}

/** Hides an open problem of the shop until the start of the given day (UTC); it stays open. */
export async function snoozeProblem(
  deps: { prisma: DatabaseClient; shops: ShopRepository },
  domain: string,
  problemId: string,
  body: z.output<typeof snoozeBody>,
): Promise<ProblemChange> {
  const shop = await currentShop(deps.shops, domain);
  return changeOpen(deps.prisma, shop.id, problemId, { snoozedUntil: new Date(`${body.until}T00:00:00Z`) });
}

async function changeOpen(
  prisma: DatabaseClient,
  shopId: string,
  problemId: string,
  data: { closedAt?: Date; closedReason?: string; note?: string | null; snoozedUntil?: Date },
): Promise<ProblemChange> {
  const { count } = await prisma.shipmentProblem.updateMany({
    where: { id: problemId, shopId, closedAt: null },
    data,
  });
  const row = await prisma.shipmentProblem.findFirst({ where: { id: problemId, shopId } });
  if (!row) return { ok: false, reason: 'not_found' };
  if (count === 0) return { ok: false, reason: 'closed' };
  return {
    ok: true,
    problem: {
      id: row.id,
      closedAt: row.closedAt?.toISOString() ?? null,
      closedReason: row.closedReason,
      note: row.note,
      snoozedUntil: row.snoozedUntil?.toISOString() ?? null,
    },
  };
}

export const problemRulesBody = problemRulesSchema;

export interface ProblemRulesView {
  /** The store's time zone: business days and estimated days are counted there. */
  timezone: string;
  rules: ProblemRules;
}

export async function getProblemRules(
  deps: { shops: ShopRepository },
  domain: string,
): Promise<ProblemRulesView> {
  const shop = await currentShop(deps.shops, domain);
  return { timezone: shop.timezone, rules: problemRulesOf(shop.problemRules) };
}

/**
 * Changes some of the shop's rules; the others stay. A kind switched off closes its open problems at once
 * (closedReason `rule_off`); new days apply to the shipments waiting on a rule, made due again now.
 */
export async function saveProblemRules(
  deps: { prisma: DatabaseClient; shops: ShopRepository },
  domain: string,
  body: ProblemRulesInput,
  now: Date = new Date(),
): Promise<ProblemRulesView> {
  const shop = await currentShop(deps.shops, domain);
  const before = problemRulesOf(shop.problemRules);
  const rules = Object.fromEntries(
    problemKinds.map((kind) => [kind, { ...before[kind], ...(body[kind] ?? {}) }]),
  ) as ProblemRules;
  const off = problemKinds.filter((kind) => !rules[kind].on);
  await deps.prisma.$transaction([
    deps.prisma.shop.update({ where: { id: shop.id }, data: { problemRules: storedProblemRules(rules) } }),
    deps.prisma.shipmentProblem.updateMany({
      where: { shopId: shop.id, closedAt: null, kind: { in: off } },
      data: { closedAt: now, closedReason: 'rule_off' },
    }),
    deps.prisma.tracker.updateMany({
      where: { shopId: shop.id, problemCheckAt: { not: null } },
      data: { problemCheckAt: now },
    }),
  ]);
  return { timezone: shop.timezone, rules };
}
