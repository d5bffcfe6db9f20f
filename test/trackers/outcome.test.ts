import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classify, nextDelayMs } from '../../src/trackers/outcome.js';
import { explainShopPause } from '../../src/shops/pause-reasons.js';
import type { ErrorReason, TrackingError } from '../../src/tracking/types.js';

function httpError(
  reason: ErrorReason,
  status: number,
  retryable: boolean,
  retryAfterMs: number | null = null,
) {
  return {
    kind: 'http',
    httpStatus: status,
    reason,
    retryable,
    retryAfterMs,
    operation: 'create',
    attempts: 1,
    message: `HTTP ${status}`,
  } satisfies TrackingError;
}

describe('classify', () => {
  it.each([
    ['ssl_error', 'ssl_error'],
    ['unauthorized', 'unauthorized'],
    ['app_name_not_found', 'unauthorized'],
    ['balance_exhausted', 'balance_exhausted'],
  ] as const)('%s holds the whole shop (%s)', (reason, pause) => {
    const classified = classify(httpError(reason, 401, false));
    expect(classified).toEqual({ kind: 'shop', reason: pause, message: explainShopPause(pause) });
  });

  it('a shop-level reason wins even when the error is retryable', () => {
    expect(classify(httpError('balance_exhausted', 429, true)).kind).toBe('shop');
  });

  it('retryable errors are transient, carrying Retry-After', () => {
    expect(classify(httpError('rate_limited', 429, true, 30_000))).toEqual({
      kind: 'transient',
      reason: 'rate_limited',
      message: 'HTTP 429',
      retryAfterMs: 30_000,
    });
    expect(classify(httpError('server_error', 500, true))).toMatchObject({
      kind: 'transient',
      retryAfterMs: null,
    });
  });

  it('transport errors are transient with their cause as reason', () => {
    const error: TrackingError = {
      kind: 'transport',
      cause: 'timeout',
      reason: 'unknown',
      retryable: true,
      operation: 'create',
      attempts: 1,
      message: 'no answer',
    };
    expect(classify(error)).toEqual({
      kind: 'transient',
      reason: 'transport_timeout',
      message: 'no answer',
      retryAfterMs: null,
    });
  });

  it.each(['destination_required', 'provider_not_found', 'missing_parameter', 'order_not_found'] as const)(
    'non-retryable %s is permanent',
    (reason) => {
      expect(classify(httpError(reason, 400, false))).toEqual({
        kind: 'permanent',
        reason,
        message: 'HTTP 400',
      });
    },
  );

  it('every pause reason has an explanation', () => {
    for (const reason of [
      'ssl_error',
      'unauthorized',
      'balance_exhausted',
      'not_connected',
      'uninstalled',
    ] as const) {
      expect(explainShopPause(reason)).toMatch(/\w/);
    }
  });
});

describe('nextDelayMs', () => {
  const policy = { baseDelayMs: 1_000, maxDelayMs: 60_000, maxAttempts: 10 };

  it('is full jitter under an exponential ceiling', () => {
    expect(nextDelayMs(1, policy, null, () => 0.999)).toBe(999);
    expect(nextDelayMs(3, policy, null, () => 0.5)).toBe(2_000);
    expect(nextDelayMs(30, policy, null, () => 0.5)).toBe(30_000);
    expect(nextDelayMs(1, policy, null, () => 0)).toBe(0);
  });

  it('never sooner than the service asked', () => {
    expect(nextDelayMs(1, policy, 120_000, () => 0.5)).toBe(120_000);
  });

  it('stays within [retryAfter, max(retryAfter, min(max, base·2^(n-1)))) (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.option(fc.integer({ min: 0, max: 300_000 }), { nil: null }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempts, retryAfter, r) => {
          const delay = nextDelayMs(attempts, policy, retryAfter, () => r);
          const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempts - 1));
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(retryAfter ?? 0);
          expect(delay).toBeLessThanOrEqual(Math.max(retryAfter ?? 0, ceiling));
        },
      ),
    );
  });
});
