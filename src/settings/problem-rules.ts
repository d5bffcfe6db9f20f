import * as z from 'zod/mini';

/**
 * The shipment problem rules of a shop (src/shipments/problems.ts): each kind on or off, and the days the
 * waiting kinds wait. The one schema `PUT /api/problems/rules` parses with, the stored JSON is read back
 * with, and the Settings page checks its "Shipment problems" card with before saving (`zod/mini`, so the
 * page bundle carries a few kB of it). One entry per kind of src/shipments/problem-words.ts (checked there:
 * this folder sits below the domain).
 */

/** The business days a waiting kind may wait. */
export const problemRuleDaysRange = { min: 1, max: 30 } as const;

const onOff = z.strictObject({ on: z.optional(z.boolean()) });
const waitingRule = z.strictObject({
  on: z.optional(z.boolean()),
  days: z.optional(
    z.number().check(
      z.refine((n) => Number.isSafeInteger(n), { abort: true }),
      z.gte(problemRuleDaysRange.min),
      z.lte(problemRuleDaysRange.max),
    ),
  ),
});

/** A shop's rules: each kind on or off, and the waiting kinds' days. Missing entries take the defaults. */
export const problemRulesSchema = z.strictObject({
  not_picked_up: z.optional(waitingRule),
  stalled: z.optional(waitingRule),
  past_estimate: z.optional(onOff),
  slower_than_usual: z.optional(onOff),
  carrier_exception: z.optional(onOff),
  failed_attempt: z.optional(onOff),
  on_hold: z.optional(onOff),
  returning: z.optional(onOff),
  waiting_pickup: z.optional(waitingRule),
  tracking_problem: z.optional(onOff),
});
export type ProblemRulesInput = z.output<typeof problemRulesSchema>;

/** The page's words for a waiting kind's days refused. */
export const problemRuleDaysMessage = `Enter a whole number of business days from ${problemRuleDaysRange.min} to ${problemRuleDaysRange.max}.`;
