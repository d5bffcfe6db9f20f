import type { SeenCarrier } from '../../../api/carriers-seen.js';
import type { ShippingProvider } from '../../../../tracking/types.js';
import { api } from '../../api-client.js';
import { toast } from '../../app-bridge.js';
import { failureToast, loadFailure } from '../../components/load-failure.js';
import { h, replace } from '../../dom.js';
import { formatCount, plural } from '../../format.js';
import { disableForms } from '../../session.js';
import { cardSection, type SettingsCard } from './card.js';

/**
 * Carrier mapping: which of the service's carriers each carrier name of the store stands for, with the
 * shipments waiting for an unmatched one; a picker (searching the service's whole list) saves one mapping
 * at once, outside the page's save bar.
 */
export function carriersCard(): SettingsCard {
  const carriersSection = cardSection('carriers', 'Carrier mapping', 'carriers');

  type SeenPage = { carriers: SeenCarrier[]; next: string | null };
  /** Labels of the service's carriers met so far (the mapped ones, the picker's results). */
  const labels = new Map<string, string>();
  const labelOf = (slug: string) => labels.get(slug) ?? slug;
  const learnLabels = (carriers: SeenCarrier[]) => {
    for (const c of carriers) if (c.mappedTo && c.mappedLabel) labels.set(c.mappedTo, c.mappedLabel);
  };

  async function loadCarriers(): Promise<void> {
    try {
      const seen = await api<SeenPage>('GET', '/carriers/seen');
      learnLabels(seen.carriers);
      drawCarriers(seen.carriers, seen.next);
    } catch (error) {
      replace(carriersSection, loadFailure('Carriers could not be loaded', error));
    }
  }

  /** A shop with more names than a page holds: the next page's rows are added below. */
  function moreCarriers(body: HTMLElement, next: string): HTMLElement {
    const more = h(
      's-button',
      {
        on: {
          click: () => {
            more.loading = true;
            void api<SeenPage>('GET', `/carriers/seen?${new URLSearchParams({ after: next })}`)
              .then((page) => {
                learnLabels(page.carriers);
                body.append(...page.carriers.map(carrierRow));
                disableForms(body);
                more.replaceWith(page.next ? moreCarriers(body, page.next) : '');
              })
              .catch((error: unknown) => {
                more.loading = false;
                failureToast(error);
              });
          },
        },
      },
      'Show more carrier names',
    );
    return more;
  }

  function drawCarriers(carriers: SeenCarrier[], next: string | null): void {
    const body = h('s-table-body', null, carriers.map(carrierRow));
    if (carriers.length === 0) {
      replace(
        carriersSection,
        h(
          's-paragraph',
          { color: 'subdued' },
          'Carrier names appear here once your store fulfils orders with tracking numbers.',
        ),
      );
      return;
    }
    replace(
      carriersSection,
      h(
        's-paragraph',
        { color: 'subdued' },
        "Each carrier name your store's fulfilments use, and the tracking service carrier it stands for.",
      ),
      h(
        's-table',
        null,
        h(
          's-table-header-row',
          null,
          h('s-table-header', { listSlot: 'primary' }, 'Carrier name in your store'),
          h('s-table-header', { listSlot: 'labeled' }, 'Tracking service carrier'),
          h('s-table-header', { listSlot: 'labeled', format: 'numeric' }, 'Shipments'),
          h('s-table-header', { listSlot: 'inline' }, ''),
        ),
        body,
      ),
      next ? moreCarriers(body, next) : null,
    );
    disableForms(carriersSection);
  }

  function carrierRow(carrier: SeenCarrier): HTMLElement {
    const editor = h('div', { class: 'carrier-editor' });
    const matched =
      carrier.mappedTo === null
        ? h(
            's-stack',
            { gap: 'none' },
            h('s-text', { tone: 'critical', type: 'strong' }, 'Not matched'),
            carrier.waiting > 0
              ? h(
                  's-text',
                  { color: 'subdued' },
                  `${plural(carrier.waiting, 'shipment')} waiting until you choose a carrier`,
                )
              : null,
          )
        : h(
            's-stack',
            { gap: 'none' },
            h(
              's-text',
              null,
              carrier.source === 'override'
                ? `Chosen by you: ${labelOf(carrier.mappedTo)}`
                : `Matched automatically: ${labelOf(carrier.mappedTo)}`,
            ),
            // The parcel model's one story of a parcel the service cannot follow: its label and advice, as
            // the Shipments page and Needs attention tell it.
            carrier.state === 'not_followed' && carrier.problem
              ? h(
                  's-text',
                  { tone: 'critical', type: 'strong' },
                  `${carrier.problem.label}: ${plural(carrier.notFollowed, 'shipment')}`,
                )
              : null,
            carrier.state === 'not_followed' && carrier.problem?.advice
              ? h('s-text', { color: 'subdued' }, carrier.problem.advice)
              : null,
          );
    const needsChoice = carrier.mappedTo === null || carrier.state === 'not_followed';
    const choose = h(
      's-button',
      {
        variant: needsChoice ? 'primary' : 'secondary',
        accessibilityLabel: `Choose the carrier for ${carrier.name}`,
        data: { needsSession: '' },
        on: { click: () => openEditor(carrier, editor, choose) },
      },
      carrier.mappedTo === null ? 'Choose carrier' : 'Change',
    );
    return h(
      's-table-row',
      { data: { carrier: carrier.name } },
      h('s-table-cell', null, h('s-text', { type: 'strong' }, carrier.name)),
      h('s-table-cell', null, matched, editor),
      h('s-table-cell', null, formatCount(carrier.shipments)),
      h('s-table-cell', null, choose),
    );
  }

  function openEditor(carrier: SeenCarrier, editor: HTMLElement, opener: HTMLElement): void {
    // The picker replaces its button until it is closed.
    opener.hidden = true;
    const search = h('s-search-field', {
      label: `Search the tracking service's carriers for ${carrier.name}`,
      labelAccessibilityVisibility: 'exclusive',
      placeholder: 'Search carriers',
    });
    const select = h('s-select', { label: `Carrier for ${carrier.name}` });
    const save = h('s-button', { variant: 'primary', type: 'submit' }, 'Save carrier');
    const cancel = h(
      's-button',
      {
        variant: 'tertiary',
        on: {
          click: () => {
            replace(editor);
            opener.hidden = false;
          },
        },
      },
      'Cancel',
    );
    // The search reaches the service's whole list; without words, the carrier chosen now stays offered
    // beside the first of the list, wherever it sorts.
    const current: ShippingProvider[] =
      carrier.mappedTo === null ? [] : [{ slug: carrier.mappedTo, label: labelOf(carrier.mappedTo) }];
    const fill = (found: ShippingProvider[], searched: boolean) => {
      const offered =
        searched || found.some((c) => c.slug === carrier.mappedTo) ? found : [...current, ...found];
      for (const c of offered) labels.set(c.slug, c.label);
      replace(
        select,
        offered.length === 0
          ? h('s-option', { value: '', disabled: true }, 'No carrier matches')
          : offered.map((c) =>
              h('s-option', { value: c.slug, selected: c.slug === carrier.mappedTo }, c.label),
            ),
      );
    };
    let timer = 0;
    const find = async () => {
      const query = new URLSearchParams({ limit: '50' });
      const words = search.value.trim();
      if (words) query.set('search', words);
      try {
        fill((await api<{ carriers: ShippingProvider[] }>('GET', `/carriers?${query}`)).carriers, !!words);
      } catch (error) {
        failureToast(error);
      }
    };
    search.addEventListener('input', () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => void find(), 250);
    });
    const form = h(
      'form',
      {
        attrs: { novalidate: '' },
        on: {
          submit: (event: Event) => {
            event.preventDefault();
            void saveMapping(carrier, select.value, save);
          },
        },
      },
      search,
      select,
      h('s-stack', { direction: 'inline', gap: 'small-200' }, save, cancel),
    );
    search.value = carrier.mappedTo ? '' : (carrier.name.split(/\s+/)[0] ?? '');
    replace(editor, form);
    void find();
    disableForms(editor);
  }

  async function saveMapping(
    carrier: SeenCarrier,
    slug: string,
    button: HTMLElementTagNameMap['s-button'],
  ): Promise<void> {
    if (!slug) {
      toast('Choose a carrier first.', { isError: true });
      return;
    }
    button.loading = true;
    try {
      const answer = await api<{ remapped: number; stillWaiting: number }>('PUT', '/carriers/mapping', {
        name: carrier.name,
        slug,
      });
      toast(
        `${labelOf(slug)} chosen for “${carrier.name}”${answer.remapped > 0 ? `: ${plural(answer.remapped, 'waiting shipment')} will be tracked` : ''}`,
      );
      await loadCarriers();
    } catch (error) {
      failureToast(error);
    } finally {
      button.loading = false;
    }
  }

  return { section: carriersSection, load: loadCarriers };
}
