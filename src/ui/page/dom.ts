/**
 * Building the page: `h('s-badge', { tone: 'success' }, 'Delivered')`. Props are type-checked against
 * the element's own properties (Polaris's from @shopify/polaris-types, the DOM's for native elements) and
 * set as attributes, as Polaris documents them in HTML; `value` and `checked` are also set as properties.
 * Children are nodes or text, never parsed as HTML.
 */

type Primitive = string | number | boolean | null | undefined;

/** The element's properties that take a plain value (text, number, flag), each optional. */
type ValueProps<E> = {
  [P in keyof E as P extends string ? (E[P] extends Primitive ? P : never) : never]?: E[P] | null;
};

export type Props<K extends keyof HTMLElementTagNameMap> = ValueProps<HTMLElementTagNameMap[K]> & {
  slot?: string;
  class?: string;
  /** `data-*` attributes. */
  data?: Record<string, string>;
  /** Event listeners, by event name. */
  on?: Record<string, (event: Event) => void>;
  /** Extra attributes, as given (aria-*, role, for…). */
  attrs?: Record<string, string | null>;
};

export type Child = Node | string | number | null | undefined | false | Child[];

const renamed: Record<string, string> = { className: 'class', htmlFor: 'for' };

function attributeName(prop: string): string {
  if (renamed[prop]) return renamed[prop];
  if (prop.startsWith('aria') && prop.length > 4) return `aria-${prop.slice(4).toLowerCase()}`;
  return prop.toLowerCase();
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props<K> | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (key === 'on') {
        for (const [type, listener] of Object.entries(value as Record<string, EventListener>))
          element.addEventListener(type, listener);
      } else if (key === 'data') {
        for (const [name, text] of Object.entries(value as Record<string, string>))
          element.dataset[name] = text;
      } else if (key === 'attrs') {
        for (const [name, text] of Object.entries(value as Record<string, string | null>))
          if (text !== null) element.setAttribute(name, text);
      } else {
        setProp(element, key, value as Primitive);
      }
    }
  }
  append(element, children);
  return element;
}

/** Sets one prop as an attribute (a flag: present or absent), and `value`/`checked` as properties too. */
export function setProp(element: Element, key: string, value: Primitive): void {
  const name = attributeName(key);
  if (value === null || value === undefined || value === false) element.removeAttribute(name);
  else element.setAttribute(name, value === true ? '' : String(value));
  if (key === 'value' || key === 'checked') (element as unknown as Record<string, unknown>)[key] = value;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children.flat(Infinity as 1) as Child[]) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** Text with a fixed width font (numbers, codes). */
export function code(text: string): HTMLElement {
  return h('code', null, text);
}
