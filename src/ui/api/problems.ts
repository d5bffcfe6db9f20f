import type { AppContext } from '../../context/app-context.js';
import { z } from 'zod';
import type { DatabaseClient } from '../../db/client.js';
import { keysetCursorParam, keysetPage } from '../../db/keyset-cursor.js';
import { storableString } from '../../db/storable-text.js';
import { codeWords, type ParcelAction, parcelOf } from '../../shipments/parcel-model.js';
import {
  problemAdvice,
  problemKinds,
  type ProblemKind,
  problemWords,
} from '../../shipments/problem-words.js';
import { type ProblemRules, problemRulesOf, storedProblemRules } from '../../shipments/problems.js';
import type { ProblemRulesInput } from '../../settings/problem-rules.js';
import { lineOfEachTracker } from '../../shipments/queries/order-names.js';
import {
  applyProblemRules,
  changeOpenProblem,
  countOpenProblems,
  openProblemsPage,
} from '../../shipments/queries/problems.js';
import { currentShop } from './current-shop.js';
import { merchantDay } from './validation.js';
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
/**
 * A snooze's day: after today and at most a year ahead (the page's date field offers no further). "Today"
 * is the earliest day that is tomorrow in some time zone (the page picks days in the merchant's own), so a
 * merchant anywhere can choose their tomorrow.
 */
export const snoozeBody = z
  .object({
    until: merchantDay('until', {
      from: { daysFromToday: 0 },
      fromMessage: 'until must be a day after today',
    }),
  })
  .strict();

export interface ProblemRow {
  id: string;
  kind: ProblemKind;
  label: string;
  /**
   * The one piece of advice: the parcel's own where its status raised the problem and the parcel model
   * gives one (a wrong carrier: "map this carrier…"), else the kind's.
   */
  advice: string;
  /** Where the merchant acts (the parcel model's action), and whether the app does it; null: see advice. */
  action: ParcelAction | null;
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
    /** The parcel's badge (label and tone as every view shows it); its advice is the problem's above. */
    status: Omit<StatusView, 'advice' | 'action'> | null;
  };
}

export interface ProblemsPage {
  /** Open problems per kind (snoozed ones left out), all pages. */
  counts: Record<ProblemKind, number>;
  total: number;
  problems: ProblemRow[];
  nextCursor: string | null;
}

export async function listProblems(
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
  query: ProblemsQuery,
  now: Date = new Date(),
): Promise<ProblemsPage> {
  const shop = await currentShop(ctx.shops, domain);
  const [rows, counts] = await Promise.all([
    openProblemsPage(
      ctx.prisma,
      shop.id,
      { kind: query.kind, after: query.after, take: problemsPerPage },
      now,
    ),
    countOpenProblems(ctx.prisma, shop.id, now),
  ]);
  const page = keysetPage(rows, problemsPerPage, (r) => r.since);
  const lineOf = await lineOfEachTracker(
    ctx.prisma,
    shop.id,
    page.rows.map((r) => r.trackerId),
  );
  return {
    counts,
    total: Object.values(counts).reduce((a, b) => a + b, 0),
    problems: page.rows.map((r) => {
      const line = lineOf.get(r.trackerId);
      const kind = r.kind as ProblemKind;
      const view = statusView(r.tracker.status, r.tracker.statusDetail);
      const parcel = parcelOf(r.tracker.status, r.tracker.statusDetail);
      const own = parcel.problem === kind || kind === 'tracking_problem';
      const badge = view && {
        code: view.code,
        detail: view.detail,
        group: view.group,
        label: view.label,
        tone: view.tone,
      };
      return {
        id: r.id,
        kind,
        label: problemWords[kind]?.label ?? r.kind,
        advice: problemAdvice(kind, own ? parcel : null),
        action: own ? parcel.action : null,
        since: r.since.toISOString(),
        openedAt: r.openedAt.toISOString(),
        // Stored before the words were the model's, a detail may be a bare code: said in words.
        detail: codeWords(r.detail) ?? r.detail,
        note: r.note,
        snoozedUntil: r.snoozedUntil?.toISOString() ?? null,
        shipment: {
          id: r.tracker.id,
          trackingNumber: r.tracker.trackingNumber,
          provider: r.tracker.provider,
          carrierName: line?.carrierName ?? null,
          orderId: line?.orderId ?? r.tracker.orderKey,
          orderName: line?.orderName ?? null,
          status: badge,
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
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
  problemId: string,
  body: z.output<typeof handledBody>,
  now: Date = new Date(),
): Promise<ProblemChange> {
  const shop = await currentShop(ctx.shops, domain);
  return changeOpen(ctx.prisma, shop.id, problemId, {
    closedAt: now,
    closedReason: 'handled',
    note: body.note || null,
  });
}

/** Hides an open problem of the shop until the start of the given day (UTC); it stays open. */
export async function snoozeProblem(
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
  problemId: string,
  body: z.output<typeof snoozeBody>,
): Promise<ProblemChange> {
  const shop = await currentShop(ctx.shops, domain);
  return changeOpen(ctx.prisma, shop.id, problemId, { snoozedUntil: new Date(`${body.until}T00:00:00Z`) });
}

async function changeOpen(
  prisma: DatabaseClient,
  shopId: string,
  problemId: string,
  data: Parameters<typeof changeOpenProblem>[3],
): Promise<ProblemChange> {
  const { changed, row } = await changeOpenProblem(prisma, shopId, problemId, data);
  if (!row) return { ok: false, reason: 'not_found' };
  if (!changed) return { ok: false, reason: 'closed' };
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

export interface ProblemRulesView {
  /** The store's time zone: business days and estimated days are counted there. */
  timezone: string;
  rules: ProblemRules;
}

export async function getProblemRules(
  ctx: Pick<AppContext, 'shops'>,
  domain: string,
): Promise<ProblemRulesView> {
  const shop = await currentShop(ctx.shops, domain);
  return { timezone: shop.timezone, rules: problemRulesOf(shop.problemRules) };
}

/**
 * Changes some of the shop's rules; the others stay. A kind switched off closes its open problems at once
 * (closedReason `rule_off`); new days apply to the shipments waiting on a rule, made due again now.
 */
export async function saveProblemRules(
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
  body: ProblemRulesInput,
  now: Date = new Date(),
): Promise<ProblemRulesView> {
  const shop = await currentShop(ctx.shops, domain);
  const before = problemRulesOf(shop.problemRules);
  const rules = Object.fromEntries(
    problemKinds.map((kind) => [kind, { ...before[kind], ...(body[kind] ?? {}) }]),
  ) as ProblemRules;
  const off = problemKinds.filter((kind) => !rules[kind].on);
  await applyProblemRules(ctx.prisma, shop.id, storedProblemRules(rules), off, now);
  return { timezone: shop.timezone, rules };
}
