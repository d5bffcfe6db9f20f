import type { ProblemRow, ProblemsPage } from '../../api/problems.js';
import { problemKindLabels } from '../../vocabulary.js';
import { api, ApiError } from '../api-client.js';
import { adminOrderUrl, toast } from '../app-bridge.js';
import { parcelBadge } from '../components/badges.js';
import { failureToast, loadFailure } from '../components/load-failure.js';
import { parcelActionLink } from '../components/parcel-action.js';
import { h, replace } from '../dom.js';
import { dayFromToday, daysAgo, formatCount, formatDate, formatDay } from '../format.js';
import type { PageModule } from '../page.js';
import { pageHref } from '../router.js';
import { disableForms } from '../session.js';

/**
 * Needs attention: the shop's open shipment problems (src/ui/api/problems.ts), oldest first, 50 at a
 * time with "Load more". A chip per kind, with its count, filters the list; each row says what happened,
 * since when, which order and parcel, where the parcel stands now and what to do, with Handled (and an
 * optional note) and Snooze (until a day) beside it. A row acted on leaves the list and the counts follow.
 */

type Kind = ProblemRow['kind'];

/** How many days ahead Snooze proposes. */
const snoozeDefaultDays = 3;
/** The furthest a snooze goes (the API refuses more than a year ahead: src/ui/api/problems.ts). */
const snoozeMaxDays = 365;
/** The longest note the API keeps (src/ui/api/problems.ts handledBody). */
const noteMaxLength = 500;

const kindOf = (value: string | null): Kind | '' =>
  value !== null && Object.hasOwn(problemKindLabels, value) ? (value as Kind) : '';

export const attentionPage: PageModule = (context) => {
  let kind = kindOf(context.params.get('kind'));
  let counts: Record<Kind, number> | null = null;
  let total = 0;
  let nextCursor: string | null = null;
  /** Bumped by every new list (another kind): an answer for an older one is dropped. */
  let generation = 0;

  const chips = h('s-stack', {
    direction: 'inline',
    gap: 'small-200',
    attrs: { role: 'group', 'aria-label': 'Show one kind of problem' },
  });
  const summary = h('s-paragraph', { color: 'subdued', attrs: { 'aria-live': 'polite' } });
  const body = h('s-table-body');
  const table = h(
    's-table',
    { attrs: { 'aria-label': 'Shipment problems' } },
    h(
      's-table-header-row',
      null,
      h('s-table-header', { listSlot: 'primary' }, 'What happened'),
      h('s-table-header', { listSlot: 'labeled' }, 'Since'),
      h('s-table-header', { listSlot: 'labeled' }, 'Shipment'),
      h('s-table-header', { listSlot: 'labeled' }, 'Parcel status'),
      h('s-table-header', { listSlot: 'labeled' }, 'What to do'),
    ),
    body,
  );
  const more = h('div', { class: 'problems-more' });
  const listArea = h(
    'div',
    { class: 'problems-list' },
    h('s-spinner', { accessibilityLabel: 'Loading problems' }),
  );

  /** The rows now listed (rows acted on have left). */
  const listed = () => body.querySelectorAll(':scope > s-table-row').length;
  /** How many problems the chosen filter has in all (every page). */
  const inFilter = () => (counts && kind ? (counts[kind] ?? 0) : total);

  /* ---------------------------------------------------------------- the filter and the summary */

  function choose(value: Kind | ''): void {
    if (value === kind) return;
    kind = value;
    context.setParams({ kind: kind || null });
    void load();
  }

  function drawChips(): void {
    if (!counts) return;
    const current = counts;
    // Nothing open at all: nothing to choose between (the empty state says so).
    if (total === 0 && !kind) {
      replace(chips);
      return;
    }
    const kinds = (Object.keys(current) as Kind[]).filter(
      (k) => k in problemKindLabels && (current[k] > 0 || k === kind),
    );
    const chip = (value: Kind | '', label: string, count: number) =>
      h(
        's-clickable-chip',
        {
          color: value === kind ? 'strong' : 'base',
          data: { kind: value || 'all' },
          on: { click: () => choose(value) },
        },
        `${label} (${formatCount(count)})`,
      );
    replace(
      chips,
      chip('', 'All', total),
      kinds.map((k) => chip(k, problemKindLabels[k], current[k])),
    );
  }

  function drawSummary(): void {
    const n = inFilter();
    const shown = listed();
    summary.textContent =
      n === 0 || shown === 0
        ? ''
        : `Showing ${formatCount(shown)} of ${formatCount(n)} ${n === 1 ? 'problem' : 'problems'}, oldest first.`;
  }

  function drawMore(): void {
    if (!nextCursor) {
      replace(more);
      return;
    }
    const button = h(
      's-button',
      { variant: 'secondary', on: { click: () => void loadMore(button) } },
      'Load more problems',
    );
    replace(more, button);
  }

  /** Nothing (left) to list: nothing at all, or nothing of the chosen kind. */
  function drawEmpty(): void {
    replace(
      listArea,
      total === 0
        ? h(
            's-empty-state',
            { heading: 'Nothing needs attention' },
            h(
              's-paragraph',
              null,
              'No shipment is stuck, late or in trouble. A problem shows up here as soon as a parcel needs you.',
            ),
          )
        : h(
            's-empty-state',
            { heading: 'No problems of this kind' },
            h('s-paragraph', null, 'The other kinds still need attention.'),
            h(
              's-button',
              { slot: 'primary-action', on: { click: () => choose('') } },
              `Show all ${formatCount(total)}`,
            ),
          ),
    );
  }

  /* ---------------------------------------------------------------- the list */

  const query = (after?: string) => {
    const params = new URLSearchParams();
    if (kind) params.set('kind', kind);
    if (after) params.set('after', after);
    const text = params.toString();
    return `/problems${text ? `?${text}` : ''}`;
  };

  function take(answer: ProblemsPage): void {
    counts = answer.counts;
    total = answer.total;
    nextCursor = answer.nextCursor;
  }

  async function load(): Promise<void> {
    const mine = ++generation;
    listArea.setAttribute('aria-busy', 'true');
    try {
      const answer = await api<ProblemsPage>('GET', query());
      if (mine !== generation) return;
      take(answer);
      replace(body, answer.problems.map(problemRow));
      drawChips();
      drawList();
    } catch (error) {
      if (mine !== generation) return;
      summary.textContent = '';
      replace(listArea, loadFailure('Problems could not be loaded', error));
    } finally {
      if (mine === generation) listArea.removeAttribute('aria-busy');
    }
  }

  /** The list as it stands: the table and "Load more", or what to say when it is empty. */
  function drawList(): void {
    drawSummary();
    drawMore();
    if (listed() === 0) drawEmpty();
    else if (table.parentElement !== listArea) replace(listArea, table, more);
    disableForms(listArea);
  }

  async function loadMore(button: HTMLElementTagNameMap['s-button']): Promise<void> {
    const mine = generation;
    button.loading = true;
    try {
      const answer = await api<ProblemsPage>('GET', query(nextCursor ?? undefined));
      if (mine !== generation) return;
      take(answer);
      const shown = new Set([...body.children].map((row) => (row as HTMLElement).dataset.problem));
      body.append(...answer.problems.filter((p) => !shown.has(p.id)).map(problemRow));
      drawChips();
      drawList();
    } catch (error) {
      button.loading = false;
      failureToast(error);
    }
  }

  /* ---------------------------------------------------------------- a row and its actions */

  function problemRow(problem: ProblemRow): HTMLElement {
    const shipment = problem.shipment;
    const what = `${problem.label}, ${shipment.trackingNumber}`;
    const actions = h('div', { class: 'problem-actions' });
    const row = h(
      's-table-row',
      { data: { problem: problem.id, kind: problem.kind } },
      h(
        's-table-cell',
        null,
        h(
          's-stack',
          { gap: 'small-400' },
          h('s-text', { type: 'strong' }, problem.label),
          problem.detail ? h('s-text', { color: 'subdued' }, problem.detail) : null,
        ),
      ),
      h(
        's-table-cell',
        null,
        h(
          's-stack',
          { gap: 'none' },
          h('s-text', { class: 'problem-unbroken' }, formatDate(problem.since)),
          h('s-text', { color: 'subdued', class: 'problem-unbroken' }, daysAgo(problem.since)),
        ),
      ),
      h(
        's-table-cell',
        null,
        h(
          's-stack',
          { gap: 'none' },
          h(
            's-link',
            { href: adminOrderUrl(shipment.orderId), target: '_top' },
            shipment.orderName ?? `Order ${shipment.orderId}`,
          ),
          h(
            's-link',
            {
              href: pageHref('shipments', { search: shipment.trackingNumber, detail: shipment.id }),
              accessibilityLabel: `Shipment ${shipment.trackingNumber}`,
              class: 'problem-unbroken',
            },
            shipment.trackingNumber,
          ),
          h('s-text', { color: 'subdued' }, shipment.carrierName ?? shipment.provider),
        ),
      ),
      h(
        's-table-cell',
        null,
        shipment.status
          ? h('s-box', null, parcelBadge(shipment.status))
          : h('s-text', { color: 'subdued' }, 'No status yet'),
      ),
      h(
        's-table-cell',
        null,
        h(
          's-stack',
          { gap: 'small-200' },
          h('s-text', null, problem.advice),
          parcelActionLink(problem.action),
          actions,
        ),
      ),
    );

    function showButtons(): void {
      replace(
        actions,
        h(
          's-stack',
          { direction: 'inline', gap: 'small-200' },
          h(
            's-button',
            {
              data: { needsSession: '' },
              accessibilityLabel: `Handled: ${what}`,
              on: { click: showHandled },
            },
            'Handled',
          ),
          h(
            's-button',
            {
              variant: 'tertiary',
              data: { needsSession: '' },
              accessibilityLabel: `Snooze: ${what}`,
              on: { click: showSnooze },
            },
            'Snooze',
          ),
        ),
      );
      disableForms(actions);
    }

    function cancel(): HTMLElement {
      return h(
        's-button',
        {
          variant: 'tertiary',
          on: {
            click: () => {
              showButtons();
              actions.querySelector('s-button')?.focus();
            },
          },
        },
        'Cancel',
      );
    }

    function showHandled(): void {
      const note = h('s-text-field', {
        label: 'Note (optional)',
        details: 'What you did about it, kept with the problem.',
        maxLength: noteMaxLength,
      });
      const submit = h('s-button', { type: 'submit', variant: 'primary' }, 'Mark handled');
      const form = h(
        'form',
        {
          attrs: { novalidate: '', 'aria-label': `Mark handled: ${what}` },
          on: {
            submit: (event: Event) => {
              event.preventDefault();
              const text = note.value.trim();
              note.error = '';
              if (text.length > noteMaxLength) {
                note.error = `Keep the note to ${noteMaxLength} characters.`;
                return;
              }
              void act(submit, 'handled', text ? { note: text } : {}, 'Marked handled', (issue) => {
                note.error = issue;
              });
            },
          },
        },
        note,
        h('s-stack', { direction: 'inline', gap: 'small-200' }, submit, cancel()),
      );
      replace(actions, form);
      disableForms(actions);
      note.focus();
    }

    function showSnooze(): void {
      const tomorrow = dayFromToday(1);
      const latest = dayFromToday(snoozeMaxDays);
      const until = h('s-date-field', {
        label: 'Snooze until',
        details: 'Hidden until that day; it comes back then if it still needs you.',
        value: dayFromToday(snoozeDefaultDays),
        allow: `${tomorrow}--${latest}`,
      });
      const submit = h('s-button', { type: 'submit', variant: 'primary' }, 'Snooze');
      const form = h(
        'form',
        {
          attrs: { novalidate: '', 'aria-label': `Snooze: ${what}` },
          on: {
            submit: (event: Event) => {
              event.preventDefault();
              const day = until.value;
              until.error = '';
              if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || day < tomorrow) {
                until.error = 'Choose a day after today.';
                return;
              }
              if (day > latest) {
                until.error = 'Choose a day within a year.';
                return;
              }
              void act(submit, 'snooze', { until: day }, `Snoozed until ${formatDay(day)}`, (issue) => {
                until.error = issue;
              });
            },
          },
        },
        until,
        h('s-stack', { direction: 'inline', gap: 'small-200' }, submit, cancel()),
      );
      replace(actions, form);
      disableForms(actions);
      until.focus();
    }

    /**
     * Marks the problem handled or snoozes it; done, it leaves the list. Closed meanwhile (the parcel
     * moved on) or gone, it leaves too, saying so; a refused field shows beside the field.
     */
    async function act(
      button: HTMLElementTagNameMap['s-button'],
      action: 'handled' | 'snooze',
      payload: { note?: string; until?: string },
      done: string,
      fieldError: (message: string) => void,
    ): Promise<void> {
      button.loading = true;
      try {
        await api('POST', `/problems/${encodeURIComponent(problem.id)}/${action}`, payload);
        toast(done);
        leave();
      } catch (error) {
        button.loading = false;
        if (error instanceof ApiError && (error.status === 409 || error.status === 404)) {
          toast(
            error.status === 409
              ? 'This problem was closed already: nothing left to do.'
              : 'This problem is no longer there.',
          );
          leave();
        } else if (error instanceof ApiError && error.issues.length > 0) {
          fieldError(error.issues.map((i) => i.message).join(' '));
        } else {
          failureToast(error);
        }
      }
    }

    /** The row leaves the list; the counts lose it; focus goes to the next row's first action. */
    function leave(): void {
      const next = (row.nextElementSibling ?? row.previousElementSibling) as HTMLElement | null;
      row.remove();
      if (counts) counts[problem.kind] = Math.max(0, (counts[problem.kind] ?? 0) - 1);
      total = Math.max(0, total - 1);
      drawChips();
      if (listed() === 0 && nextCursor) {
        // The loaded rows are all done, more are waiting: the list starts again from the top.
        void load();
        return;
      }
      drawList();
      next?.querySelector<HTMLElement>('.problem-actions s-button')?.focus();
    }

    showButtons();
    return row;
  }

  const element = h(
    's-page',
    { heading: 'Needs attention' },
    h(
      's-section',
      { padding: 'none', accessibilityLabel: 'Shipment problems' },
      h(
        's-box',
        { padding: 'base' },
        h(
          's-stack',
          { gap: 'small-200' },
          h(
            's-paragraph',
            null,
            'Shipments that need you before your customer asks. Mark one handled once you have dealt with it, or snooze it until a day. A problem also goes away by itself when the parcel moves on or is delivered.',
          ),
          chips,
          summary,
        ),
      ),
      listArea,
    ),
  );
  const ready = load();
  return { element, ready };
};
