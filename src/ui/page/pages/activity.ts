import type { BackfillView } from '../../api/backfill.js';
import type { FailedDeliveryView, FailedTrackerView, ShopFailedWork } from '../../api/failed-work.js';
import type { RefusedWrite, RefusedWrites } from '../../api/refused-writes.js';
import { describeFailure, platformStatusWords, topicWords } from '../../vocabulary.js';
import { api } from '../api-client.js';
import { toast } from '../app-bridge.js';
import { failureToast, loadFailure } from '../components/load-failure.js';
import { code, h, replace } from '../dom.js';
import { formatCount, formatDateTime, plural } from '../format.js';
import type { PageModule } from '../page.js';
import { pageHref } from '../router.js';
import { disableForms } from '../session.js';

/**
 * Activity: what went wrong and what to do about it. Failures (trackers the service refused, store
 * updates that could not be applied), tracking updates the store refused, and importing past fulfilments
 * (backfill). Each section's count is the number of rows it lists, over all its pages; the failures and
 * refused updates come 50 at a time, with "Load more" below. Shipments late or in trouble are the Needs
 * attention page's (pages/attention.ts).
 */

/** Longest backfill the app accepts (src/jobs/backfill.ts BACKFILL_MAX_DAYS). */
const backfillMaxDays = 365;
const backfillPollMs = 2000;

/** JSON turns the API's dates into text. */
type Json<T> = {
  [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K];
};
type FailedTracker = Json<FailedTrackerView>;
type FailedDelivery = Json<FailedDeliveryView>;
type FailedWork = Omit<ShopFailedWork, 'trackers' | 'deliveries'> & {
  trackers: FailedTracker[];
  deliveries: FailedDelivery[];
};

export const activityPage: PageModule = (context) => {
  const failuresSection = h('s-section', { heading: 'Failures' }, spinner('failures'));
  const writesSection = h(
    's-section',
    { heading: 'Tracking updates refused by your store' },
    spinner('updates'),
  );
  const backfillSection = h('s-section', { heading: 'Import past fulfilments' }, spinner('backfill'));
  backfillSection.id = 'backfill';

  /* ---------------------------------------------------------------- failures */

  async function loadFailures(): Promise<void> {
    try {
      drawFailures(await api<FailedWork>('GET', '/failed'));
    } catch (error) {
      replace(failuresSection, loadFailure('Failures could not be loaded', error));
    }
  }

  /**
   * "Load more" below a list: asks for the page after `next` and adds its rows to `body`; gone on the
   * last page.
   */
  function loadMore<T>(
    label: string,
    path: string,
    next: string | null,
    body: HTMLElement,
    rowsOf: (answer: Record<string, unknown>) => { rows: T[]; next: string | null },
    row: (item: T) => HTMLElement,
  ): HTMLElement | null {
    if (!next) return null;
    const button = h(
      's-button',
      {
        variant: 'tertiary',
        on: {
          click: () => {
            button.loading = true;
            void api<Record<string, unknown>>('GET', `${path}?${new URLSearchParams({ after: next })}`)
              .then((answer) => {
                const page = rowsOf(answer);
                body.append(...page.rows.map(row));
                disableForms(body);
                button.replaceWith(loadMore(label, path, page.next, body, rowsOf, row) ?? '');
              })
              .catch((error: unknown) => {
                button.loading = false;
                failureToast(error);
              });
          },
        },
      },
      label,
    );
    return button;
  }

  function drawFailures(failed: FailedWork): void {
    const total = failed.counts.trackers + failed.counts.deliveries;
    failuresSection.heading = total === 0 ? 'Failures' : `Failures (${formatCount(total)})`;
    if (total === 0) {
      replace(
        failuresSection,
        h('s-paragraph', null, 'Nothing failed: every tracker and store update went through.'),
      );
      return;
    }
    const retryAll = h(
      's-button',
      {
        slot: 'primary-action',
        data: { needsSession: '' },
        on: { click: () => void retry({}, retryAll, `${plural(total, 'failed item')}`) },
      },
      'Retry all',
    );
    const trackersBody = h('s-table-body', null, failed.trackers.map(trackerRow));
    const deliveriesBody = h('s-table-body', null, failed.deliveries.map(deliveryRow));
    replace(
      failuresSection,
      retryAll,
      failed.trackers.length > 0
        ? h(
            's-table',
            { attrs: { 'aria-label': 'Trackers that failed' } },
            h(
              's-table-header-row',
              null,
              h('s-table-header', { listSlot: 'primary' }, 'Shipment'),
              h('s-table-header', { listSlot: 'labeled' }, 'What happened'),
              h('s-table-header', { listSlot: 'labeled' }, 'What to do'),
              h('s-table-header', { listSlot: 'inline' }, ''),
            ),
            trackersBody,
          )
        : null,
      loadMore(
        'Load more failed trackers',
        '/failed/trackers',
        failed.next.trackers,
        trackersBody,
        (answer) => ({ rows: answer.trackers as FailedTracker[], next: answer.next as string | null }),
        trackerRow,
      ),
      failed.deliveries.length > 0
        ? h(
            's-table',
            { attrs: { 'aria-label': 'Store updates that could not be applied' } },
            h(
              's-table-header-row',
              null,
              h('s-table-header', { listSlot: 'primary' }, 'Store update'),
              h('s-table-header', { listSlot: 'labeled' }, 'What happened'),
              h('s-table-header', { listSlot: 'labeled' }, 'Received'),
              h('s-table-header', { listSlot: 'inline' }, ''),
            ),
            deliveriesBody,
          )
        : null,
      loadMore(
        'Load more store updates',
        '/failed/deliveries',
        failed.next.deliveries,
        deliveriesBody,
        (answer) => ({ rows: answer.deliveries as FailedDelivery[], next: answer.next as string | null }),
        deliveryRow,
      ),
    );
    disableForms(failuresSection);
  }

  function trackerRow(tracker: FailedTracker): HTMLElement {
    const failure = describeFailure(tracker.reason, tracker.message);
    const mapCarrier = tracker.reason === 'provider_not_found';
    const retryButton = h(
      's-button',
      {
        data: { needsSession: '' },
        accessibilityLabel: `Retry ${tracker.trackingNumber}`,
        on: { click: () => void retry({ trackerIds: [tracker.id] }, retryButton, tracker.trackingNumber) },
      },
      'Retry',
    );
    return h(
      's-table-row',
      { data: { tracker: tracker.id } },
      h(
        's-table-cell',
        null,
        h(
          's-stack',
          { gap: 'none' },
          code(tracker.trackingNumber),
          h(
            's-text',
            { color: 'subdued' },
            [tracker.orderName, tracker.provider].filter(Boolean).join(' · '),
          ),
        ),
      ),
      h('s-table-cell', null, failure.what),
      h('s-table-cell', null, failure.todo),
      h(
        's-table-cell',
        null,
        mapCarrier
          ? h('s-link', { href: pageHref('settings', { section: 'carriers' }) }, 'Map carrier')
          : retryButton,
      ),
    );
  }

  function deliveryRow(delivery: FailedDelivery): HTMLElement {
    const retryButton = h(
      's-button',
      {
        data: { needsSession: '' },
        accessibilityLabel: `Retry the ${delivery.topic} update`,
        on: { click: () => void retry({ deliveryIds: [delivery.id] }, retryButton, 'the store update') },
      },
      'Retry',
    );
    return h(
      's-table-row',
      { data: { delivery: delivery.id } },
      h('s-table-cell', null, topicWords(delivery.topic)),
      h('s-table-cell', null, delivery.error ?? 'It could not be applied.'),
      h('s-table-cell', null, formatDateTime(delivery.receivedAt)),
      h('s-table-cell', null, retryButton),
    );
  }

  async function retry(
    body: { trackerIds?: string[]; deliveryIds?: string[] },
    button: HTMLElementTagNameMap['s-button'],
    what: string,
  ): Promise<void> {
    button.loading = true;
    try {
      const answer = await api<{ retriedTrackers: number; retriedDeliveries: number }>(
        'POST',
        '/failed/retry',
        body,
      );
      const n = answer.retriedTrackers + answer.retriedDeliveries;
      toast(n === 0 ? 'Nothing left to retry' : `Retrying ${what}`);
      await loadFailures();
    } catch (error) {
      failureToast(error);
    } finally {
      button.loading = false;
    }
  }

  /* ---------------------------------------------------------------- refused store writes */

  async function loadWrites(): Promise<void> {
    try {
      drawWrites(await api<RefusedWrites>('GET', '/store-writes/refused'));
    } catch (error) {
      replace(writesSection, loadFailure('Refused updates could not be loaded', error));
    }
  }

  function drawWrites(writes: RefusedWrites): void {
    writesSection.heading =
      writes.failed === 0
        ? 'Tracking updates refused by your store'
        : `Tracking updates refused by your store (${formatCount(writes.failed)})`;
    // Said whether or not some were refused before it was switched off.
    const switchedOff = writes.postFulfillmentEvents
      ? null
      : h(
          's-paragraph',
          { data: { testid: 'writes-switched-off' } },
          'Writing tracking updates to your orders is switched off. ',
          h('s-link', { href: pageHref('settings') }, 'Change it in Settings'),
          '.',
        );
    if (switchedOff && writes.failed === 0) {
      replace(writesSection, switchedOff);
      return;
    }
    if (writes.failed === 0) {
      replace(
        writesSection,
        h('s-paragraph', null, 'Every tracking update so far was written to your store.'),
      );
      return;
    }
    const body = h('s-table-body', null, writes.writes.map(writeRow));
    replace(
      writesSection,
      switchedOff,
      h(
        's-paragraph',
        null,
        `Your store refused ${plural(writes.failed, 'tracking update')}; they are tried again with a growing wait. The newest are listed first.`,
      ),
      h(
        's-table',
        { attrs: { 'aria-label': 'Refused tracking updates' } },
        h(
          's-table-header-row',
          null,
          h('s-table-header', { listSlot: 'primary' }, 'Order'),
          h('s-table-header', { listSlot: 'labeled' }, 'Update'),
          h('s-table-header', { listSlot: 'labeled' }, 'Why'),
          h('s-table-header', { listSlot: 'labeled', format: 'numeric' }, 'Attempts'),
        ),
        body,
      ),
      loadMore(
        'Load more refused updates',
        '/store-writes/refused',
        writes.next,
        body,
        (answer) => ({ rows: answer.writes as RefusedWrite[], next: answer.next as string | null }),
        writeRow,
      ),
    );
  }

  function writeRow(w: RefusedWrite): HTMLElement {
    return h(
      's-table-row',
      { data: { write: w.id } },
      h(
        's-table-cell',
        null,
        h(
          's-stack',
          { gap: 'none' },
          w.orderName ?? 'Order',
          w.trackingNumber ? h('s-text', { color: 'subdued' }, w.trackingNumber) : null,
        ),
      ),
      h('s-table-cell', null, `${platformStatusWords(w.status)} · ${formatDateTime(w.happenedAt)}`),
      h('s-table-cell', null, w.error ?? 'Refused by the store.'),
      h('s-table-cell', null, formatCount(w.attempts)),
    );
  }

  /* ---------------------------------------------------------------- backfill */

  const days = h('s-number-field', {
    label: 'Days back',
    details: `Fulfilments of orders created in the last 1 to ${backfillMaxDays} days get trackers, as new ones do.`,
    min: 1,
    max: backfillMaxDays,
    step: 1,
    value: '30',
  });
  const start = h('s-button', { type: 'submit', variant: 'primary' }, 'Import');
  const backfillStatus = h('div', { class: 'backfill-status', attrs: { 'aria-live': 'polite' } });
  const backfillForm = h(
    'form',
    {
      attrs: { novalidate: '' },
      on: {
        submit: (event: Event) => {
          event.preventDefault();
          void startBackfill();
        },
      },
    },
    days,
    h('s-box', null, start),
  );
  let backfillTimer = 0;

  async function loadBackfill(): Promise<void> {
    window.clearTimeout(backfillTimer);
    try {
      const answer = await api<{ job: BackfillView | null }>('GET', '/backfill');
      drawBackfill(answer.job);
      // Polled while it runs, and only while this page is shown.
      if (answer.job?.state === 'running' && element.isConnected) {
        backfillTimer = window.setTimeout(() => void loadBackfill(), backfillPollMs);
      }
    } catch (error) {
      replace(backfillStatus, loadFailure('The import could not be loaded', error));
    }
  }

  function drawBackfill(job: BackfillView | null): void {
    start.disabled = job?.state === 'running';
    if (!job) {
      replace(
        backfillStatus,
        h('s-paragraph', { color: 'subdued' }, 'No import has run for this store yet.'),
      );
      return;
    }
    const counts = `${plural(job.pagesDone, 'page')} of orders read, ${plural(job.fulfillmentsSeen, 'fulfilment')} seen, ${plural(job.trackersWanted, 'tracking number')} to track.`;
    if (job.state === 'running') {
      replace(
        backfillStatus,
        h('s-progress', { accessibilityLabel: `Importing the last ${job.days} days` }),
        h(
          's-paragraph',
          { data: { state: 'running' } },
          `Importing the last ${plural(job.days, 'day')}: ${counts}`,
        ),
      );
    } else if (job.state === 'done') {
      replace(
        backfillStatus,
        h('s-banner', { tone: 'success', heading: `Imported the last ${plural(job.days, 'day')}` }, counts),
      );
    } else {
      replace(
        backfillStatus,
        h(
          's-banner',
          { tone: 'critical', heading: 'The import stopped' },
          `${job.error ?? 'Unknown reason'}. ${counts} Import again to resume where it stopped.`,
        ),
      );
    }
  }

  async function startBackfill(): Promise<void> {
    const n = Number(days.value);
    days.error = '';
    if (!Number.isInteger(n) || n < 1 || n > backfillMaxDays) {
      days.error = `Enter a whole number of days from 1 to ${backfillMaxDays}.`;
      return;
    }
    start.loading = true;
    try {
      const answer = await api<{ job: BackfillView | null }>('POST', '/backfill', { days: n });
      toast(`Importing the last ${plural(n, 'day')}`);
      drawBackfill(answer.job);
      await loadBackfill();
    } catch (error) {
      failureToast(error);
    } finally {
      start.loading = false;
    }
  }

  // Sections appear top to bottom as their data arrives (all asked for at once).
  const element = h('s-page', { heading: 'Activity' }, failuresSection);
  const writesLoaded = loadWrites();
  const backfillLoaded = loadBackfill();
  const ready = loadFailures().then(async () => {
    await writesLoaded;
    element.append(writesSection);
    await backfillLoaded;
    replace(backfillSection, backfillForm, backfillStatus);
    element.append(backfillSection);
    disableForms(backfillSection);
    if (context.params.get('section') === 'backfill') backfillSection.scrollIntoView({ block: 'start' });
  });
  return { element, ready };
};

function spinner(what: string): HTMLElement {
  return h('s-spinner', { accessibilityLabel: `Loading ${what}` });
}
