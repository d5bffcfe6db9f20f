import type { PauseReason } from '../shops/shop-repository.js';
import type { TrackingError } from '../tracking/types.js';

/**
 * What a failed call means for the work: try this tracker again later (transient), give up on this
 * tracker (permanent), or hold the whole shop until its cause is fixed (shop).
 */
export type Classified =
  | { kind: 'transient'; reason: string; message: string; retryAfterMs: number | null }
  | { kind: 'permanent'; reason: string; message: string }
  | { kind: 'shop'; reason: PauseReason; message: string };

const shopReasons: Partial<Record<TrackingError['reason'], PauseReason>> = {
  ssl_error: 'ssl_error',
  unauthorized: 'unauthorized',
  app_name_not_found: 'unauthorized',
  balance_exhausted: 'balance_exhausted',
};

export function classify(error: TrackingError): Classified {
  const shopReason = shopReasons[error.reason];
  if (shopReason) return { kind: 'shop', reason: shopReason, message: explainShopPause(shopReason) };
  if (error.retryable) {
    const retryAfterMs = error.kind === 'http' ? error.retryAfterMs : null;
    const reason = error.kind === 'transport' ? `transport_${error.cause}` : error.reason;
    return { kind: 'transient', reason, message: error.message, retryAfterMs };
  }
  return { kind: 'permanent', reason: error.reason, message: error.message };
}

export function explainShopPause(reason: PauseReason): string {
  switch (reason) {
    case 'ssl_error':
      return 'The tracking service refuses this store: its URL must be HTTPS (ssl_error).';
    case 'unauthorized':
      return 'The tracking service does not accept this API key and app name (unauthorized).';
    case 'balance_exhausted':
      return 'The tracking service account has no trackers left in its balance.';
    case 'not_connected':
      return 'No tracking service API key is stored for this store yet.';
    case 'uninstalled':
      return 'The app was uninstalled from this store.';
  }
}

export interface BackoffPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
  maxAttempts: number;
}

export const defaultBackoff: BackoffPolicy = { baseDelayMs: 2_000, maxDelayMs: 30 * 60_000, maxAttempts: 10 };

/** Full jitter over an exponential ceiling, never sooner than the service asked. */
export function nextDelayMs(
  attempts: number,
  policy: BackoffPolicy,
  retryAfterMs: number | null,
  random = Math.random,
) {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempts - 1));
  return Math.max(retryAfterMs ?? 0, Math.floor(random() * ceiling));
}
