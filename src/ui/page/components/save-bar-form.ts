import { hideSaveBar, showSaveBar } from '../app-bridge.js';
import { type Child, h } from '../dom.js';

/**
 * The admin's contextual save bar (App Bridge's `<ui-save-bar>`), one per page: it shows as soon as any
 * of the page's forms differs from what was saved and hides when every one is saved, discarded, or the
 * same again. Save saves every changed form (each through its own request, one after the other: a refused
 * one keeps its values and errors, the others are saved); Discard puts every form back to what was saved.
 * Enter in a form saves as the bar's Save does. Each form is described by how to read and write its values
 * and how to save them.
 */

export interface SaveBarFormOptions<V> {
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
  /** The values as saved (the form shows them, and the bar hides when no other form differs). */
  setSaved(values: V): void;
  isDirty(): boolean;
}

export interface SaveBar {
  /** The `<ui-save-bar>`: anywhere on the page (the admin draws the bar itself). */
  element: HTMLElement;
  /** A form whose changes this bar saves and discards. */
  form<V>(options: SaveBarFormOptions<V>): SaveBarForm<V>;
  isDirty(): boolean;
}

/** Every save bar of the open pages, for the page's "leave without saving?" question. */
const bars = new Set<SaveBar>();

export function hasUnsavedChanges(): boolean {
  return [...bars].some((bar) => bar.element.isConnected && bar.isDirty());
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

interface Member {
  dirty(): boolean;
  discard(): void;
  save(): Promise<void>;
}

/** The page's save bar, `id` unique on the page. */
export function saveBar(id: string): SaveBar {
  const members: Member[] = [];
  let showing = false;
  let saving = false;

  const saveButton = h('button', { type: 'button', attrs: { variant: 'primary' } }, 'Save');
  const discardButton = h('button', { type: 'button' }, 'Discard');
  // App Bridge's element (not in the DOM's tag map): its buttons are drawn by the admin, clicks forwarded.
  const element = document.createElement('ui-save-bar');
  element.id = id;
  element.append(saveButton, discardButton);

  const isDirty = () => members.some((m) => m.dirty());
  const sync = () => {
    const show = isDirty();
    if (show === showing) return;
    showing = show;
    if (show) showSaveBar(id);
    else hideSaveBar(id);
  };
  const saveAll = async () => {
    if (saving) return;
    saving = true;
    saveButton.disabled = true;
    try {
      for (const member of members) if (member.dirty()) await member.save();
    } finally {
      saving = false;
      saveButton.disabled = false;
      sync();
    }
  };

  saveButton.addEventListener('click', () => void saveAll());
  discardButton.addEventListener('click', () => {
    for (const member of members) if (member.dirty()) member.discard();
    sync();
  });

  const bar: SaveBar = {
    element,
    isDirty,
    form<V>(options: SaveBarFormOptions<V>): SaveBarForm<V> {
      const equal = options.equal ?? ((a: V, b: V) => sameValues(a, b));
      let saved: V | null = null;
      const form = h('form', { attrs: { novalidate: '' } }, ...options.children);
      const dirty = () => saved !== null && !equal(options.read(), saved);
      const result: SaveBarForm<V> = {
        form,
        setSaved(values) {
          saved = values;
          options.write(values);
          sync();
        },
        isDirty: dirty,
      };
      members.push({
        dirty,
        discard: () => {
          if (saved !== null) options.write(saved);
        },
        save: async () => {
          const now = await options.save(options.read());
          if (now !== null) result.setSaved(now);
        },
      });
      form.addEventListener('input', sync);
      form.addEventListener('change', sync);
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        void saveAll();
      });
      return result;
    },
  };
  bars.add(bar);
  return bar;
}

/** A page of one form: the form with its own save bar inside it. */
export function saveBarForm<V>(options: SaveBarFormOptions<V> & { id: string }): SaveBarForm<V> {
  const bar = saveBar(options.id);
  const result = bar.form(options);
  result.form.append(bar.element);
  return result;
}
