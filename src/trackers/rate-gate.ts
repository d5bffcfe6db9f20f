/**
 * How many service calls may be in flight right now. Starts at the configured limit; a rate-limit answer
 * (429) halves it and holds every new call for the time the service asked (or a second), and each run of
 * successes as long as the current limit gives one slot back (additive increase, multiplicative decrease),
 * so the worker settles just under the service's limit instead of hammering it.
 */
export interface RateGate {
  /**
   * Whether call slot `slot` (0-based) may start a call, after waiting out a short hold: false when the
   * slot is above the current limit or the service asked for a longer pause (the caller's pass ends and
   * its next one asks again).
   */
  wait(slot: number): Promise<boolean>;
  success(): void;
  rateLimited(retryAfterMs: number | null): void;
  /** The current limit (for logs and tests). */
  readonly allowed: number;
}

export function createRateGate(
  limit: number,
  options: { defaultPauseMs?: number; maxWaitMs?: number } = {},
): RateGate {
  const max = Math.max(1, limit);
  const defaultPauseMs = options.defaultPauseMs ?? 1_000;
  const maxWaitMs = options.maxWaitMs ?? 1_000;
  let allowed = max;
  let successes = 0;
  let holdUntil = 0;
  return {
    get allowed() {
      return allowed;
    },
    async wait(slot) {
      for (;;) {
        if (slot >= allowed) return false;
        const hold = holdUntil - Date.now();
        if (hold <= 0) return true;
        if (hold > maxWaitMs) return false;
        await new Promise((resolve) => setTimeout(resolve, hold));
      }
    },
    success() {
      if (allowed >= max) return;
      successes++;
      if (successes >= allowed) {
        successes = 0;
        allowed++;
      }
    },
    rateLimited(retryAfterMs) {
      allowed = Math.max(1, Math.floor(allowed / 2));
      successes = 0;
      holdUntil = Math.max(holdUntil, Date.now() + (retryAfterMs ?? defaultPauseMs));
    },
  };
}
