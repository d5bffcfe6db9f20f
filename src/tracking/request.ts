import { httpStatusIsRetryable, transportCause } from './classify.js';
import type { Answer, Transport } from './transport.js';
import type { DeprecationNotice, OperationName, TransportCause } from './types.js';

/**
 * The one function that talks HTTP to the tracking service: per-attempt timeout, bounded retries with
 * exponential backoff and full jitter for transient faults only, `Retry-After` honoured, RFC 8594 headers
 * surfaced. It never throws and never parses bodies beyond JSON: the client maps outcomes to results.
 */

export interface RetryPolicy {
  /** Total attempts, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for here: the caller gets the error and the delay. */
  maxRetryAfterMs: number;
}

export interface RequestSettings {
  /** How an attempt crosses the network (src/tracking/transport.ts). */
  transport: Transport;
  /** Per attempt, the answer's read included. */
  timeoutMs: number;
  /** Answers longer than this are not read (see readBounded). */
  maxResponseBytes: number;
  retry: RetryPolicy;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
}

/**
 * `idempotent`: retry every transient fault. `not-idempotent` (create): a timeout, reset or 5xx may come
 * after the service acted, so only faults that prove the request was not processed are retried here
 * (429, refused connection, name resolution); the rest go back to the caller marked as outcome unknown.
 */
export type RetryMode = 'idempotent' | 'not-idempotent';

export interface HttpCall {
  operation: OperationName;
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: Record<string, string>;
  retryMode: RetryMode;
}

export type RawOutcome =
  | {
      kind: 'response';
      status: number;
      /** Parsed JSON body, or undefined when the body was not JSON (or too large to read). */
      json: unknown;
      bodyIsJson: boolean;
      /** The answer was longer than maxResponseBytes: reading stopped there and the rest was dropped. */
      oversize: boolean;
      retryAfterMs: number | null;
      deprecation: DeprecationNotice | null;
      attempts: number;
      /** True when an earlier attempt failed in a way that leaves its effect unknown. */
      earlierAttemptUnknown: boolean;
    }
  | {
      kind: 'transport';
      cause: TransportCause;
      attempts: number;
      /** True when the request may have reached the service (anything but refused / DNS). */
      maybeSent: boolean;
    };

export async function sendWithRetries(call: HttpCall, settings: RequestSettings): Promise<RawOutcome> {
  const { retry } = settings;
  let earlierAttemptUnknown = false;
  for (let attempt = 1; ; attempt++) {
    const outcome = await sendOnce(call, settings, attempt, earlierAttemptUnknown);
    const last = attempt >= retry.maxAttempts;
    if (outcome.kind === 'response') {
      const status = outcome.status;
      if (!httpStatusIsRetryable(status) || last) return outcome;
      const safeToRepeat = call.retryMode === 'idempotent' || status === 429;
      if (!safeToRepeat) return outcome;
      if (outcome.retryAfterMs !== null && outcome.retryAfterMs > retry.maxRetryAfterMs) return outcome;
      if (status >= 500) earlierAttemptUnknown = true;
      await settings.sleep(
        Math.max(outcome.retryAfterMs ?? 0, backoffDelay(attempt, retry, settings.random)),
      );
      continue;
    }
    if (last) return outcome;
    if (outcome.maybeSent && call.retryMode === 'not-idempotent') return outcome;
    if (outcome.maybeSent) earlierAttemptUnknown = true;
    await settings.sleep(backoffDelay(attempt, retry, settings.random));
  }
}

/** Exponential backoff with full jitter: uniform in [0, min(max, base * 2^(attempt-1))]. */
export function backoffDelay(attempt: number, retry: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

async function sendOnce(
  call: HttpCall,
  settings: RequestSettings,
  attempt: number,
  earlierAttemptUnknown: boolean,
): Promise<RawOutcome> {
  let answer: Answer;
  try {
    answer = await settings.transport(
      {
        method: call.method,
        url: call.url,
        headers: call.headers,
        ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
      },
      settings,
    );
  } catch (error) {
    const cause = transportCause(error);
    return { kind: 'transport', cause, attempts: attempt, maybeSent: cause !== 'refused' && cause !== 'dns' };
  }
  let json: unknown;
  let bodyIsJson = false;
  const text = 'text' in answer.body ? answer.body.text : '';
  if (text.trim() !== '') {
    try {
      json = JSON.parse(text);
      bodyIsJson = true;
    } catch {
      json = undefined;
    }
  }
  return {
    kind: 'response',
    status: answer.status,
    json,
    bodyIsJson,
    oversize: 'oversize' in answer.body,
    retryAfterMs: parseRetryAfter(answer.header('retry-after'), Date.now()),
    deprecation: readDeprecation(answer.header),
    attempts: attempt,
    earlierAttemptUnknown,
  };
}

/** `Retry-After`: delay-seconds or an HTTP-date (RFC 9110 §10.2.3). Null when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // HTTP-date forms all name a month and a four-digit (or two-digit, obsolete) year with a time of day.
  if (!/[a-z]{3}/i.test(trimmed) || !/\d{1,2}:\d{2}:\d{2}/.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

export function readDeprecation(header: (name: string) => string | null): DeprecationNotice | null {
  const deprecation = header('deprecation');
  const sunset = header('sunset');
  if (deprecation === null && sunset === null) return null;
  return { deprecation, sunset, link: header('link') };
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 10_000,
};
