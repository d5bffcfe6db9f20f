import type { Analytics, CarrierAnalytics } from '../../api/analytics.js';
import type { HealthItem, Overview } from '../../api/overview.js';
import {
  attentionWords,
  healthWords,
  parcelGroupLabels,
  parcelGroups,
  parcelGroupStatusTones,
  pauseWords,
  shipmentsCountedNote,
} from '../../vocabulary.js';
import { parcelTones } from '../components/badges.js';
import { api } from '../api-client.js';
import { loadFailure } from '../components/load-failure.js';
import { barChart } from '../components/chart.js';
import { h, replace } from '../dom.js';
import { formatCount, formatDays, formatRate, plural } from '../format.js';
import type { PageModule } from '../page.js';
import { pageHref } from '../router.js';

/**
 * Overview: the setup guide until the store is connected, health at a glance (each line counted by the
 * same query as the list it links to; the shipment problems first, counted as the "Needs attention"
 * list counts them), and delivery analytics over 7, 30 or 90 days, drawn as charts with their numbers readable
 * beside them.
 */

const periods = [7, 30, 90] as const;
type Period = (typeof periods)[number];

export const overviewPage: PageModule = (context) => {
  const wanted = Number(context.params.get('days'));
  let days: Period = (periods as readonly number[]).includes(wanted) ? (wanted as Period) : 30;

  const setupArea = h('div', { class: 'overview-setup' });
  const healthSection = h(
    's-section',
    { heading: 'Health' },
    h('s-spinner', { accessibilityLabel: 'Loading health' }),
  );
  const analyticsBody = h(
    'div',
    { class: 'analytics' },
    h('s-spinner', { accessibilityLabel: 'Loading analytics' }),
  );
  const period = h(
    's-select',
    { label: 'Period', labelAccessibilityVisibility: 'exclusive', slot: 'primary-action' },
    periods.map((p) => h('s-option', { value: String(p), selected: p === days }, `Last ${p} days`)),
  );
  period.addEventListener('change', () => {
    days = Number(period.value) as Period;
    context.setParams({ days });
    void loadAnalytics();
  });
  const analyticsSection = h('s-section', { heading: 'Deliveries' }, period, analyticsBody);
  const trackingPageSection = h('s-section', { heading: 'Tracking page for your customers' });

  /* ---------------------------------------------------------------- setup and health */

  async function loadOverview(): Promise<void> {
    try {
      const overview = await api<Overview>('GET', '/overview');
      replace(setupArea, overview.setup.done ? null : setupGuide(overview));
      replace(healthSection, ...healthContent(overview));
      replace(
        trackingPageSection,
        h(
          's-paragraph',
          null,
          'Your customers look up their parcels at ',
          h('s-link', { href: overview.trackingPage.url, target: '_blank' }, overview.trackingPage.url),
          '. Add the “Track your order” block to your theme to link it.',
        ),
        h(
          's-text',
          { color: 'subdued', data: { testid: 'tracking-page-lookups' } },
          `${plural(overview.trackingPage.lookups, 'lookup')} answered so far.`,
        ),
        trackingLinksStatus(overview.trackingPage.links),
      );
    } catch (error) {
      replace(healthSection, loadFailure('The overview could not be loaded', error));
    }
  }

  /** Where the store's shipping emails send customers, and how far the links are set. */
  function trackingLinksStatus(links: Overview['trackingPage']['links']): HTMLElement {
    if (!links.on)
      return h(
        's-paragraph',
        { data: { testid: 'tracking-links' } },
        'Shipping emails link to the carriers’ sites. ',
        h(
          's-link',
          { href: pageHref('settings', { section: 'behaviour' }) },
          'Send customers to this page instead',
        ),
        '.',
      );
    const parts = [`Shipping emails link to this page: ${plural(links.set, 'fulfilment')} updated`];
    if (links.waiting > 0) parts.push(`${formatCount(links.waiting)} waiting`);
    if (links.failed > 0) parts.push(`${formatCount(links.failed)} could not be updated`);
    return h(
      's-stack',
      { gap: 'small-200', data: { testid: 'tracking-links' } },
      h('s-paragraph', null, `${parts.join(', ')}.`),
      links.problem && (links.failed > 0 || links.waiting > 0)
        ? h('s-banner', { tone: links.failed > 0 ? 'warning' : 'info' }, `The store said: ${links.problem}`)
        : null,
    );
  }

  function setupGuide(overview: Overview): HTMLElement {
    const steps = overview.setup.steps;
    const doneCount = steps.filter((s) => s.done).length;
    return h(
      's-section',
      { heading: 'Set up Tracksync' },
      h('s-paragraph', null, `${doneCount} of ${steps.length} steps done.`),
      h('s-progress', { value: doneCount, max: steps.length, accessibilityLabel: 'Setup progress' }),
      h(
        's-ordered-list',
        null,
        steps.map((step) =>
          h(
            's-list-item',
            null,
            h(
              's-stack',
              { direction: 'inline', gap: 'small-200', alignItems: 'center' },
              h('s-badge', { tone: step.done ? 'success' : 'neutral' }, step.done ? 'Done' : 'To do'),
              step.done
                ? h('s-text', null, step.title)
                : h('s-link', { href: pageHref(step.page, step.params ?? {}) }, step.title),
            ),
            step.done ? null : h('s-paragraph', { color: 'subdued' }, step.description),
          ),
        ),
      ),
    );
  }

  function healthContent(overview: Overview): Array<HTMLElement | null> {
    const connection = overview.connection;
    const connected = connection.hasApiKey && !connection.paused;
    const connectionLine = h(
      's-stack',
      { direction: 'inline', gap: 'small-200', alignItems: 'center' },
      h('s-badge', { tone: connected ? 'success' : 'critical' }, connected ? 'Connected' : 'Not syncing'),
      connected
        ? h(
            's-text',
            null,
            [
              connection.appName ? `Account ${connection.appName}` : null,
              connection.trackersBalance !== null
                ? `${formatCount(connection.trackersBalance)} trackers left`
                : 'balance shown after the first tracker',
              connection.userPlan ? `${connection.userPlan} plan` : null,
            ]
              .filter(Boolean)
              .join(' · '),
          )
        : h(
            's-text',
            null,
            connection.paused
              ? pauseWords(connection.paused.reason, connection.paused.message)
              : 'Not connected.',
            ' ',
            h('s-link', { href: pageHref('settings', { section: 'connection' }) }, 'Check the connection'),
          ),
    );
    const forecast = overview.balance;
    const lowBalance =
      connected && (connection.lowBalance || forecast?.warn)
        ? h(
            's-banner',
            { tone: 'warning', heading: 'Tracker balance running low' },
            forecast?.warn && forecast.daysLeft !== null
              ? `Tracking stops in about ${plural(forecast.daysLeft, 'day')} at your current volume (${plural(connection.trackersBalance ?? 0, 'tracker')} left, about ${formatCount(Math.round(forecast.perDay))} a day): top up your tracking service account.`
              : `${plural(connection.trackersBalance ?? 0, 'tracker')} left: top up your tracking service account before new fulfilments wait.`,
          )
        : null;
    return [
      connectionLine,
      lowBalance,
      h(
        's-unordered-list',
        { class: 'health-list' },
        attentionLine(overview.problems.total),
        overview.health.map((item) => healthLine(item)),
      ),
    ];
  }

  /** The shipment problems waiting for the merchant, leading to the Needs attention list. */
  function attentionLine(total: number): HTMLElement {
    const link = (text: string) => h('s-link', { href: pageHref('attention') }, text);
    const words = attentionWords(total);
    return h(
      's-list-item',
      { data: { health: 'needs_attention', count: String(total) } },
      h(
        's-stack',
        { direction: 'inline', gap: 'small-200', alignItems: 'center' },
        h('s-badge', { tone: total === 0 ? 'success' : 'warning' }, total === 0 ? 'OK' : formatCount(total)),
        h('s-text', null, words.text),
        words.action ? link(words.action) : null,
      ),
    );
  }

  function healthLine(item: HealthItem): HTMLElement {
    const words = healthWords(item);
    return h(
      's-list-item',
      { data: { health: item.key, count: String(item.count) } },
      h(
        's-stack',
        { direction: 'inline', gap: 'small-200', alignItems: 'center' },
        h('s-badge', { tone: item.tone }, item.count === 0 ? 'OK' : formatCount(item.count)),
        h('s-text', null, words.text),
        item.count > 0 && words.action
          ? h('s-link', { href: pageHref(item.page, item.filter ?? {}) }, words.action)
          : null,
      ),
    );
  }

  /* ---------------------------------------------------------------- analytics */

  async function loadAnalytics(): Promise<void> {
    analyticsBody.setAttribute('aria-busy', 'true');
    try {
      const analytics = await api<Analytics>('GET', `/analytics?days=${days}`);
      if (analytics.days !== days) return;
      replace(analyticsBody, h('s-stack', { gap: 'large' }, ...analyticsContent(analytics)));
    } catch (error) {
      replace(analyticsBody, loadFailure('Analytics could not be loaded', error));
    } finally {
      analyticsBody.removeAttribute('aria-busy');
    }
  }

  function analyticsContent(analytics: Analytics): HTMLElement[] {
    const total = analytics.total;
    if (total.shipments === 0) {
      return [
        h(
          's-paragraph',
          { color: 'subdued' },
          `No shipments in the last ${analytics.days} days. Figures appear here once trackers are created.`,
        ),
      ];
    }
    const metrics = h(
      's-grid',
      { gridTemplateColumns: 'repeat(auto-fit, minmax(140px, 1fr))', gap: 'base' },
      // The Shipments page's own count for the period (the same rows its link lists).
      metric('Shipments', formatCount(analytics.shipments.count), 'shipments', shipmentsCountedNote),
      metric('Delivered', formatCount(total.delivered), 'delivered'),
      metric('Average transit', formatDays(total.avgTransitDays), 'avg-transit'),
      metric(
        'On time',
        formatRate(total.onTime.rate),
        'on-time',
        total.onTime.measured > 0
          ? `${formatCount(total.onTime.onTime)} of ${formatCount(total.onTime.measured)} with an estimate`
          : 'No delivery with an estimate yet',
      ),
      metric('Exceptions', formatCount(total.exceptions), 'exceptions'),
      metric('Failed attempts', formatCount(total.failedAttempts), 'failed-attempts'),
    );
    const byStatus = barChart({
      title: 'Shipments by status',
      rows: parcelGroups
        .filter((group) => (analytics.byStatus[group] ?? 0) > 0)
        .map((group) => ({
          label: parcelGroupLabels[group],
          value: analytics.byStatus[group] ?? 0,
          text: formatCount(analytics.byStatus[group] ?? 0),
          tone: parcelTones[parcelGroupStatusTones[group]],
        })),
    });
    const carriers = analytics.carriers;
    const transit = barChart({
      title: 'Average transit days by carrier',
      rows: carriers
        .filter((c) => c.avgTransitDays !== null)
        .map((c) => ({
          label: c.label,
          value: c.avgTransitDays ?? 0,
          text: formatDays(c.avgTransitDays),
          tone: 'info' as const,
        })),
    });
    const onTime = barChart({
      title: 'On-time rate by carrier',
      max: 1,
      rows: carriers
        .filter((c) => c.onTime.rate !== null)
        .map((c) => ({
          label: c.label,
          value: c.onTime.rate ?? 0,
          text: formatRate(c.onTime.rate),
          tone: 'success' as const,
        })),
    });
    return [
      metrics,
      h(
        's-grid',
        { gridTemplateColumns: 'repeat(auto-fit, minmax(280px, 1fr))', gap: 'large' },
        byStatus,
        transit,
        onTime,
      ),
      carrierTable(carriers),
    ];
  }

  function metric(label: string, value: string, key: string, detail?: string): HTMLElement {
    return h(
      's-box',
      { padding: 'small', border: 'base', borderRadius: 'base', data: { metric: key } },
      h(
        's-stack',
        { gap: 'none' },
        h('s-text', { color: 'subdued' }, label),
        h('span', { class: 'metric-value' }, value),
        detail ? h('s-text', { color: 'subdued' }, detail) : null,
      ),
    );
  }

  function carrierTable(carriers: CarrierAnalytics[]): HTMLElement {
    return h(
      's-table',
      { attrs: { 'aria-label': 'Deliveries by carrier' } },
      h(
        's-table-header-row',
        null,
        h('s-table-header', { listSlot: 'primary' }, 'Carrier'),
        h('s-table-header', { format: 'numeric', listSlot: 'labeled' }, 'Shipments'),
        h('s-table-header', { format: 'numeric', listSlot: 'labeled' }, 'Delivered'),
        h('s-table-header', { format: 'numeric', listSlot: 'labeled' }, 'Average transit'),
        h('s-table-header', { format: 'numeric', listSlot: 'labeled' }, '90th percentile'),
        h('s-table-header', { format: 'numeric', listSlot: 'labeled' }, 'On time'),
        h('s-table-header', { format: 'numeric', listSlot: 'labeled' }, 'Exceptions'),
        h('s-table-header', { format: 'numeric', listSlot: 'labeled' }, 'Failed attempts'),
      ),
      h(
        's-table-body',
        null,
        carriers.map((c) =>
          h(
            's-table-row',
            { data: { carrier: c.provider } },
            h('s-table-cell', null, c.label),
            h('s-table-cell', null, formatCount(c.shipments)),
            h('s-table-cell', null, formatCount(c.delivered)),
            h('s-table-cell', null, formatDays(c.avgTransitDays)),
            h('s-table-cell', null, formatDays(c.p90TransitDays)),
            h('s-table-cell', null, formatRate(c.onTime.rate)),
            h('s-table-cell', null, formatCount(c.exceptions)),
            h('s-table-cell', null, formatCount(c.failedAttempts)),
          ),
        ),
      ),
    );
  }

  // The guide and health come first and arrive together; analytics is drawn below them once they are
  // in (its data is asked for at once), so nothing already on screen is pushed down.
  const loading = h('s-section', null, h('s-spinner', { accessibilityLabel: 'Loading the overview' }));
  const element = h('s-page', { heading: 'Overview' }, loading);
  const analyticsLoaded = loadAnalytics();
  const ready = loadOverview().then(async () => {
    loading.replaceWith(setupArea, healthSection, trackingPageSection, analyticsSection);
    await analyticsLoaded;
  });
  return { element, ready };
};
