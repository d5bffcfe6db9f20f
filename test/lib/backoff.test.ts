import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelayMs, backoffPolicies } from '../../src/lib/backoff.js';

describe('backoffDelayMs', () => {
  const policy = { baseDelayMs: 1_000, maxDelayMs: 60_000, maxAttempts: 10 };

  it('is full jitter under an exponential ceiling', () => {
    expect(backoffDelayMs(1, policy, null, () => 0.999)).toBe(999);
    expect(backoffDelayMs(3, policy, null, () => 0.5)).toBe(2_000);
    expect(backoffDelayMs(30, policy, null, () => 0.5)).toBe(30_000);
    expect(backoffDelayMs(1, policy, null, () => 0)).toBe(0);
  });

  it('never sooner than the service asked', () => {
    expect(backoffDelayMs(1, policy, 120_000, () => 0.5)).toBe(120_000);
  });

  it('stays within [retryAfter, max(retryAfter, min(max, base·2^(n-1)))) (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.option(fc.integer({ min: 0, max: 300_000 }), { nil: null }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempts, retryAfter, r) => {
          const delay = backoffDelayMs(attempts, policy, retryAfter, () => r);
          const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempts - 1));
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(retryAfter ?? 0);
          expect(delay).toBeLessThanOrEqual(Math.max(retryAfter ?? 0, ceiling));
        },
      ),
    );
  });
});

describe('backoffPolicies', () => {
  it('keep the delays each kind of work had before they shared one formula', () => {
    const store = backoffPolicies.storeEvent;
    // Store writes: 30 s × 2^attempts, at most 6 h (an access problem waits the 6 h at once).
    expect([1, 2, 5].map((n) => backoffDelayMs(n, store))).toEqual([60_000, 120_000, 960_000]);
    expect(backoffDelayMs(30, store)).toBe(6 * 3_600_000);
    expect(backoffDelayMs(Infinity, store)).toBe(6 * 3_600_000);
    // Status reads after a failed read: 15 min × 2^failures, at most a day.
    const poll = backoffPolicies.statusPoll;
    expect([1, 2, 3].map((n) => backoffDelayMs(n, poll))).toEqual([900_000, 1_800_000, 3_600_000]);
    expect(backoffDelayMs(20, poll)).toBe(24 * 3_600_000);
    // A backfill page that failed on our side: 30 s.
    expect(backoffDelayMs(1, backoffPolicies.backfillStep)).toBe(30_000);
    // Jittered ones stay under their ceiling.
    expect(backoffDelayMs(1, backoffPolicies.trackerSync, null, () => 0.5)).toBe(1_000);
    expect(backoffDelayMs(1, backoffPolicies.delivery, null, () => 0.5)).toBe(500);
  });
});
