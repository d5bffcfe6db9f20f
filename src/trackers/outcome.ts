import { explainShopPause, type PauseReason } from '../shops/pause-reasons.js';
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
