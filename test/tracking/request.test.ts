import { describe, expect, it } from 'vitest';
import { reasonFromMessage, transportCause } from '../../src/tracking/classify.js';
import { backoffDelay, defaultRetryPolicy, parseRetryAfter } from '../../src/tracking/request.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');
  it('reads delay-seconds and HTTP-dates', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0);
  });
  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
  });
});

describe('backoffDelay', () => {
  it('grows exponentially, is capped, and is fully jittered', () => {
    const policy = { ...defaultRetryPolicy, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(1, policy, () => 0.999)).toBe(99);
    expect(backoffDelay(3, policy, () => 0.999)).toBe(399);
    expect(backoffDelay(10, policy, () => 0.999)).toBe(999);
    expect(backoffDelay(10, policy, () => 0)).toBe(0);
  });
});

describe('reasonFromMessage', () => {
  it.each([
    ['ssl_error', 401, 'ssl_error'],
    ['unauthorized', 401, 'unauthorized'],
    [null, 401, 'unauthorized'],
    ['Invalid route', 404, 'invalid_route'],
    ['Internal Server Error', 500, 'server_error'],
    ['Order id not found', 200, 'order_not_found'],
    ['Tracking information does not exist', 200, 'tracking_not_found'],
    ['Tracking number not found', 400, 'tracking_not_found'],
    ['Shipping provider not found', 400, 'provider_not_found'],
    ['App name not found', 200, 'app_name_not_found'],
    ['Missing required parameter: order_id', 400, 'missing_parameter'],
    ['postal_code and destination_country are required for postnl-3s', 200, 'destination_required'],
    ['Trackers balance exhausted', 200, 'balance_exhausted'],
    [null, 429, 'rate_limited'],
    ['something odd', 418, 'unknown'],
  ] as const)('%j (HTTP %i) → %s', (message, status, reason) => {
    expect(reasonFromMessage(message, status)).toBe(reason);
  });
});

describe('transportCause', () => {
  const withCode = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: { code } });
  it.each([
    ['ECONNRESET', 'reset'],
    ['UND_ERR_SOCKET', 'reset'],
    ['ECONNREFUSED', 'refused'],
    ['ENOTFOUND', 'dns'],
    ['EAI_AGAIN', 'dns'],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
    ['EWHATEVER', 'network'],
  ] as const)('%s → %s', (code, cause) => {
    expect(transportCause(withCode(code))).toBe(cause);
  });
  it('treats an aborted (timed-out) request as a timeout', () => {
    expect(transportCause(new DOMException('The operation was aborted due to timeout', 'TimeoutError'))).toBe(
      'timeout',
    );
  });
});
