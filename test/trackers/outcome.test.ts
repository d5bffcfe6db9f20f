import { describe, expect, it } from 'vitest';
import { classify } from '../../src/trackers/outcome.js';
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
