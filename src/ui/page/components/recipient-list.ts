import { h, replace } from '../dom.js';

/**
 * A short list of e-mail addresses the merchant edits in a form: one field per address with Remove beside
 * it, and "Add a recipient" below until the list holds `max`. The fields' labels are for assistive
 * technology only (the list has one visible caption above it); empty fields count for nothing.
 */

export interface RecipientListOptions {
  /** The most addresses the list takes. */
  max: number;
  /** Each field's label, by its place (1, 2, …): "Further recipient 2". */
  label(place: number): string;
  /** Called after a field was added or removed (a field's typing reaches the form as its own input). */
  changed(): void;
}

export interface RecipientList {
  element: HTMLElement;
  /** The addresses typed, trimmed, empty fields left out. */
  values(): string[];
  /** Shows these addresses (one field each), errors cleared. */
  set(addresses: readonly string[]): void;
  /** Says what is wrong with the address at `index` of values(). */
  showError(index: number, message: string): void;
  clearErrors(): void;
}

type Field = HTMLElementTagNameMap['s-text-field'];

export function recipientList(options: RecipientListOptions): RecipientList {
  let fields: Field[] = [];
  const rows = h('div', { class: 'recipient-rows' });
  const add = h(
    's-button',
    {
      variant: 'secondary',
      on: {
        click: () => {
          if (fields.length >= options.max) return;
          draw([...fields.map((f) => f.value), '']);
          options.changed();
          fields.at(-1)?.focus();
        },
      },
    },
    'Add a recipient',
  );

  function draw(addresses: readonly string[]): void {
    fields = addresses.map((address, i) =>
      h('s-text-field', {
        label: options.label(i + 1),
        labelAccessibilityVisibility: 'exclusive',
        placeholder: 'name@example.com',
        autocomplete: 'off',
        value: address,
      }),
    );
    replace(
      rows,
      fields.map((field, i) =>
        h(
          'div',
          { class: 'recipient-row' },
          field,
          h(
            's-button',
            {
              variant: 'tertiary',
              accessibilityLabel: `Remove ${options.label(i + 1).toLowerCase()}`,
              on: { click: () => remove(i) },
            },
            'Remove',
          ),
        ),
      ),
    );
    add.hidden = fields.length >= options.max;
  }

  function remove(index: number): void {
    draw(fields.filter((_, i) => i !== index).map((f) => f.value));
    options.changed();
    // Focus stays in the list: on the field that took the removed one's place, else on "Add".
    if (fields[index]) fields[index].focus();
    else add.focus();
  }

  return {
    element: h('div', { class: 'recipient-list' }, rows, add),
    values: () => fields.map((f) => f.value.trim()).filter((v) => v !== ''),
    set: draw,
    showError(index, message) {
      const typed = fields.filter((f) => f.value.trim() !== '');
      const field = typed[index];
      if (field) field.error = message;
    },
    clearErrors() {
      for (const field of fields) field.error = '';
    },
  };
}
