import { addBusinessDays, endOfLocalDay, knownTimeZone } from '../lib/business-days.js';
import { type ProblemRulesInput, problemRulesSchema } from '../settings/problem-rules.js';
import { type ProblemKind, problemKinds } from './problem-words.js';
import { codeWords, parcelOf } from './parcel-model.js';

/**
 * Shipment problems: what a merchant wants to hear about before the shopper writes in. Each kind has a
 * per-shop switch and, for the kinds that wait, a number of business days in the shop's time zone. A
 * problem dates from when its condition began (`since`): the event or fulfilment it comes from. It is
 * opened once per episode and closes by itself when the condition is gone (the parcel moved on, was
 * delivered, or is no longer wanted); see src/shipments/problem-sweep.ts.
 */

/** The kinds that wait a number of business days, and their defaults. */
export const problemDayDefaults = { not_picked_up: 3, stalled: 4, waiting_pickup: 3 } as const;
type WaitingKind = keyof typeof problemDayDefaults;
const isWaiting = (kind: ProblemKind): kind is WaitingKind => kind in problemDayDefaults;

/** The rules' schema names every kind (src/settings sits below the domain and cannot name them itself). */
const _everyKindHasARule: Record<ProblemKind, unknown> = problemRulesSchema.shape;

export type ProblemRules = Record<ProblemKind, { on: boolean; days: number }>;

/** The rules a shop has: its stored JSON over the defaults (a stored value that no longer parses is ignored). */
export function problemRulesOf(stored: string | null | undefined): ProblemRules {
  let given: ProblemRulesInput = {};
  if (stored) {
    try {
      const parsed = problemRulesSchema.safeParse(JSON.parse(stored));
      if (parsed.success) given = parsed.data;
    } catch {
      given = {};
    }
  }
  return Object.fromEntries(
    problemKinds.map((kind) => {
      const rule: { on?: boolean; days?: number } = given[kind] ?? {};
      return [
        kind,
        { on: rule.on ?? true, days: isWaiting(kind) ? (rule.days ?? problemDayDefaults[kind]) : 0 },
      ];
    }),
  ) as ProblemRules;
}

/** The rules as stored on the shop (`Shop.problemRules`): what problemRulesOf reads back. */
export function storedProblemRules(rules: ProblemRules): string {
  return JSON.stringify(
    Object.fromEntries(
      problemKinds.map((kind) => [
        kind,
        isWaiting(kind) ? { on: rules[kind].on, days: rules[kind].days } : { on: rules[kind].on },
      ]),
    ),
  );
}

/** What the detection reads of a shipment. */
export interface ProblemFacts {
  desired: string;
  remote: string;
  status: string | null;
  statusDetail: string | null;
  estimatedDelivery: string | null;
  /** Where the service gives no estimate, the one predicted from the shop's deliveries. */
  predictedDelivery: string | null;
  lastEventAt: Date | null;
  lastEventMessage: string | null;
  syncedAt: Date | null;
  /** When the tracker was made: the fulfilment's time. */
  createdAt: Date;
  /** When its transit began: the first carrier scan, else createdAt (src/shipments/delivery-facts.ts). */
  transitStartedAt?: Date | null;
  /**
   * The 90th percentile transit (seconds) of the shop's delivered parcels of the same carrier and country,
   * when it has the 30 a figure needs (src/shipments/estimates.ts); null: "slower than usual" stays off.
   */
  usualTransitP90Seconds?: number | null;
}

export interface DetectedProblem {
  kind: ProblemKind;
  since: Date;
  detail: string | null;
}

export interface Detection {
  /** The problems the shipment has now. */
  open: DetectedProblem[];
  /** Why the others close: the parcel moved on, was delivered, or is no longer followed. */
  closeReason: 'moved' | 'delivered' | 'ended';
  /** When a waiting rule could next open a problem; null: only a status or desired change can. */
  nextCheckAt: Date | null;
}

/** The parcel's problems now, by the shop's rules and time zone. */
export function detectProblems(
  facts: ProblemFacts,
  shop: { timezone: string; rules: ProblemRules },
  now: Date,
): Detection {
  const parcel = parcelOf(facts.status, facts.statusDetail);
  const group = parcel.group;
  if (facts.desired !== 'active' || facts.remote === 'absent' || group === 'ended')
    return { open: [], closeReason: 'ended', nextCheckAt: null };
  if (group === 'delivered') return { open: [], closeReason: 'delivered', nextCheckAt: null };

  const zone = knownTimeZone(shop.timezone);
  const open: DetectedProblem[] = [];
  const deadlines: Date[] = [];
  // The episode a status belongs to: the event that brought it, else when the service took the tracker.
  const anchor = facts.lastEventAt ?? facts.syncedAt ?? facts.createdAt;
  // In the merchant's words: the carrier's message, else the model's label of the detail or status.
  const detail =
    facts.lastEventMessage ?? codeWords(facts.statusDetail) ?? (facts.status ? parcel.label : null);
  const add = (kind: ProblemKind, since: Date) => {
    if (shop.rules[kind].on) open.push({ kind, since, detail });
  };
  /** Opens `kind` once `days` business days have passed since `from`, else remembers when to look. */
  const waiting = (kind: WaitingKind, from: Date) => {
    if (!shop.rules[kind].on) return;
    const due = addBusinessDays(from, shop.rules[kind].days, zone);
    if (due.getTime() <= now.getTime()) add(kind, from);
    else deadlines.push(due);
  };

  // The kind the parcel's status raises is its row's in the model; the waiting kinds open after days.
  const kind = parcel.problem;
  if (kind === 'waiting_pickup' || kind === 'stalled') waiting(kind, anchor);
  else if (kind === 'not_picked_up') waiting(kind, facts.createdAt);
  else if (kind !== null) add(kind, anchor);

  // Slower than usual: moving for longer than 9 in 10 of the shop's parcels of this carrier and country.
  const moving = group === 'in_transit' || group === 'out_for_delivery';
  if (moving && facts.usualTransitP90Seconds && shop.rules.slower_than_usual.on) {
    const started = (facts.transitStartedAt ?? facts.createdAt).getTime();
    const slower = new Date(started + facts.usualTransitP90Seconds * 1000);
    if (slower.getTime() <= now.getTime()) add('slower_than_usual', slower);
    else deadlines.push(slower);
  }

  // Past its estimate: the estimated day has ended where the shop is, and the parcel is still out.
  const estimate = facts.estimatedDelivery ?? facts.predictedDelivery;
  if (group !== 'not_followed' && estimate && shop.rules.past_estimate.on) {
    const end = endOfLocalDay(estimate, zone);
    if (end && end.getTime() <= now.getTime()) add('past_estimate', end);
    else if (end) deadlines.push(end);
  }

  const next = deadlines.length > 0 ? new Date(Math.min(...deadlines.map((d) => d.getTime()))) : null;
  return { open, closeReason: 'moved', nextCheckAt: next };
}
