import { hideSaveBar, showSaveBar } from '../app-bridge.js';
import { type Child, h } from '../dom.js';

/**
 * A settings form with the admin's contextual save bar (App Bridge's `<ui-save-bar>`): the bar shows as
 * soon as the form differs from what was saved and hides when it is saved, discarded, or the same again.
 * Save submits the form; Discard puts the saved values back. Described per use by how to read and write
 * its values and how to save them.
 */

export interface SaveBarFormOptions<V> {
  /** The save bar's id (unique on the page). */
  id: string;
  /** The fields and text of the form. */
  children: Child[];
  read(): V;
  write(values: V): void;
  /** Saves; answers the values now saved (the new baseline), or null when nothing was saved. */
  save(values: V): Promise<V | null>;
  equal?(a: V, b: V): boolean;
}

export interface SaveBarForm<V> {
  form: HTMLFormElement;
  /** The values as saved (the form shows them, and the bar hides). */
  setSaved(values: V): void;
  isDirty(): boolean;
}

/** Every form with unsaved changes on the page, for the page's "leave without saving?" question. */
const openForms = new Set<SaveBarForm<unknown>>();

export function hasUnsavedChanges(): boolean {
  return [...openForms].some((f) => f.form.isConnected && f.isDirty());
}

/** Equal as JSON, whatever order an object's keys come in (the form's and the API's may differ). */
function sameValues(a: unknown, b: unknown): boolean {
  const sorted = (value: unknown): unknown =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(
          Object.entries(value)
            .sort(([x], [y]) => (x < y ? -1 : 1))
            .map(([k, v]) => [k, sorted(v)]),
        )
      : value;
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

export function saveBarForm<V>(options: SaveBarFormOptions<V>): SaveBarForm<V> {
  const equal = options.equal ?? ((a: V, b: V) => sameValues(a, b));
  let saved: V | null = null;
  let showing = false;
  let saving = false;

  const saveButton = h('button', { type: 'submit', attrs: { variant: 'primary' } }, 'Save');
  const discardButton = h('button', { type: 'button' }, 'Discard');
  // App Bridge's element (not in the DOM's tag map): its buttons are drawn by the admin, clicks forwarded.
  const bar = document.createElement('ui-save-bar');
  bar.id = options.id;
  bar.append(saveButton, discardButton);
  const form = h('form', { attrs: { novalidate: '' } }, ...options.children, bar);

  const dirty = () => saved !== null && !equal(options.read(), saved);
  const sync = () => {
    const show = dirty();
    if (show === showing) return;
    showing = show;
    if (show) showSaveBar(options.id);
    else hideSaveBar(options.id);
  };

  form.addEventListener('input', sync);
  form.addEventListener('change', sync);
  discardButton.addEventListener('click', () => {
    if (saved !== null) options.write(saved);
    sync();
  });
  saveButton.addEventListener('click', (event) => {
    event.preventDefault();
    form.requestSubmit();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (saving || !dirty()) return;
    saving = true;
    saveButton.disabled = true;
    void options
      .save(options.read())
      .then((now) => {
        if (now !== null) result.setSaved(now);
      })
      .finally(() => {
        saving = false;
        saveButton.disabled = false;
        sync();
      });
  });

  const result: SaveBarForm<V> = {
    form,
    setSaved(values) {
      saved = values;
      options.write(values);
      sync();
    },
    isDirty: dirty,
  };
  openForms.add(result as SaveBarForm<unknown>);
  return result;
}
