import { ApiError, errorText } from '../api-client.js';
import { toast } from '../app-bridge.js';
import { h } from '../dom.js';

/** A 401: the page's one session banner already says it; sections and toasts stay quiet. */
export function isSessionError(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}

/**
 * What a section shows when its data could not be loaded: a critical banner with the reason, or, when the
 * session expired, a quiet line (the page's one banner explains it).
 */
export function loadFailure(heading: string, error: unknown): HTMLElement {
  if (isSessionError(error))
    return h('s-paragraph', { color: 'subdued' }, 'Shown again once the session is back.');
  return h('s-banner', { tone: 'critical', heading }, errorText(error));
}

/** An action's failure as an error toast (none for an expired session: the banner says it). */
export function failureToast(error: unknown): void {
  if (!isSessionError(error)) toast(errorText(error), { isError: true });
}
