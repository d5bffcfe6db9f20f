import type { ShipmentDetail } from '../../api/shipment-detail.js';
import type { ShipmentListRow, ShipmentsList } from '../../api/shipments.js';
import {
  type ParcelGroup,
  parcelGroupLabels,
  parcelGroups,
  platformStatusWords,
  type SyncFilter,
  syncFilterLabels,
  syncFilters,
  shipmentsCountedNote,
} from '../../vocabulary.js';
import { api, apiFile } from '../api-client.js';
import { failureToast, loadFailure } from '../components/load-failure.js';
import { parcelActionLink } from '../components/parcel-action.js';
import { adminOrderUrl, toast } from '../app-bridge.js';
import { parcelBadge } from '../components/badges.js';
import { code, h, replace } from '../dom.js';
import { formatCount, formatDateTime, formatDay, plural } from '../format.js';
import type { PageModule } from '../page.js';
import { pageHref, type Params } from '../router.js';
import { disableForms } from '../session.js';

/**
 * Shipments: one row per parcel (a tracking number on a fulfilment), newest first, 50 a page. Filters by
 * the parcel's status, by sync problem and by date, a search by order, fulfilment or number; the counts
 * beside each filter come from the same query as the rows. Parcel status and sync state are separate
 * columns; a row that needs the merchant says what to do, with the action beside it.
 */

interface Filters {
  search: string;
  parcel: ParcelGroup | '';
  sync: SyncFilter | '';
  from: string;
  to: string;
  /** The list's position (opaque cursors from the API): the page after / before a row. */
  after: string;
  before: string;
  /** Which page this is, for "showing 51–100" only: paging is by cursor. */
  page: number;
  detail: string;
}

const cursorParam = (value: string | null) => (value && /^[A-Za-z0-9_-]{1,200}$/.test(value) ? value : '');

function readFilters(params: URLSearchParams): Filters {
  const parcel = params.get('parcel') ?? '';
  const sync = params.get('sync') ?? '';
  const page = Number.parseInt(params.get('page') ?? '1', 10);
  return {
    search: params.get('search') ?? '',
    parcel: (parcelGroups as readonly string[]).includes(parcel) ? (parcel as ParcelGroup) : '',
    sync: (syncFilters as readonly string[]).includes(sync) ? (sync as SyncFilter) : '',
    from: /^\d{4}-\d{2}-\d{2}$/.test(params.get('from') ?? '') ? params.get('from')! : '',
    to: /^\d{4}-\d{2}-\d{2}$/.test(params.get('to') ?? '') ? params.get('to')! : '',
    after: cursorParam(params.get('after')),
    before: cursorParam(params.get('before')),
    page: Number.isFinite(page) && page >= 1 ? page : 1,
    detail: params.get('detail') ?? '',
  };
}

/** The list's query (without the position for the CSV). */
function listQuery(filters: Filters, withPage: boolean): string {
  const query = new URLSearchParams();
  if (filters.search) query.set('search', filters.search);
  if (filters.parcel) query.set('parcel', filters.parcel);
  if (filters.sync) query.set('sync', filters.sync);
  if (filters.from) query.set('from', filters.from);
  if (filters.to) query.set('to', filters.to);
  if (withPage && filters.after) query.set('after', filters.after);
  else if (withPage && filters.before) query.set('before', filters.before);
  const text = query.toString();
  return text ? `?${text}` : '';
}

const hasFilters = (f: Filters) => Boolean(f.search || f.parcel || f.sync || f.from || f.to);

export const shipmentsPage: PageModule = (context) => {
  let filters = readFilters(context.params);
  let loading: AbortController | null = null;

  const record = () => {
    const params: Params = {
      ...filters,
      after: filters.after || null,
      before: filters.before || null,
      page: filters.page > 1 ? filters.page : null,
    };
    context.setParams(params);
  };

  /* ---------------------------------------------------------------- filters */

  const search = h('s-search-field', {
    label: 'Search shipments',
    labelAccessibilityVisibility: 'exclusive',
    placeholder: 'Order, fulfilment or tracking number',
    value: filters.search,
  });
  const parcel = h('s-select', { label: 'Parcel status' });
  const sync = h('s-select', { label: 'Sync' });
  const from = h('s-date-field', { label: 'Fulfilled from', value: filters.from });
  const to = h('s-date-field', { label: 'Fulfilled to', value: filters.to });
  const clear = h(
    's-button',
    {
      variant: 'tertiary',
      on: { click: () => apply({ search: '', parcel: '', sync: '', from: '', to: '' }) },
    },
    'Clear filters',
  );

  let searchTimer = 0;
  search.addEventListener('input', () => {
    window.clearTimeout(searchTimer);
    searchTimer = window.setTimeout(() => apply({ search: search.value.trim() }), 300);
  });
  search.addEventListener('change', () => {
    window.clearTimeout(searchTimer);
    apply({ search: search.value.trim() });
  });
  parcel.addEventListener('change', () => apply({ parcel: parcel.value as Filters['parcel'] }));
  sync.addEventListener('change', () => apply({ sync: sync.value as Filters['sync'] }));
  from.addEventListener('change', () => apply({ from: from.value }));
  to.addEventListener('change', () => apply({ to: to.value }));

  function apply(change: Partial<Filters>): void {
    // A new filter starts from the top; only paging moves the position.
    const next = {
      ...filters,
      ...change,
      after: change.after ?? '',
      before: change.before ?? '',
      page: change.page ?? 1,
      detail: change.detail ?? filters.detail,
    };
    if (JSON.stringify(next) === JSON.stringify(filters)) return;
    filters = next;
    if ('search' in change) search.value = filters.search;
    if ('from' in change) from.value = filters.from;
    if ('to' in change) to.value = filters.to;
    record();
    void load();
  }

  const filterBar = h(
    's-grid',
    {
      gridTemplateColumns: 'repeat(auto-fit, minmax(150px, 1fr))',
      gap: 'small-200',
      alignItems: 'end',
      padding: 'base',
    },
    h('s-grid-item', { class: 'search-cell' }, search),
    parcel,
    sync,
    from,
    to,
  );

  /* ---------------------------------------------------------------- list */

  const summary = h('s-paragraph', { color: 'subdued', attrs: { 'aria-live': 'polite' } });
  const listArea = h(
    'div',
    { class: 'shipments-list' },
    h('s-spinner', { accessibilityLabel: 'Loading shipments' }),
  );
  const detailArea = h('div', { class: 'shipment-detail' });
  const exportButton = h(
    's-button',
    {
      slot: 'primary-action',
      variant: 'primary',
      data: { needsSession: '' },
      on: { click: () => void exportCsv() },
    },
    'Export CSV',
  );

  function drawFilterOptions(list: ShipmentsList): void {
    replace(
      parcel,
      h('s-option', { value: '', selected: filters.parcel === '' }, 'All statuses'),
      parcelGroups.map((group) =>
        h(
          's-option',
          { value: group, selected: filters.parcel === group },
          `${parcelGroupLabels[group]} (${formatCount(list.counts.parcel[group] ?? 0)})`,
        ),
      ),
    );
    replace(
      sync,
      h('s-option', { value: '', selected: filters.sync === '' }, 'Any sync state'),
      syncFilters.map((state) =>
        h(
          's-option',
          { value: state, selected: filters.sync === state },
          `${syncFilterLabels[state]} (${formatCount(list.counts.sync[state] ?? 0)})`,
        ),
      ),
    );
    parcel.value = filters.parcel;
    sync.value = filters.sync;
  }

  async function load(): Promise<void> {
    loading?.abort();
    const mine = new AbortController();
    loading = mine;
    listArea.setAttribute('aria-busy', 'true');
    try {
      const list = await api<ShipmentsList>('GET', `/shipments${listQuery(filters, true)}`);
      if (mine.signal.aborted) return;
      drawFilterOptions(list);
      drawList(list);
    } catch (error) {
      if (mine.signal.aborted) return;
      replace(listArea, loadFailure('Shipments could not be loaded', error));
    } finally {
      if (loading === mine) listArea.removeAttribute('aria-busy');
    }
  }

  function drawList(list: ShipmentsList): void {
    // Back at the top (no newer rows), whatever page number the address said.
    if (list.previousCursor === null) filters.page = 1;
    const first = (filters.page - 1) * 50 + 1;
    const last = first + list.rows.length - 1;
    summary.textContent =
      list.total === 0
        ? ''
        : `${plural(list.total, 'shipment')}${hasFilters(filters) ? (list.total === 1 ? ' matches' : ' match') : ''} · showing ${formatCount(first)}–${formatCount(last)} · ${shipmentsCountedNote}`;
    clear.hidden = !hasFilters(filters);
    if (list.rows.length === 0) {
      replace(
        listArea,
        hasFilters(filters)
          ? h(
              's-empty-state',
              { heading: 'No shipments match these filters' },
              h('s-paragraph', null, 'Change or clear the filters to see more.'),
            )
          : h(
              's-empty-state',
              { heading: 'No shipments yet' },
              h(
                's-paragraph',
                null,
                'A tracker is created for every fulfilment with a tracking number. Import recent fulfilments from ',
                h('s-link', { href: pageHref('activity') }, 'Activity'),
                '.',
              ),
            ),
      );
      return;
    }
    const table = h(
      's-table',
      {
        paginate: list.nextCursor !== null || list.previousCursor !== null,
        hasPreviousPage: list.previousCursor !== null,
        hasNextPage: list.nextCursor !== null,
        on: {
          previouspage: () =>
            list.previousCursor &&
            apply({ before: list.previousCursor, page: Math.max(1, filters.page - 1) }),
          nextpage: () => list.nextCursor && apply({ after: list.nextCursor, page: filters.page + 1 }),
        },
      },
      h(
        's-table-header-row',
        null,
        h('s-table-header', { listSlot: 'primary' }, 'Order'),
        h('s-table-header', { listSlot: 'secondary' }, 'Tracking number'),
        h('s-table-header', { listSlot: 'labeled' }, 'Parcel status'),
        h('s-table-header', { listSlot: 'labeled' }, 'Sync'),
        h('s-table-header', { listSlot: 'labeled' }, 'Estimated delivery'),
      ),
      h('s-table-body', null, list.rows.map(shipmentRow)),
    );
    replace(listArea, table);
    disableForms(listArea);
  }

  function shipmentRow(row: ShipmentListRow): HTMLElement {
    const carrier = row.providerLabel ?? row.carrierName ?? row.provider;
    return h(
      's-table-row',
      { data: { key: row.key, number: row.trackingNumber } },
      h(
        's-table-cell',
        null,
        h(
          's-stack',
          { gap: 'none' },
          h(
            's-link',
            { href: adminOrderUrl(row.orderId), target: '_top' },
            row.orderName ?? `Order ${row.orderId}`,
          ),
          row.fulfillmentName ? h('s-text', { color: 'subdued' }, `Fulfilment ${row.fulfillmentName}`) : null,
        ),
      ),
      h(
        's-table-cell',
        null,
        h(
          's-stack',
          { gap: 'none' },
          row.trackingUrl
            ? h(
                's-link',
                {
                  href: row.trackingUrl,
                  target: '_blank',
                  accessibilityLabel: `Track ${row.trackingNumber} on the carrier's site`,
                },
                row.trackingNumber,
              )
            : code(row.trackingNumber),
          carrier ? h('s-text', { color: 'subdued' }, carrier) : null,
        ),
      ),
      h('s-table-cell', null, parcelCell(row)),
      h('s-table-cell', null, syncCell(row)),
      h('s-table-cell', null, formatDay(row.estimatedDelivery)),
    );
  }

  function parcelCell(row: ShipmentListRow): HTMLElement {
    const event = row.lastEvent;
    const eventText = event
      ? [event.message, event.location, event.at ? formatDateTime(event.at) : null]
          .filter(Boolean)
          .join(' · ')
      : null;
    return h(
      's-stack',
      { gap: 'small-400' },
      h('s-box', null, parcelBadge(row.parcel)),
      eventText ? h('s-text', { color: 'subdued' }, eventText) : null,
      row.parcel.advice ? h('s-text', { color: 'subdued' }, row.parcel.advice) : null,
      parcelActionLink(row.parcel.action),
      row.trackerId
        ? h(
            's-button',
            {
              variant: 'tertiary',
              accessibilityLabel: `Timeline of ${row.trackingNumber}`,
              on: { click: () => void openDetail(row.trackerId!) },
            },
            'Timeline',
          )
        : null,
    );
  }

  function syncCell(row: ShipmentListRow): HTMLElement {
    const sync = row.sync;
    const action =
      sync.state === 'waiting_carrier'
        ? h('s-link', { href: pageHref('settings', { section: 'carriers' }) }, 'Map carrier')
        : sync.state === 'failed' && row.trackerId
          ? h(
              's-button',
              { data: { needsSession: '' }, on: { click: (event) => void retry(row, event) } },
              'Retry',
            )
          : null;
    return h(
      's-stack',
      { gap: 'small-400' },
      h(
        's-text',
        { tone: sync.problem ? 'critical' : undefined, type: sync.problem ? 'strong' : undefined },
        sync.label,
      ),
      sync.action ? h('s-text', { color: 'subdued' }, sync.action) : null,
      action,
    );
  }

  async function retry(row: ShipmentListRow, event: Event): Promise<void> {
    const button = event.currentTarget as HTMLElementTagNameMap['s-button'];
    button.loading = true;
    try {
      await api('POST', '/failed/retry', { trackerIds: [row.trackerId] });
      toast(`Retrying ${row.trackingNumber}`);
      await load();
    } catch (error) {
      failureToast(error);
    } finally {
      button.loading = false;
    }
  }

  async function exportCsv(): Promise<void> {
    exportButton.loading = true;
    try {
      const { blob, filename } = await apiFile(`/shipments.csv${listQuery(filters, false)}`);
      const url = URL.createObjectURL(blob);
      const link = h('a', { href: url, download: filename, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
      toast('Shipments exported');
    } catch (error) {
      failureToast(error);
    } finally {
      exportButton.loading = false;
    }
  }

  /* ---------------------------------------------------------------- timeline */

  async function openDetail(trackerId: string): Promise<void> {
    filters = { ...filters, detail: trackerId };
    record();
    replace(
      detailArea,
      h('s-section', { heading: 'Timeline' }, h('s-spinner', { accessibilityLabel: 'Loading' })),
    );
    detailArea.scrollIntoView({ block: 'start' });
    try {
      const detail = await api<ShipmentDetail>('GET', `/shipments/${encodeURIComponent(trackerId)}`);
      if (filters.detail !== trackerId) return;
      replace(detailArea, timeline(detail));
      // What the service said may be newer than the list: the list is read again from what was stored.
      void load();
    } catch (error) {
      replace(detailArea, loadFailure('The timeline could not be loaded', error));
    }
  }

  function closeDetail(): void {
    filters = { ...filters, detail: '' };
    record();
    replace(detailArea);
  }

  function timeline(detail: ShipmentDetail): HTMLElement {
    const tracker = detail.tracker;
    const events = detail.shipment?.events ?? [];
    const stored = detail.stored;
    // Newest first: what the service said just now, else what was last stored.
    const shown =
      events.length > 0
        ? [...events].reverse().map((e) => ({ ...e, at: e.datetime }))
        : [...(stored?.events ?? [])].reverse();
    return h(
      's-section',
      { heading: `Timeline of ${tracker.trackingNumber}` },
      h(
        's-button',
        { slot: 'primary-action', variant: 'tertiary', on: { click: closeDetail } },
        'Close timeline',
      ),
      detail.error
        ? h(
            's-banner',
            { tone: 'warning', heading: 'The tracking service could not be read just now' },
            `${detail.error.message} Showing what was last stored.`,
          )
        : null,
      h(
        's-paragraph',
        null,
        `${tracker.orderName ?? `Order ${tracker.orderId}`} · ${tracker.provider}`,
        detail.shipment?.estimatedDeliveryDate
          ? ` · Estimated delivery ${formatDay(detail.shipment.estimatedDeliveryDate)}`
          : '',
      ),
      shown.length === 0
        ? h('s-paragraph', { color: 'subdued' }, 'No scan yet.')
        : h(
            's-table',
            null,
            h(
              's-table-header-row',
              null,
              h('s-table-header', { listSlot: 'primary' }, 'Event'),
              h('s-table-header', { listSlot: 'secondary' }, 'When'),
              h('s-table-header', { listSlot: 'labeled' }, 'Where'),
            ),
            h(
              's-table-body',
              null,
              shown.map((event) =>
                h(
                  's-table-row',
                  null,
                  h('s-table-cell', null, event.message || event.status),
                  h('s-table-cell', null, formatDateTime(event.at)),
                  h('s-table-cell', null, event.location ?? '—'),
                ),
              ),
            ),
          ),
      detail.storeEvents.length > 0
        ? h(
            's-stack',
            { gap: 'small-400' },
            h('s-heading', null, 'Written to the order in your store'),
            h(
              's-unordered-list',
              null,
              detail.storeEvents.map((e) =>
                h(
                  's-list-item',
                  null,
                  `${platformStatusWords(e.status)} · ${formatDateTime(e.happenedAt)} · `,
                  e.state === 'sent'
                    ? 'written'
                    : e.state === 'failed'
                      ? `refused by the store${e.error ? `: ${e.error}` : ''}`
                      : e.state === 'skipped'
                        ? 'not written (updates were switched off)'
                        : e.state === 'superseded'
                          ? 'not written: a newer status replaced it (too many updates at once)'
                          : 'waiting to be written',
                ),
              ),
            ),
          )
        : null,
    );
  }

  const element = h(
    's-page',
    { heading: 'Shipments' },
    exportButton,
    detailArea,
    h(
      's-section',
      { padding: 'none', accessibilityLabel: 'Shipments' },
      filterBar,
      h(
        's-box',
        { paddingInline: 'base' },
        h('s-stack', { direction: 'inline', gap: 'small-200', alignItems: 'center' }, summary, clear),
      ),
      listArea,
    ),
  );
  clear.hidden = !hasFilters(filters);
  const ready = load();
  if (filters.detail) void openDetail(filters.detail);
  return { element, ready };
};
