import { h, replace } from './dom.js';

/**
 * The session: when the app answers 401 (the admin's session token expired or was refused), one banner
 * says so for the whole page and every form is disabled until a check with a fresh token succeeds.
 */

let expired = false;
let banner: HTMLElement | null = null;
let recheck: (() => Promise<boolean>) | null = null;
let onRestored: (() => void) | null = null;

/** The elements a form's user acts on (fields and buttons), native or Polaris. */
const controls =
  'input, select, textarea, button, s-text-field, s-password-field, s-search-field, s-select, s-checkbox, s-choice-list, s-date-field, s-number-field, s-color-field, s-text-area, s-button';

/**
 * Where the banner goes, how to check the session again ("Try again"), and what to do once it is back
 * (draw the page again: its sections did not load while it was gone).
 */
export function mountSessionBanner(
  container: HTMLElement,
  check: () => Promise<boolean>,
  restored: () => void,
): void {
  banner = container;
  recheck = check;
  onRestored = restored;
  if (expired) render();
}

export function expireSession(): void {
  if (expired) return;
  expired = true;
  document.body.dataset.session = 'expired';
  render();
  disableForms(document);
}

/** Disables the forms under `root` while the session is expired (pages call it for forms drawn late). */
export function disableForms(root: ParentNode): void {
  if (!expired) return;
  for (const form of root.querySelectorAll('form')) {
    for (const control of form.querySelectorAll<HTMLElement & { disabled: boolean }>(controls)) {
      if (control.disabled) continue;
      control.disabled = true;
      control.setAttribute('disabled', '');
      control.dataset.sessionDisabled = 'true';
    }
  }
  for (const action of root.querySelectorAll<HTMLElement & { disabled: boolean }>('[data-needs-session]')) {
    if (action.disabled) continue;
    action.disabled = true;
    action.setAttribute('disabled', '');
    action.dataset.sessionDisabled = 'true';
  }
}

function restore(): void {
  expired = false;
  delete document.body.dataset.session;
  for (const control of document.querySelectorAll<HTMLElement & { disabled: boolean }>(
    '[data-session-disabled]',
  )) {
    control.disabled = false;
    control.removeAttribute('disabled');
    delete control.dataset.sessionDisabled;
  }
  render();
  onRestored?.();
}

function render(): void {
  if (!banner) return;
  if (!expired) {
    replace(banner);
    return;
  }
  const retry = h(
    's-button',
    {
      slot: 'secondary-actions',
      on: {
        click: () => {
          retry.loading = true;
          void (recheck?.() ?? Promise.resolve(false)).then((ok) => {
            retry.loading = false;
            if (ok) restore();
          });
        },
      },
    },
    'Try again',
  );
  replace(
    banner,
    h(
      's-banner',
      { tone: 'critical', heading: 'Your session has expired', data: { testid: 'session-expired' } },
      'Changes cannot be saved until the app has a session again. Reload the app from your store admin, or try again.',
      retry,
    ),
  );
}
