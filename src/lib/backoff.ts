/**
 * Every retry delay of the app, from one formula described per use: an exponential ceiling
 * (`baseDelayMs` × 2^(attempt − 1), at most `maxDelayMs`), with full jitter where many rows fail together
 * (spread over 0..ceiling), never sooner than the other side asked (Retry-After).
 */
export interface BackoffPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
  /** Attempts before the work is given up (marked dead or failed). */
  maxAttempts: number;
  /** `full`: a random delay up to the ceiling (default); `none`: the ceiling itself. */
  jitter?: 'full' | 'none';
}

const minute = 60_000;
const hour = 60 * minute;

/** The policies, one per kind of work. */
export const backoffPolicies = {
  /** A tracker's create or delete at the tracking service. */
  trackerSync: { baseDelayMs: 2_000, maxDelayMs: 30 * minute, maxAttempts: 10 },
  /** Turning a recorded webhook delivery into desired state (our own database work). */
  delivery: { baseDelayMs: 1_000, maxDelayMs: 10 * minute, maxAttempts: 10 },
  /** Writing a fulfilment event to the store. */
  storeEvent: { baseDelayMs: 60_000, maxDelayMs: 6 * hour, maxAttempts: 12, jitter: 'none' },
  /** Applying a recorded status push after a failure of ours (the database): a few tries, then failed. */
  statusPush: { baseDelayMs: 60_000, maxDelayMs: 6 * hour, maxAttempts: 5, jitter: 'none' },
  /** Reading a shipment's status again after a failed read. */
  statusPoll: { baseDelayMs: 15 * minute, maxDelayMs: 24 * hour, maxAttempts: Infinity, jitter: 'none' },
  /** A backfill page that failed on our side (the database): read again after this. */
  backfillStep: { baseDelayMs: 30_000, maxDelayMs: 30_000, maxAttempts: Infinity, jitter: 'none' },
} satisfies Record<string, BackoffPolicy>;

/** How long to wait before attempt `attempt + 1`, after `attempt` (≥ 1) failures. */
export function backoffDelayMs(
  attempt: number,
  policy: BackoffPolicy,
  retryAfterMs: number | null = null,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(
    policy.maxDelayMs,
    policy.baseDelayMs * 2 ** Math.min(Math.max(0, attempt - 1), 30),
  );
  const delay = policy.jitter === 'none' ? ceiling : Math.floor(random() * ceiling);
  return Math.max(retryAfterMs ?? 0, delay);
}
