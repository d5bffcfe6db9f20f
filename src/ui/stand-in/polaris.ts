/**
 * An offline stand-in for Polaris web components (https://cdn.shopify.com/shopifycloud/polaris.js),
 * served only with ADMIN_UI_SCRIPTS=stand-in (browser tests, offline development). It registers the
 * elements the page uses with their attributes, properties and events as @shopify/polaris-types declares
 * them, and a plain rendering: enough to run and measure the page, not Polaris's look. Form fields render
 * a real <label> and <input> in their shadow root, so they are found by label and take part in forms.
 */

export {};

type Render = (host: StandInElement) => string;

const base = `
  :host { box-sizing: border-box; font: 400 13px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #303030; }
  :host([hidden]) { display: none !important; }
  * { box-sizing: border-box; }
`;

const tones: Record<string, string> = {
  info: '#e0f0ff',
  success: '#cdfee1',
  warning: '#fff1e3',
  caution: '#fff1e3',
  critical: '#fee9e8',
  neutral: '#f1f1f1',
  auto: '#f1f1f1',
};
const toneText: Record<string, string> = {
  success: '#0c5132',
  warning: '#5e4200',
  caution: '#5e4200',
  critical: '#8e1f0b',
  info: '#00527c',
  subdued: '#616161',
};

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[c]};`);

const spacing: Record<string, string> = {
  none: '0',
  'small-500': '2px',
  'small-400': '4px',
  'small-300': '6px',
  'small-200': '8px',
  'small-100': '10px',
  small: '12px',
  base: '16px',
  large: '20px',
  'large-100': '24px',
  'large-200': '28px',
};
const space = (value: string | null, fallback: string) =>
  (value ?? fallback)
    .split(/\s+/)
    .map((v) => spacing[v] ?? v)
    .join(' ');

/** One constructed style sheet per element type, shared by all its instances. */
const sheets = new Map<unknown, CSSStyleSheet>();
function sheetOf(type: { css: string }): CSSStyleSheet {
  let sheet = sheets.get(type);
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(base + type.css);
    sheets.set(type, sheet);
  }
  return sheet;
}

class StandInElement extends HTMLElement {
  static render: Render = () => '<slot></slot>';
  static css = '';
  static role: string | null = null;
  static observedAttributes: string[] = [];

  attr(name: string): string | null {
    return this.getAttribute(name);
  }

  flag(name: string): boolean {
    return this.hasAttribute(name) && this.getAttribute(name) !== 'false';
  }

  connectedCallback(): void {
    const type = this.constructor as typeof StandInElement;
    if (type.role && !this.hasAttribute('role')) this.setAttribute('role', type.role);
    if (!this.shadowRoot) {
      const root = this.attachShadow({ mode: 'open', delegatesFocus: true });
      root.adoptedStyleSheets = [sheetOf(type)];
      this.update();
    }
  }

  attributeChangedCallback(): void {
    if (this.shadowRoot) this.update();
  }

  update(): void {
    const type = this.constructor as typeof StandInElement;
    this.shadowRoot!.innerHTML = type.render(this);
    // Styles computed from attributes go through the CSSOM: the page's CSP refuses inline style attributes.
    for (const styled of this.shadowRoot!.querySelectorAll<HTMLElement>('[data-style]')) {
      styled.style.cssText = styled.dataset.style ?? '';
      styled.removeAttribute('data-style');
    }
    this.afterRender();
  }

  afterRender(): void {}
}

/**
 * Polaris elements take their props as properties too: each observed attribute whose name is its
 * property's (label, details, heading, tone…) gets a property that reads and writes the attribute.
 */
function reflectAttributes(type: { prototype: object; observedAttributes: string[] }): void {
  for (const name of type.observedAttributes) {
    if (name in type.prototype) continue;
    Object.defineProperty(type.prototype, name, {
      configurable: true,
      get(this: HTMLElement) {
        return this.getAttribute(name);
      },
      set(this: HTMLElement, value: unknown) {
        if (value === null || value === undefined || value === false || value === '')
          this.removeAttribute(name);
        else this.setAttribute(name, value === true ? '' : String(value));
      },
    });
  }
}

/** One element from its attributes, shadow markup, styles and role. */
function define(
  tag: string,
  description: { attributes?: string[]; render?: Render; css?: string; role?: string },
): void {
  const type = class extends StandInElement {
    static override render = description.render ?? StandInElement.render;
    static override css = description.css ?? '';
    static override role = description.role ?? null;
    static override observedAttributes = description.attributes ?? [];
  };
  reflectAttributes(type);
  customElements.define(tag, type);
}

/* ------------------------------------------------------------------ layout and text */

const boxAttributes = [
  'padding',
  'paddingblock',
  'paddinginline',
  'gap',
  'direction',
  'background',
  'border',
  'borderradius',
  'inlinesize',
];
const boxCss = (host: StandInElement) =>
  [
    host.attr('padding') ? `padding:${space(host.attr('padding'), 'none')}` : '',
    host.attr('paddingblock') ? `padding-block:${space(host.attr('paddingblock'), 'none')}` : '',
    host.attr('paddinginline') ? `padding-inline:${space(host.attr('paddinginline'), 'none')}` : '',
    host.attr('background') && host.attr('background') !== 'transparent'
      ? `background:${host.attr('background') === 'subdued' ? '#f7f7f7' : '#fff'}`
      : '',
    host.attr('border') && host.attr('border') !== 'none' ? 'border:1px solid #e3e3e3' : '',
    host.attr('borderradius') ? 'border-radius:8px' : '',
  ]
    .filter(Boolean)
    .join(';');

define('s-page', {
  attributes: ['heading', 'inlinesize'],
  css: `
    :host { display: block; padding: 16px; margin-inline: auto; max-inline-size: 1000px; }
    :host([inlinesize="small"]) { max-inline-size: 640px; }
    :host([inlinesize="large"]) { max-inline-size: 1200px; }
    header { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: center; margin-block-end: 16px; }
    h1 { font-size: 20px; font-weight: 700; margin: 0; margin-inline-end: auto; overflow-wrap: anywhere; }
    .actions { display: flex; flex-wrap: wrap; gap: 8px; }
    .layout { display: grid; gap: 16px; grid-template-columns: minmax(0, 1fr); }
    @media (min-width: 900px) { .layout.with-aside { grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); } }
    .main { display: grid; gap: 16px; align-content: start; min-inline-size: 0; }
  `,
  render: (host) => `
    <header>
      <h1>${escape(host.attr('heading') ?? '')}</h1>
      <div class="actions"><slot name="secondary-actions"></slot><slot name="primary-action"></slot></div>
    </header>
    <div class="layout ${host.querySelector(':scope > [slot="aside"]') ? 'with-aside' : ''}">
      <div class="main"><slot></slot></div>
      <slot name="aside"></slot>
    </div>`,
});

define('s-section', {
  attributes: ['heading', 'padding', 'accessibilitylabel'],
  role: 'region',
  css: `
    :host { display: block; background: #fff; border-radius: 12px; box-shadow: 0 1px 0 #e3e3e3, 0 0 0 1px #ebebeb; min-inline-size: 0; }
    :host([padding="none"]) .body { padding: 0; }
    .body { padding: 16px; display: grid; gap: 12px; min-inline-size: 0; }
    h2 { font-size: 14px; font-weight: 650; margin: 0; }
    header { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; justify-content: space-between; }
  `,
  render: (host) => `
    <div class="body">
      ${host.attr('heading') ? `<header><h2>${escape(host.attr('heading')!)}</h2><slot name="primary-action"></slot></header>` : ''}
      <slot></slot>
    </div>`,
});

define('s-box', {
  attributes: boxAttributes,
  css: ':host { display: block; min-inline-size: 0; }',
  render: (host) => `<div data-style="${boxCss(host)}"><slot></slot></div>`,
});

define('s-stack', {
  attributes: [...boxAttributes, 'alignitems', 'justifycontent'],
  css: ':host { display: block; min-inline-size: 0; } div { display: flex; min-inline-size: 0; }',
  render: (host) => {
    const inline = host.attr('direction') === 'inline';
    const style = [
      // Only an inline stack wraps its items; a block stack is one column (a wrapping column makes the
      // browser size it as if its items sat side by side: tall empty bands in a grid).
      `flex-direction:${inline ? 'row' : 'column'}`,
      inline ? 'flex-wrap:wrap' : '',
      `gap:${space(host.attr('gap'), 'none')}`,
      host.attr('alignitems') ? `align-items:${host.attr('alignitems')}` : '',
      host.attr('justifycontent') ? `justify-content:${host.attr('justifycontent')}` : '',
      boxCss(host),
    ];
    return `<div data-style="${style.filter(Boolean).join(';')}"><slot></slot></div>`;
  },
});

define('s-grid', {
  attributes: [...boxAttributes, 'gridtemplatecolumns', 'alignitems'],
  css: ':host { display: block; min-inline-size: 0; }',
  render: (host) => {
    const style = [
      'display:grid',
      `grid-template-columns:${host.attr('gridtemplatecolumns') ?? 'minmax(0, 1fr)'}`,
      `gap:${space(host.attr('gap'), 'none')}`,
      host.attr('alignitems') ? `align-items:${host.attr('alignitems')}` : '',
      boxCss(host),
    ];
    return `<div data-style="${style.filter(Boolean).join(';')}"><slot></slot></div>`;
  },
});
define('s-grid-item', { css: ':host { display: block; min-inline-size: 0; }' });

define('s-heading', {
  role: 'heading',
  css: ':host { display: block; font-size: 14px; font-weight: 650; overflow-wrap: anywhere; }',
});

define('s-text', {
  attributes: ['tone', 'color', 'type', 'fontvariantnumeric'],
  css: `
    :host { display: inline; overflow-wrap: anywhere; }
    :host([color="subdued"]) { color: #616161; }
    :host([type="strong"]) { font-weight: 650; }
    :host([fontvariantnumeric="tabular-nums"]) { font-variant-numeric: tabular-nums; }
    :host([tone="critical"]) { color: ${toneText.critical}; }
    :host([tone="success"]) { color: ${toneText.success}; }
    :host([tone="caution"]), :host([tone="warning"]) { color: ${toneText.warning}; }
  `,
});

define('s-paragraph', {
  attributes: ['tone', 'color'],
  css: `
    :host { display: block; margin: 0; overflow-wrap: anywhere; }
    :host([color="subdued"]) { color: #616161; }
    :host([tone="critical"]) { color: ${toneText.critical}; }
  `,
});

define('s-divider', { css: ':host { display: block; border-block-start: 1px solid #e3e3e3; }' });

define('s-badge', {
  attributes: ['tone', 'size'],
  css: `
    :host { display: inline-block; }
    span { display: inline-block; border-radius: 8px; padding: 1px 8px; font-weight: 550; font-size: 12px; background: #f1f1f1; white-space: nowrap; }
  `,
  render: (host) => {
    const tone = host.attr('tone') ?? 'neutral';
    return `<span data-style="background:${tones[tone] ?? tones.neutral};color:${toneText[tone] ?? '#303030'}"><slot></slot></span>`;
  },
});

define('s-banner', {
  attributes: ['tone', 'heading', 'dismissible'],
  css: `
    :host { display: block; }
    .banner { border-radius: 12px; padding: 12px 16px; display: grid; gap: 6px; }
    h3 { margin: 0; font-size: 13px; font-weight: 650; }
    .actions { display: flex; flex-wrap: wrap; gap: 8px; }
  `,
  render: (host) => {
    const tone = host.attr('tone') ?? 'info';
    return `<div class="banner" role="${tone === 'critical' ? 'alert' : 'status'}" data-style="background:${tones[tone] ?? tones.info}">
      ${host.attr('heading') ? `<h3>${escape(host.attr('heading')!)}</h3>` : ''}
      <div><slot></slot></div>
      <div class="actions"><slot name="secondary-actions"></slot></div>
    </div>`;
  },
});

define('s-spinner', {
  attributes: ['accessibilitylabel'],
  css: ':host { display: inline-block; } span { color: #616161; }',
  render: (host) =>
    `<span role="status" aria-label="${escape(host.attr('accessibilitylabel') ?? 'Loading')}">…</span>`,
});

define('s-progress', {
  attributes: ['value', 'max', 'accessibilitylabel', 'tone'],
  css: ':host { display: block; } progress { inline-size: 100%; }',
  render: (host) =>
    `<progress value="${escape(host.attr('value') ?? '0')}" max="${escape(host.attr('max') ?? '1')}" aria-label="${escape(host.attr('accessibilitylabel') ?? '')}"></progress>`,
});

define('s-unordered-list', {
  css: ':host { display: block; } ul { margin: 0; padding-inline-start: 20px; display: grid; gap: 4px; }',
  render: () => '<ul><slot></slot></ul>',
});
define('s-ordered-list', {
  css: ':host { display: block; } ol { margin: 0; padding-inline-start: 20px; display: grid; gap: 4px; }',
  render: () => '<ol><slot></slot></ol>',
});
define('s-list-item', { role: 'listitem', css: ':host { display: list-item; }' });

define('s-empty-state', {
  attributes: ['heading'],
  css: ':host { display: block; text-align: center; padding: 24px 8px; } h3 { margin: 0 0 8px; font-size: 14px; }',
  render: (host) =>
    `<h3>${escape(host.attr('heading') ?? '')}</h3><slot></slot><div><slot name="primary-action"></slot></div>`,
});

/* ------------------------------------------------------------------ actions */

define('s-link', {
  attributes: ['href', 'target', 'tone', 'accessibilitylabel'],
  css: ':host { display: inline; } a { color: #005bd3; overflow-wrap: inherit; } a:hover { text-decoration: underline; }',
  render: (host) => {
    const label = host.attr('accessibilitylabel');
    const target = host.attr('target');
    return `<a href="${escape(host.attr('href') ?? '#')}"${target ? ` target="${escape(target)}" rel="noopener noreferrer"` : ''}${label ? ` aria-label="${escape(label)}"` : ''}><slot></slot></a>`;
  },
});

class SButton extends StandInElement {
  static override observedAttributes = [
    'variant',
    'tone',
    'disabled',
    'loading',
    'type',
    'href',
    'target',
    'accessibilitylabel',
    'commandfor',
    'icon',
  ];
  static override css = `
    :host { display: inline-block; }
    button, a { font: 550 13px/1.4 system-ui, sans-serif; border-radius: 8px; padding: 5px 12px; border: 1px solid #d4d4d4; background: #fff; color: #303030; cursor: pointer; text-decoration: none; display: inline-block; white-space: nowrap; }
    :host([variant="primary"]) button, :host([variant="primary"]) a { background: #303030; color: #fff; border-color: #303030; }
    :host([tone="critical"]) button { color: #8e1f0b; }
    :host([variant="primary"][tone="critical"]) button { background: #c70a24; border-color: #c70a24; color: #fff; }
    :host([variant="tertiary"]) button, :host([variant="tertiary"]) a { border-color: transparent; background: transparent; }
    button:disabled { opacity: .5; cursor: default; }
  `;
  static override render: Render = (host) => {
    const label = host.attr('accessibilitylabel');
    const aria = label ? ` aria-label="${escape(label)}"` : '';
    const href = host.attr('href');
    if (href)
      return `<a href="${escape(href)}"${host.attr('target') ? ` target="${escape(host.attr('target')!)}" rel="noopener noreferrer"` : ''}${aria}><slot></slot></a>`;
    const busy = host.flag('loading');
    return `<button type="button"${aria}${host.flag('disabled') || busy ? ' disabled' : ''}${busy ? ' aria-busy="true"' : ''}><slot></slot>${busy ? ' …' : ''}</button>`;
  };

  constructor() {
    super();
    // A submit button submits its form, as Polaris's (form-associated) button does.
    this.addEventListener('click', (event) => {
      if (this.flag('disabled') || this.flag('loading')) {
        event.stopImmediatePropagation();
        return;
      }
      if (this.attr('type') === 'submit') this.closest('form')?.requestSubmit();
    });
  }

  get disabled(): boolean {
    return this.flag('disabled');
  }
  set disabled(value: boolean) {
    this.toggleAttribute('disabled', value);
  }
  get loading(): boolean {
    return this.flag('loading');
  }
  set loading(value: boolean) {
    this.toggleAttribute('loading', value);
  }
}
reflectAttributes(SButton);
customElements.define('s-button', SButton);

define('s-button-group', {
  css: ':host { display: block; } div { display: flex; flex-wrap: wrap; gap: 8px; }',
  render: () =>
    '<div><slot></slot><slot name="primary-action"></slot><slot name="secondary-actions"></slot></div>',
});

define('s-clickable-chip', {
  attributes: ['color', 'disabled'],
  css: `
    :host { display: inline-block; }
    button { font: 500 12px/1.4 system-ui, sans-serif; border-radius: 16px; padding: 3px 10px; border: 1px solid #d4d4d4; background: #fff; cursor: pointer; white-space: nowrap; }
    :host([color="strong"]) button { background: #303030; color: #fff; border-color: #303030; }
  `,
  render: (host) =>
    `<button type="button" aria-pressed="${host.attr('color') === 'strong'}"${host.flag('disabled') ? ' disabled' : ''}><slot></slot></button>`,
});

/* ------------------------------------------------------------------ form fields */

const fieldCss = `
  :host { display: block; min-inline-size: 0; }
  label { display: block; font-weight: 550; margin-block-end: 4px; }
  :host([labelaccessibilityvisibility="exclusive"]) label { position: absolute; clip-path: inset(50%); inline-size: 1px; block-size: 1px; overflow: hidden; }
  input, select, textarea { font: inherit; inline-size: 100%; min-inline-size: 0; border: 1px solid #8a8a8a; border-radius: 8px; padding: 5px 10px; background: #fff; }
  textarea { display: block; resize: vertical; }
  input:disabled, select:disabled, textarea:disabled { background: #f7f7f7; color: #8a8a8a; }
  .details { color: #616161; margin-block-start: 4px; }
  .error { color: #8e1f0b; margin-block-start: 4px; }
`;

/** A text-like field: label, input, details and error, the value mirrored on the host and in its form. */
class StandInField extends StandInElement {
  static formAssociated = true;
  static inputType = 'text';
  static override observedAttributes = [
    'label',
    'details',
    'error',
    'disabled',
    'required',
    'placeholder',
    'labelaccessibilityvisibility',
    'autocomplete',
    'readonly',
  ];
  static override css = fieldCss;
  #internals = this.attachInternals();
  #value = '';

  /** The field's own control (id "input") given the attributes every field's control takes. */
  static control = (host: StandInElement, attributes: string): string =>
    `<input id="input" type="${(host.constructor as typeof StandInField).inputType}" ${attributes}>`;

  static override render: Render = (host) => {
    const error = host.attr('error');
    const details = host.attr('details');
    const attributes = `placeholder="${escape(host.attr('placeholder') ?? '')}"
        autocomplete="${escape(host.attr('autocomplete') ?? 'off')}"
        ${host.flag('disabled') ? 'disabled' : ''} ${host.flag('readonly') ? 'readonly' : ''} ${host.flag('required') ? 'required' : ''}
        ${error ? 'aria-invalid="true" aria-describedby="error"' : details ? 'aria-describedby="details"' : ''}`;
    return `<label for="input">${escape(host.attr('label') ?? '')}</label>
      ${(host.constructor as typeof StandInField).control(host, attributes)}
      ${details ? `<div class="details" id="details">${escape(details)}</div>` : ''}
      ${error ? `<div class="error" id="error">${escape(error)}</div>` : ''}`;
  };

  override connectedCallback(): void {
    if (!this.shadowRoot && this.hasAttribute('value')) this.#value = this.getAttribute('value') ?? '';
    super.connectedCallback();
  }

  override afterRender(): void {
    const input = this.input;
    input.value = this.#value;
    input.addEventListener('input', () => {
      this.#value = input.value;
      this.#internals.setFormValue(this.#value);
    });
    input.addEventListener('change', () => this.dispatchEvent(new Event('change', { bubbles: true })));
    input.addEventListener('keydown', (event) => {
      // Enter submits the form, as in a native text field; a text area takes it as a new line.
      if ((event as KeyboardEvent).key === 'Enter' && input.type !== 'date' && input.type !== 'textarea')
        this.closest('form')?.requestSubmit();
    });
  }

  get input(): HTMLInputElement | HTMLTextAreaElement {
    return this.shadowRoot!.querySelector<HTMLInputElement | HTMLTextAreaElement>('#input')!;
  }

  get value(): string {
    return this.#value;
  }
  set value(value: string) {
    this.#value = value ?? '';
    this.#internals.setFormValue(this.#value);
    if (this.shadowRoot) this.input.value = this.#value;
  }
  get disabled(): boolean {
    return this.flag('disabled');
  }
  set disabled(value: boolean) {
    this.toggleAttribute('disabled', value);
  }
  get error(): string {
    return this.attr('error') ?? '';
  }
  set error(value: string) {
    if (value) this.setAttribute('error', value);
    else this.removeAttribute('error');
  }
  override focus(): void {
    this.input?.focus();
  }
}
reflectAttributes(StandInField);
customElements.define('s-text-field', class extends StandInField {});
customElements.define(
  's-password-field',
  class extends StandInField {
    static override inputType = 'password';
  },
);
customElements.define(
  's-search-field',
  class extends StandInField {
    static override inputType = 'search';
  },
);
customElements.define(
  's-date-field',
  class extends StandInField {
    static override inputType = 'date';
  },
);
customElements.define(
  's-number-field',
  class extends StandInField {
    static override inputType = 'number';
  },
);

/** A multi-line field: a <textarea> of `rows` lines, at most `maxlength` characters. */
class STextArea extends StandInField {
  static override observedAttributes = [...StandInField.observedAttributes, 'rows', 'maxlength'];
  static override control = (host: StandInElement, attributes: string): string => {
    const rows = Number(host.attr('rows') ?? '2');
    const max = host.attr('maxlength');
    return `<textarea id="input" rows="${Number.isInteger(rows) && rows > 0 ? rows : 2}"${max ? ` maxlength="${escape(max)}"` : ''} ${attributes}></textarea>`;
  };
}
reflectAttributes(STextArea);
customElements.define('s-text-area', STextArea);

/**
 * A colour typed as text (#rrggbb), with a swatch of it beside; the real one also opens a picker and
 * gives its value in hex on change.
 */
class SColorField extends StandInField {
  static override observedAttributes = [...StandInField.observedAttributes, 'alpha'];
  static override css = `${fieldCss}
    .color { display: flex; gap: 8px; align-items: center; }
    .swatch { flex: none; inline-size: 28px; block-size: 28px; border-radius: 8px; border: 1px solid #8a8a8a; }
  `;
  static override control = (_host: StandInElement, attributes: string): string =>
    `<div class="color"><span class="swatch" aria-hidden="true"></span><input id="input" type="text" spellcheck="false" ${attributes}></div>`;

  override afterRender(): void {
    super.afterRender();
    this.#paint();
    this.input.addEventListener('input', () => this.#paint());
  }

  override get value(): string {
    return super.value;
  }
  override set value(value: string) {
    super.value = value;
    if (this.shadowRoot) this.#paint();
  }

  /** The swatch in the colour typed (white while it is none), through the CSSOM: the CSP refuses style attributes. */
  #paint(): void {
    const typed = this.value.trim();
    const swatch = this.shadowRoot!.querySelector<HTMLElement>('.swatch')!;
    swatch.style.background = /^#[0-9a-f]{3}([0-9a-f]{3})?$/i.test(typed) ? typed : '#fff';
  }
}
reflectAttributes(SColorField);
customElements.define('s-color-field', SColorField);

class SCheckbox extends StandInElement {
  static formAssociated = true;
  static override observedAttributes = ['label', 'details', 'error', 'disabled'];
  static override css = `
    :host { display: block; }
    .row { display: flex; gap: 8px; align-items: flex-start; }
    input { margin-block-start: 3px; }
    .details { color: #616161; }
  `;
  #internals = this.attachInternals();
  #checked = false;
  static override render: Render = (host) => {
    const details = host.attr('details');
    return `<div class="row"><input id="box" type="checkbox" ${host.flag('disabled') ? 'disabled' : ''}${details ? ' aria-describedby="details"' : ''}>
      <div><label for="box">${escape(host.attr('label') ?? '')}</label>${details ? `<div class="details" id="details">${escape(details)}</div>` : ''}</div></div>`;
  };
  override connectedCallback(): void {
    if (!this.shadowRoot && this.hasAttribute('checked')) this.#checked = true;
    super.connectedCallback();
  }
  override afterRender(): void {
    const box = this.shadowRoot!.querySelector('input')!;
    box.checked = this.#checked;
    box.addEventListener('change', () => {
      this.#checked = box.checked;
      this.#internals.setFormValue(this.#checked ? (this.attr('value') ?? 'on') : null);
      this.dispatchEvent(new Event('change', { bubbles: true }));
    });
  }
  get checked(): boolean {
    return this.#checked;
  }
  set checked(value: boolean) {
    this.#checked = Boolean(value);
    const box = this.shadowRoot?.querySelector('input');
    if (box) box.checked = this.#checked;
  }
  get disabled(): boolean {
    return this.flag('disabled');
  }
  set disabled(value: boolean) {
    this.toggleAttribute('disabled', value);
  }
}
reflectAttributes(SCheckbox);
customElements.define('s-checkbox', SCheckbox);

/** Options from light-DOM children (s-option / s-choice), re-read when they change. */
abstract class StandInChoices extends StandInElement {
  #observer = new MutationObserver(() => this.update());
  override connectedCallback(): void {
    super.connectedCallback();
    this.#observer.observe(this, {
      childList: true,
      subtree: true,
      attributes: true,
      characterData: true,
    });
  }
  disconnectedCallback(): void {
    this.#observer.disconnect();
  }
  options(tag: string): Array<{ value: string; text: string; selected: boolean; disabled: boolean }> {
    return [...this.querySelectorAll(tag)].map((o) => ({
      value: o.getAttribute('value') ?? '',
      text: o.textContent?.trim() ?? '',
      selected: o.hasAttribute('selected'),
      disabled: o.hasAttribute('disabled'),
    }));
  }
}

class SSelect extends StandInChoices {
  static formAssociated = true;
  static override observedAttributes = [
    'label',
    'details',
    'error',
    'disabled',
    'labelaccessibilityvisibility',
  ];
  static override css = fieldCss;
  #internals = this.attachInternals();
  #value: string | null = null;
  static override render: Render = (host) => {
    const select = host as SSelect;
    const options = select.options('s-option');
    const value = select.value;
    return `<label for="select">${escape(host.attr('label') ?? '')}</label>
      <select id="select" ${host.flag('disabled') ? 'disabled' : ''}>
      ${options.map((o) => `<option value="${escape(o.value)}"${o.value === value ? ' selected' : ''}${o.disabled ? ' disabled' : ''}>${escape(o.text)}</option>`).join('')}
      </select>
      ${host.attr('error') ? `<div class="error">${escape(host.attr('error')!)}</div>` : ''}`;
  };
  override afterRender(): void {
    const select = this.shadowRoot!.querySelector('select')!;
    select.addEventListener('change', () => {
      this.#value = select.value;
      this.#internals.setFormValue(this.#value);
      this.dispatchEvent(new Event('input', { bubbles: true }));
      this.dispatchEvent(new Event('change', { bubbles: true }));
    });
  }
  get value(): string {
    if (this.#value !== null) return this.#value;
    const options = this.options('s-option');
    return (options.find((o) => o.selected) ?? options[0])?.value ?? this.attr('value') ?? '';
  }
  set value(value: string) {
    this.#value = value;
    this.#internals.setFormValue(value);
    if (this.shadowRoot) this.update();
  }
  get disabled(): boolean {
    return this.flag('disabled');
  }
  set disabled(value: boolean) {
    this.toggleAttribute('disabled', value);
  }
}
reflectAttributes(SSelect);
customElements.define('s-select', SSelect);
define('s-option', { attributes: ['value', 'selected', 'disabled'] });

class SChoiceList extends StandInChoices {
  static formAssociated = true;
  static override observedAttributes = ['label', 'details', 'error', 'disabled', 'multiple', 'name'];
  static override css = `
    :host { display: block; }
    fieldset { border: 0; margin: 0; padding: 0; display: grid; gap: 6px; }
    legend { font-weight: 550; margin-block-end: 4px; padding: 0; }
    .row { display: flex; gap: 8px; align-items: flex-start; }
    input { margin-block-start: 3px; }
  `;
  #internals = this.attachInternals();
  #values: string[] | null = null;
  static override render: Render = (host) => {
    const list = host as SChoiceList;
    const type = host.flag('multiple') ? 'checkbox' : 'radio';
    const values = list.values;
    return `<fieldset ${host.flag('disabled') ? 'disabled' : ''}><legend>${escape(host.attr('label') ?? '')}</legend>
      ${list
        .options('s-choice')
        .map(
          (o, i) =>
            `<div class="row"><input type="${type}" name="choice" id="c${i}" value="${escape(o.value)}"${values.includes(o.value) ? ' checked' : ''}${o.disabled ? ' disabled' : ''}><label for="c${i}">${escape(o.text)}</label></div>`,
        )
        .join('')}</fieldset>`;
  };
  override afterRender(): void {
    for (const input of this.shadowRoot!.querySelectorAll('input')) {
      input.addEventListener('change', () => {
        this.#values = [...this.shadowRoot!.querySelectorAll('input')]
          .filter((i) => i.checked)
          .map((i) => i.value);
        this.#internals.setFormValue(this.#values.join(','));
        this.dispatchEvent(new Event('input', { bubbles: true }));
        this.dispatchEvent(new Event('change', { bubbles: true }));
      });
    }
  }
  get values(): string[] {
    return (
      this.#values ??
      this.options('s-choice')
        .filter((o) => o.selected)
        .map((o) => o.value)
    );
  }
  set values(values: string[]) {
    this.#values = [...values];
    if (this.shadowRoot) this.update();
  }
  get disabled(): boolean {
    return this.flag('disabled');
  }
  set disabled(value: boolean) {
    this.toggleAttribute('disabled', value);
  }
}
reflectAttributes(SChoiceList);
customElements.define('s-choice-list', SChoiceList);
define('s-choice', { attributes: ['value', 'selected', 'disabled'] });

/* ------------------------------------------------------------------ tables */

class STable extends StandInElement {
  static override observedAttributes = ['paginate', 'haspreviouspage', 'hasnextpage', 'loading'];
  static override role = 'table';
  static override css = `
    :host { display: block; min-inline-size: 0; }
    .scroll { overflow-x: auto; }
    .grid { display: table; inline-size: 100%; border-collapse: collapse; }
    .pager { display: flex; gap: 8px; justify-content: center; padding: 8px; }
    button { font: inherit; border: 1px solid #d4d4d4; border-radius: 8px; background: #fff; padding: 3px 10px; cursor: pointer; }
    button:disabled { opacity: .4; cursor: default; }
    @media (max-width: 640px) { .grid { display: block; } }
  `;
  static override render: Render = (host) => `
    <slot name="filters"></slot>
    <div class="scroll"><div class="grid"><slot></slot></div></div>
    ${
      host.flag('paginate')
        ? `<div class="pager"><button type="button" id="previous" aria-label="Previous page"${host.flag('haspreviouspage') ? '' : ' disabled'}>‹</button><button type="button" id="next" aria-label="Next page"${host.flag('hasnextpage') ? '' : ' disabled'}>›</button></div>`
        : ''
    }`;
  #observer = new MutationObserver(() => this.#labelCells());

  override connectedCallback(): void {
    super.connectedCallback();
    this.#observer.observe(this, { childList: true, subtree: true });
    this.#labelCells();
  }

  disconnectedCallback(): void {
    this.#observer.disconnect();
  }

  /** In the narrow (list) layout a cell under a `labeled` header shows that header's text before it. */
  #labelCells(): void {
    const headers = [...this.querySelectorAll(':scope > s-table-header-row > s-table-header')];
    for (const row of this.querySelectorAll(':scope > s-table-body > s-table-row')) {
      [...row.children].forEach((cell, i) => {
        const header = headers[i];
        const label = header?.getAttribute('listslot') === 'labeled' ? header.textContent?.trim() : '';
        if (label && cell.getAttribute('data-label') !== label) cell.setAttribute('data-label', label);
      });
    }
  }

  override afterRender(): void {
    this.shadowRoot!.getElementById('previous')?.addEventListener('click', () =>
      this.dispatchEvent(new Event('previouspage')),
    );
    this.shadowRoot!.getElementById('next')?.addEventListener('click', () =>
      this.dispatchEvent(new Event('nextpage')),
    );
  }
}
reflectAttributes(STable);
customElements.define('s-table', STable);

define('s-table-header-row', {
  role: 'row',
  css: ':host { display: table-row; background: #f7f7f7; } @media (max-width: 640px) { :host { display: none; } }',
});
define('s-table-header', {
  role: 'columnheader',
  attributes: ['format', 'listslot'],
  css: `:host { display: table-cell; padding: 6px 10px; font-weight: 550; color: #616161; text-align: start; white-space: nowrap; }
    :host([format="numeric"]) { text-align: end; }`,
});
define('s-table-body', {
  css: ':host { display: table-row-group; } @media (max-width: 640px) { :host { display: block; } }',
});
define('s-table-row', {
  role: 'row',
  css: `:host { display: table-row; border-block-start: 1px solid #ebebeb; }
    @media (max-width: 640px) { :host { display: grid; gap: 2px; padding: 10px 12px; border-block-start: 1px solid #ebebeb; } }`,
});
define('s-table-cell', {
  role: 'cell',
  css: `:host { display: table-cell; padding: 8px 10px; vertical-align: top; overflow-wrap: anywhere; }
    @media (max-width: 640px) {
      :host { display: block; padding: 0; }
      :host([data-label])::before { content: attr(data-label); display: block; color: #616161; font-size: 12px; margin-block-start: 4px; }
    }`,
});
