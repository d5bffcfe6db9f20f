import type { StatusPushView } from '../../../api/status-push.js';
import { api } from '../../api-client.js';
import { toast } from '../../app-bridge.js';
import { failureToast, isSessionError, loadFailure } from '../../components/load-failure.js';
import { h, replace } from '../../dom.js';
import { formatDateTime, plural } from '../../format.js';
import { disableForms } from '../../session.js';
import { cardSection, type SettingsCard } from './card.js';

/** Status updates in seconds: the status push URL to register, whether pushes arrive, replacing the URL. */
export function statusPushCard(): SettingsCard {
  const pushSection = cardSection('status-push', 'Status updates in seconds', 'status push');

  const pushUrl = h('s-text-field', { label: 'Status push URL', readOnly: true });
  const pushState = h('div');
  const rotate = h('s-button', { variant: 'secondary' }, 'Replace the URL');
  rotate.addEventListener('click', () => void rotatePushUrl());

  function drawPush(push: StatusPushView): void {
    pushUrl.value = push.statusPushUrl;
    replace(
      pushState,
      h(
        's-stack',
        { direction: 'inline', gap: 'small-200', alignItems: 'center', data: { testid: 'push-state' } },
        h(
          's-badge',
          { tone: push.arriving ? 'success' : 'neutral' },
          push.arriving ? 'Receiving' : 'Not receiving',
        ),
        h(
          's-text',
          null,
          push.arriving && push.lastPushAt
            ? `Last push ${formatDateTime(String(push.lastPushAt))}. Shipments are also read every ${plural(push.safetyPollHours, 'hour')} as a safety net.`
            : 'No recent push: statuses are read on a schedule (hourly to every few hours).',
        ),
      ),
    );
  }

  async function loadPush(): Promise<void> {
    try {
      const push = await api<StatusPushView>('GET', '/status-push');
      drawPush(push);
      replace(
        pushSection,
        h(
          's-paragraph',
          null,
          'Register this URL as the tracking webhook in your tracking service account. It sends each new scan here with your API key, so statuses reach your store and your customers in seconds instead of hours.',
        ),
        pushUrl,
        pushState,
        rotate,
      );
      disableForms(pushSection);
    } catch (error) {
      replace(
        pushSection,
        isSessionError(error) ? null : loadFailure('The status push URL could not be loaded', error),
      );
    }
  }

  async function rotatePushUrl(): Promise<void> {
    if (
      !window.confirm(
        'Replace the status push URL? The current one stops working at once; register the new one at your tracking service.',
      )
    )
      return;
    rotate.loading = true;
    try {
      drawPush(await api<StatusPushView>('POST', '/status-push/rotate', {}));
      toast('New status push URL: register it at your tracking service');
    } catch (error) {
      failureToast(error);
    } finally {
      rotate.loading = false;
    }
  }
  return { section: pushSection, load: loadPush };
}
