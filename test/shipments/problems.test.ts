import { problemRulesSchema } from '../../src/settings/problem-rules.js';
import { describe, expect, it } from 'vitest';
import {
  detectProblems,
  type ProblemFacts,
  problemRulesOf,
  storedProblemRules,
} from '../../src/shipments/problems.js';

const rules = problemRulesOf(null);
const shop = { timezone: 'UTC', rules };
// Wednesday 25 November 2026, noon UTC.
const now = new Date('2026-11-25T12:00:00Z');
const daysAgo = (n: number) => new Date(now.getTime() - n * 86_400_000);

function facts(over: Partial<ProblemFacts> = {}): ProblemFacts {
  return {
    desired: 'active',
    remote: 'present',
    status: 'in_transit',
    statusDetail: null,
    estimatedDelivery: null,
    predictedDelivery: null,
    lastEventAt: daysAgo(1),
    lastEventMessage: 'Departed facility',
    syncedAt: daysAgo(3),
    createdAt: daysAgo(3),
    ...over,
  };
}

const kinds = (f: ProblemFacts, s = shop) => detectProblems(f, s, now).open.map((p) => p.kind);

describe('detectProblems', () => {
  it('a parcel moving on time has none, and is looked at again when it could stall', () => {
    const d = detectProblems(facts(), shop, now);
    expect(d.open).toEqual([]);
    // Tuesday noon + 4 business days: Monday noon.
    expect(d.nextCheckAt?.toISOString()).toBe('2026-11-30T12:00:00.000Z');
  });

  it('stalled: in transit with no event for 4 business days (a weekend does not count)', () => {
    // Last event Thursday 19 Nov noon: Fri, Mon, Tue, Wed → due Wednesday noon.
    expect(kinds(facts({ lastEventAt: new Date('2026-11-19T12:00:00Z') }))).toEqual(['stalled']);
    // Last event Friday 20 Nov noon: Mon, Tue, Wed, Thu → not yet.
    expect(kinds(facts({ lastEventAt: new Date('2026-11-20T12:00:00Z') }))).toEqual([]);
    const open = detectProblems(facts({ lastEventAt: new Date('2026-11-19T12:00:00Z') }), shop, now).open[0]!;
    expect(open.since.toISOString()).toBe('2026-11-19T12:00:00.000Z');
  });

  it('not picked up: no carrier scan 3 business days after the fulfilment', () => {
    const label = facts({ status: 'pre_transit', lastEventAt: daysAgo(6), createdAt: daysAgo(6) });
    expect(kinds(label)).toEqual(['not_picked_up']);
    expect(kinds(facts({ status: 'pending', lastEventAt: null, createdAt: daysAgo(1) }))).toEqual([]);
  });

  it('status kinds open at once, dated by the event that brought them', () => {
    expect(kinds(facts({ status: 'exception' }))).toEqual(['carrier_exception']);
    expect(kinds(facts({ status: 'failure' }))).toEqual(['failed_attempt']);
    expect(kinds(facts({ status: 'on_hold' }))).toEqual(['on_hold']);
    expect(kinds(facts({ status: 'return_to_sender' }))).toEqual(['returning']);
    expect(kinds(facts({ status: 'returned' }))).toEqual(['returning']);
    expect(kinds(facts({ status: 'invalid_tracking', lastEventAt: null }))).toEqual(['tracking_problem']);
    expect(kinds(facts({ status: 'expired' }))).toEqual(['tracking_problem']);
  });

  it('waiting at a pickup point for more than 3 business days', () => {
    expect(kinds(facts({ status: 'available_for_pickup', lastEventAt: daysAgo(2) }))).toEqual([]);
    expect(kinds(facts({ status: 'available_for_pickup', lastEventAt: daysAgo(6) }))).toEqual([
      'waiting_pickup',
    ]);
  });

  it('past its estimate once the estimated day has ended where the shop is; never for a tracking problem', () => {
    expect(kinds(facts({ estimatedDelivery: '2026-11-24' }))).toEqual(['past_estimate']);
    // A predicted estimate counts where the service gives none.
    expect(kinds(facts({ predictedDelivery: '2026-11-24' }))).toEqual(['past_estimate']);
    expect(kinds(facts({ estimatedDelivery: '2026-11-25' }))).toEqual([]);
    // Noon UTC on the 25th is already the 26th in Kiritimati (UTC+14): the estimated 25th has ended there.
    expect(
      kinds(facts({ estimatedDelivery: '2026-11-25' }), { ...shop, timezone: 'Pacific/Kiritimati' }),
    ).toEqual(['past_estimate']);
    expect(kinds(facts({ status: 'invalid_tracking', estimatedDelivery: '2026-11-20' }))).toEqual([
      'tracking_problem',
    ]);
  });

  it('slower than usual: moving longer than the 90th percentile of its carrier and country; off without a figure', () => {
    // Its first scan 5 days ago; 9 in 10 of the shop's like parcels arrive within 4 days.
    const moving = facts({ transitStartedAt: daysAgo(5), usualTransitP90Seconds: 4 * 86_400 });
    const d = detectProblems(moving, shop, now);
    expect(d.open.map((p) => [p.kind, p.since.toISOString()])).toEqual([
      ['slower_than_usual', daysAgo(1).toISOString()],
    ]);
    // Within the usual time: looked at again when it would be slower.
    const early = detectProblems(
      facts({ transitStartedAt: daysAgo(1), usualTransitP90Seconds: 4 * 86_400 }),
      shop,
      now,
    );
    expect(early.open).toEqual([]);
    expect(early.nextCheckAt?.toISOString()).toBe(
      new Date(daysAgo(1).getTime() + 4 * 86_400_000).toISOString(),
    );
    // No figure (fewer than 30 delivered), or not moving: never.
    expect(kinds(facts({ transitStartedAt: daysAgo(50), usualTransitP90Seconds: null }))).toEqual([]);
    expect(
      kinds(
        facts({
          status: 'available_for_pickup',
          lastEventAt: daysAgo(1),
          transitStartedAt: daysAgo(50),
          usualTransitP90Seconds: 86_400,
        }),
      ),
    ).toEqual([]);
  });

  it('delivered, no longer wanted, or cancelled: none, and why the others close', () => {
    expect(detectProblems(facts({ status: 'delivered' }), shop, now)).toMatchObject({
      open: [],
      closeReason: 'delivered',
      nextCheckAt: null,
    });
    expect(detectProblems(facts({ desired: 'removed' }), shop, now).closeReason).toBe('ended');
    expect(detectProblems(facts({ status: 'label_cancelled' }), shop, now).closeReason).toBe('ended');
  });

  it('a kind switched off, and other days, by the shop’s rules', () => {
    const off = { ...shop, rules: problemRulesOf(JSON.stringify({ carrier_exception: { on: false } })) };
    expect(kinds(facts({ status: 'exception' }), off)).toEqual([]);
    const patient = { ...shop, rules: problemRulesOf(JSON.stringify({ stalled: { days: 10 } })) };
    expect(kinds(facts({ lastEventAt: new Date('2026-11-19T12:00:00Z') }), patient)).toEqual([]);
  });

  it('rules: defaults for what is missing; a stored value that does not parse is ignored', () => {
    expect(problemRulesOf(null).stalled).toEqual({ on: true, days: 4 });
    expect(problemRulesOf('{"stalled":{"days":99}}').stalled).toEqual({ on: true, days: 4 });
    expect(problemRulesOf('not json').not_picked_up).toEqual({ on: true, days: 3 });
    expect(problemRulesSchema.safeParse({ on_hold: { days: 3 } }).success).toBe(false);
    expect(problemRulesSchema.safeParse({ waiting_pickup: { days: 5 } }).success).toBe(true);
    // What is stored reads back the same.
    const changed = { ...rules, stalled: { on: true, days: 7 }, on_hold: { on: false, days: 0 } };
    expect(problemRulesOf(storedProblemRules(changed))).toEqual(changed);
  });
});
