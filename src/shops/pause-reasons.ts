/**
 * Why a shop's trackers are held, and the one sentence the page, the CLI and the logs show for it. Every
 * place that pauses a shop takes its message from here.
 */
export type PauseReason =
  'ssl_error' | 'unauthorized' | 'balance_exhausted' | 'not_connected' | 'uninstalled';

const messages: Record<PauseReason, string> = {
  ssl_error: 'The tracking service refuses this store: its URL must be HTTPS (ssl_error).',
  unauthorized: 'The tracking service does not accept this API key and app name (unauthorized).',
  balance_exhausted: 'The tracking service account has no trackers left in its balance.',
  not_connected: 'No tracking service API key is stored for this store yet.',
  uninstalled: 'The app was uninstalled from this store.',
};

/** A stored key sealed under a key id no longer in ENCRYPTION_KEY (paused as not_connected). */
export const keyUnreadableMessage =
  'The stored API key cannot be decrypted with ENCRYPTION_KEY; connect the store again.';

export function explainShopPause(reason: PauseReason): string {
  return messages[reason];
}

/** The columns of a shop paused for `reason` from `now`. */
export function pausedColumns(
  reason: PauseReason,
  now: Date = new Date(),
  message = explainShopPause(reason),
) {
  return { pausedReason: reason, pausedMessage: message, pausedAt: now, probeAt: null };
}
