import type { ShopOverview } from '../../../api/shop-overview.js';
import { connectionEmptyMessages, connectionSchema } from '../../../../settings/connection.js';
import { connectionRefusals, pauseWords } from '../../../vocabulary.js';
import { api, ApiError } from '../../api-client.js';
import { toast } from '../../app-bridge.js';
import { failureToast, loadFailure } from '../../components/load-failure.js';
import type { SaveBar } from '../../components/save-bar-form.js';
import { h, replace } from '../../dom.js';
import { plural } from '../../format.js';
import { disableForms } from '../../session.js';
import { cardSection, type SettingsCard } from './card.js';

/**
 * The tracking service connection: the account's app name and API key (checked live when saved; the key
 * is never shown again), whether the app is connected or paused, and the account's balance and plan.
 * Checked with the API's schema (src/settings/connection.ts) before saving.
 */
export function connectionCard(bar: SaveBar, shopLoaded: Promise<ShopOverview>): SettingsCard {
  const connectionSection = cardSection('connection', 'Connection', 'connection');

  const appName = h('s-text-field', { label: 'App name', autocomplete: 'off', required: true });
  const apiKey = h('s-password-field', { label: 'API key', autocomplete: 'new-password', required: true });
  const status = h('div', { class: 'connection-status' });
  const connection = bar.form({
    children: [appName, apiKey],
    read: () => ({ appName: appName.value.trim(), apiKey: apiKey.value }),
    write: (v) => {
      appName.value = v.appName;
      apiKey.value = v.apiKey;
      appName.error = '';
      apiKey.error = '';
    },
    save: async (v) => {
      appName.error = '';
      apiKey.error = '';
      // The API's own schema first: an empty field is asked for, another refusal said as the API says it.
      const checked = connectionSchema.safeParse(v);
      if (!checked.success) {
        for (const issue of checked.error.issues) {
          const field = issue.path[0] === 'appName' ? 'appName' : 'apiKey';
          const words = v[field].trim() === '' ? connectionEmptyMessages[field] : issue.message;
          if (field === 'appName') appName.error ||= words;
          else apiKey.error ||= words;
        }
        return null;
      }
      try {
        const answer = await api<{ ok: true; shop: ShopOverview }>('PUT', '/connection', v);
        drawConnection(answer.shop);
        toast('Connected');
        return { appName: answer.shop.connection.appName ?? v.appName, apiKey: '' };
      } catch (error) {
        if (error instanceof ApiError && error.status === 422) {
          apiKey.error = connectionRefusals[error.reason ?? ''] ?? error.message;
          toast(`Not saved: ${apiKey.error}`, { isError: true });
        } else if (error instanceof ApiError && error.issues.length > 0) {
          for (const issue of error.issues) {
            if (issue.field === 'appName') appName.error = issue.message;
            else apiKey.error = issue.message;
          }
        } else failureToast(error);
        return null;
      }
    },
  });

  function drawConnection(shop: ShopOverview): void {
    const c = shop.connection;
    apiKey.details = c.hasApiKey ? 'A key is stored. It is never shown again; enter it to change it.' : '';
    const connected = c.hasApiKey && !c.paused;
    const facts = h(
      's-stack',
      { direction: 'inline', gap: 'small-200', alignItems: 'center' },
      h(
        's-badge',
        { tone: connected ? 'success' : c.paused?.reason === 'not_connected' ? 'neutral' : 'critical' },
        connected ? 'Connected' : c.paused?.reason === 'not_connected' ? 'Not connected' : 'Paused',
      ),
      connected
        ? h(
            's-text',
            { data: { testid: 'balance' } },
            c.trackersBalance !== null
              ? `${plural(c.trackersBalance, 'tracker')} left${c.userPlan ? ` · ${c.userPlan} plan` : ''}`
              : 'Balance and plan: not known yet — shown after the first tracker is created.',
          )
        : null,
    );
    replace(
      status,
      facts,
      c.paused
        ? h(
            's-banner',
            { tone: c.paused.reason === 'not_connected' ? 'info' : 'critical' },
            pauseWords(c.paused.reason, c.paused.message),
          )
        : null,
      connected && c.lowBalance
        ? h('s-banner', { tone: 'warning' }, 'Few trackers left: top up your tracking service account.')
        : null,
    );
  }
  async function load(): Promise<void> {
    try {
      const shop = await shopLoaded;
      connection.setSaved({ appName: shop.connection.appName ?? '', apiKey: '' });
      drawConnection(shop);
      replace(
        connectionSection,
        h(
          's-paragraph',
          { color: 'subdued' },
          'The tracking service account that receives this store’s trackers.',
        ),
        status,
        connection.form,
      );
      disableForms(connectionSection);
    } catch (error) {
      replace(connectionSection, loadFailure('The connection could not be loaded', error));
    }
  }

  return { section: connectionSection, load };
}
