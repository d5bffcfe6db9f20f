import { backoffDelayMs, backoffPolicies } from '../lib/backoff.js';

/** A failed store call's kind (StoreCallResult in post-store-events.ts). */
type StoreFailure = { kind: 'retry' | 'rejected' | 'access' };

/**
 * What a failed store call means for the outbox row that made it (fulfilment events, tracking links): a
 * refusal, or a passing failure tried too often, is given up; otherwise the row is tried again after the
 * store-write backoff. No access (a missing scope, no offline session) waits the longest step: it needs a
 * reinstall or a re-consent, and is looked at again every few hours.
 */
export function afterStoreFailure(
  failure: StoreFailure,
  attempts: number,
  now: Date,
  maxAttempts: number = backoffPolicies.storeEvent.maxAttempts,
): { giveUp: true } | { giveUp: false; nextAttemptAt: Date } {
  if (failure.kind === 'rejected' || (failure.kind === 'retry' && attempts >= maxAttempts))
    return { giveUp: true };
  const delay = backoffDelayMs(failure.kind === 'access' ? Infinity : attempts, backoffPolicies.storeEvent);
  return { giveUp: false, nextAttemptAt: new Date(now.getTime() + delay) };
}
