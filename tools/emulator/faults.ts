/** Fault injection: the plan (validated with zod) and the seeded decision of which call gets which fault. */
import { z } from 'zod';
import { defaultSeed, type Random, seededRandom } from './random.js';

export const operations = ['create', 'get', 'by-order-id', 'delete', 'providers'] as const;
export type Operation = (typeof operations)[number];
export const operationSchema = z.enum(operations);

const rate = z.number().min(0).max(1);

/** Longest time a timeout-faulted request holds its socket before the emulator drops it. */
export const maxTimeoutHoldMs = 120_000;

export const faultPlanSchema = z.strictObject({
  /** Delay added before every answer (and before a fault) of an affected operation. */
  latencyMs: z.number().int().min(0).max(600_000).default(0),
  /** Share of calls answered 500 `{"status":"error","message":"Internal Server Error"}`. */
  errorRate: rate.default(0),
  /** Share of calls never answered (socket held until the client gives up, the server closes, or 120 s). */
  timeoutRate: rate.default(0),
  /** Share of calls whose socket is reset with no answer (client sees ECONNRESET). */
  resetRate: rate.default(0),
  /** Share of calls answered 429 with a Retry-After header. */
  rateLimitRate: rate.default(0),
  /**
   * Share of calls answered 200 with a huge body (`oversizeBytes` of JSON, streamed without a length):
   * what a broken proxy or a hostile endpoint could send.
   */
  oversizeRate: rate.default(0),
  /** Size of an oversize answer. */
  oversizeBytes: z
    .number()
    .int()
    .min(1)
    .max(1024 * 1024 * 1024)
    .default(50 * 1024 * 1024),
  /** Retry-After value (seconds) of 429 answers. */
  retryAfterSeconds: z.number().int().min(0).max(86_400).default(1),
  /** When true, a create/delete hit by an error, timeout or reset still takes effect first (429s never do). */
  applyBeforeFault: z.boolean().default(false),
  /** Share of tracking-webhook pushes never sent. */
  pushDropRate: rate.default(0),
  /** Share of pushes sent twice. */
  pushDuplicateRate: rate.default(0),
  /** Share of pushes held back and sent after the account's next push (out of order). */
  pushReorderRate: rate.default(0),
  /** Delay before every push is sent. */
  pushDelayMs: z.number().int().min(0).max(600_000).default(0),
  /** Operations the faults (and the latency) apply to; absent = all five. */
  operations: z.array(operationSchema).optional(),
  /** When set, every /v1 response carries `Deprecation: <value>`. */
  deprecation: z.string().min(1).optional(),
  /** When set, every /v1 response carries `Sunset: <value>`. */
  sunset: z.string().min(1).optional(),
});

export type FaultPlan = z.output<typeof faultPlanSchema>;
export type FaultPlanInput = z.input<typeof faultPlanSchema>;

export type FaultKind = 'reset' | 'timeout' | 'rate_limit' | 'error' | 'oversize';

/** A plan from a partial one: absent (or undefined) fields take their defaults. Throws a ZodError on bad input. */
export function parseFaultPlan(input: unknown): FaultPlan {
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    const cleaned: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(input)) if (v !== undefined) cleaned[k] = v;
    return faultPlanSchema.parse(cleaned);
  }
  return faultPlanSchema.parse(input);
}

/** The current plan plus the seeded PRNG that decides, call by call, which fault (if any) happens. */
export class FaultController {
  private plan: FaultPlan;
  private rnd: Random;

  constructor(
    private readonly initialPlan: FaultPlan,
    private readonly seed: number = defaultSeed,
  ) {
    this.plan = initialPlan;
    this.rnd = seededRandom(seed);
  }

  get(): FaultPlan {
    return this.plan;
  }

  /** Replaces the whole plan (validated). */
  set(input: unknown): FaultPlan {
    this.plan = parseFaultPlan(input);
    return this.plan;
  }

  /** Merges fields into the current plan (validated). */
  patch(input: Record<string, unknown>): FaultPlan {
    this.plan = parseFaultPlan({ ...this.plan, ...input });
    return this.plan;
  }

  /** Back to the plan given at start, and the PRNG back to its seed. */
  reset(): void {
    this.plan = this.initialPlan;
    this.rnd = seededRandom(this.seed);
  }

  appliesTo(op: Operation): boolean {
    return this.plan.operations === undefined || this.plan.operations.includes(op);
  }

  latencyFor(op: Operation): number {
    return this.appliesTo(op) ? this.plan.latencyMs : 0;
  }

  /**
   * Draws the fault for one call of `op`. One draw per affected call; the rates are cumulative shares in
   * the order reset, timeout, rate_limit, error, oversize (if they add up to more than 1, the later ones shrink).
   */
  /** Draws what happens to one push: dropped, sent twice, held back behind the next one, or none. */
  decidePush(): 'drop' | 'duplicate' | 'reorder' | null {
    const p = this.plan;
    if (p.pushDropRate + p.pushDuplicateRate + p.pushReorderRate === 0) return null;
    const r = this.rnd();
    let edge = p.pushDropRate;
    if (r < edge) return 'drop';
    edge += p.pushDuplicateRate;
    if (r < edge) return 'duplicate';
    edge += p.pushReorderRate;
    if (r < edge) return 'reorder';
    return null;
  }

  decide(op: Operation): FaultKind | null {
    if (!this.appliesTo(op)) return null;
    const p = this.plan;
    if (p.resetRate + p.timeoutRate + p.rateLimitRate + p.errorRate + p.oversizeRate === 0) return null;
    const r = this.rnd();
    let edge = p.resetRate;
    if (r < edge) return 'reset';
    edge += p.timeoutRate;
    if (r < edge) return 'timeout';
    edge += p.rateLimitRate;
    if (r < edge) return 'rate_limit';
    edge += p.errorRate;
    if (r < edge) return 'error';
    edge += p.oversizeRate;
    if (r < edge) return 'oversize';
    return null;
  }
}
