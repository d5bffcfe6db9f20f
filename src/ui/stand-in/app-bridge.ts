/**
 * An offline stand-in for App Bridge (https://cdn.shopify.com/shopifycloud/app-bridge.js), served only
 * with ADMIN_UI_SCRIPTS=stand-in: in the browser tests, which cannot reach the platform's CDN, and in
 * offline development. It is not App Bridge: it plays the part of the admin around the app's frame just
 * enough for the page to run, and records every call so tests can check them.
 *
 * - `shopify.idToken()` answers the launch token (`id_token` on the first load, kept for the tab), or the
 *   token a test set; `fetch` to the app's own origin gets it as a bearer token and, on a 401 asking for
 *   a new session (X-Shopify-Retry-Invalid-Session-Request), is retried once, as App Bridge does.
 * - `shopify.toast.show` draws a toast; `shopify.saveBar.show/hide` show a `<ui-save-bar>` as a bar with
 *   its Save and Discard buttons; `shopify.loading` records.
 * - `<s-app-nav>` draws its links as the admin's app menu would; a click loads the app at that path with
 *   the current query, as App Bridge does by default (it sets the frame's URL).
 * - `window.__appBridgeStandIn` exposes the recorded calls and lets a test expire or renew the session.
 */

export {};

interface Recorded {
  api: string;
  args: unknown[];
}

const tokenKey = 'app-bridge-stand-in:id_token';
const calls: Recorded[] = [];
const record = (api: string, ...args: unknown[]) => calls.push({ api, args });

const query = new URLSearchParams(window.location.search);
const launchToken = query.get('id_token');
if (launchToken) sessionStorage.setItem(tokenKey, launchToken);
let tokenOverride: string | null = null;

function currentToken(): string {
  return tokenOverride ?? sessionStorage.getItem(tokenKey) ?? '';
}

function apiKey(): string {
  return document.querySelector('meta[name="shopify-api-key"]')?.getAttribute('content') ?? '';
}

/* ------------------------------------------------------------------ toasts */

let toastHost: HTMLElement | null = null;

function showToast(message: string, options: { isError?: boolean; duration?: number } = {}): string {
  record('toast.show', message, options);
  if (!toastHost) {
    toastHost = document.createElement('div');
    toastHost.className = 'stand-in-toasts';
    toastHost.setAttribute('role', 'status');
    toastHost.setAttribute('aria-live', 'polite');
    document.body.append(toastHost);
  }
  const toast = document.createElement('div');
  const id = `toast-${calls.length}`;
  toast.id = id;
  toast.className = options.isError ? 'stand-in-toast stand-in-toast-error' : 'stand-in-toast';
  toast.textContent = message;
  toastHost.append(toast);
  window.setTimeout(() => toast.remove(), options.duration ?? 5000);
  return id;
}

/* ------------------------------------------------------------------ save bar */

class UiSaveBar extends HTMLElement {
  #bar: HTMLElement | null = null;

  constructor() {
    super();
    // As in the admin, the element itself shows nothing: its buttons appear in the bar.
    this.attachShadow({ mode: 'open' });
  }

  get showing(): boolean {
    return this.#bar !== null;
  }

  show(): Promise<void> {
    if (this.#bar) return Promise.resolve();
    const bar = document.createElement('div');
    bar.className = 'stand-in-save-bar';
    bar.setAttribute('role', 'region');
    bar.setAttribute('aria-label', 'Unsaved changes');
    const text = document.createElement('span');
    text.textContent = 'Unsaved changes';
    bar.append(text);
    // The bar's buttons stand for the <button>s inside <ui-save-bar>: a click on one clicks the original.
    for (const original of this.querySelectorAll('button')) {
      const button = document.createElement('button');
      button.type = 'button';
      const primary = original.getAttribute('variant') === 'primary';
      button.textContent = original.textContent?.trim() || (primary ? 'Save' : 'Discard');
      button.className = primary ? 'stand-in-save' : 'stand-in-discard';
      button.disabled = original.disabled;
      button.addEventListener('click', () => original.click());
      bar.append(button);
    }
    document.body.prepend(bar);
    this.#bar = bar;
    return Promise.resolve();
  }

  hide(): Promise<void> {
    this.#bar?.remove();
    this.#bar = null;
    return Promise.resolve();
  }

  toggle(): Promise<void> {
    return this.showing ? this.hide() : this.show();
  }
}

function saveBarElement(id: string): UiSaveBar | null {
  const element = document.getElementById(id);
  return element instanceof UiSaveBar ? element : null;
}

/* ------------------------------------------------------------------ the app's menu */

class SAppNav extends HTMLElement {
  connectedCallback(): void {
    // Defined before the body is parsed: its links are not there yet.
    if (document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', () => this.connectedCallback(), { once: true });
      return;
    }
    if (this.shadowRoot) return;
    const root = this.attachShadow({ mode: 'open' });
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(`
      :host { display: block; background: #1a1a1a; padding: 0 12px; }
      nav { display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: center; min-height: 44px; }
      a { color: #e3e3e3; font: 500 13px/1.4 system-ui, sans-serif; text-decoration: none; padding: 6px 2px; }
      a[aria-current="page"] { color: #fff; border-bottom: 2px solid #fff; }
      a.app { font-weight: 650; color: #fff; margin-right: 8px; }
    `);
    root.adoptedStyleSheets = [sheet];
    const nav = document.createElement('nav');
    nav.setAttribute('aria-label', 'Tracksync');
    const home = this.querySelector('s-link[rel="home"]');
    const links: Array<{ href: string; text: string; app?: boolean }> = [
      { href: home?.getAttribute('href') ?? '/', text: home?.textContent?.trim() || 'Home', app: true },
      ...[...this.querySelectorAll('s-link:not([rel="home"])')].map((l) => ({
        href: l.getAttribute('href') ?? '/',
        text: l.textContent?.trim() ?? '',
      })),
    ];
    for (const link of links) {
      const a = document.createElement('a');
      a.href = `${link.href}${window.location.search}`;
      a.textContent = link.text;
      if (link.app) a.className = 'app';
      a.dataset.path = link.href;
      a.addEventListener('click', (event) => {
        // The page may route in place (it listens for shopify:navigate); otherwise the frame's URL is set.
        const navigate = new CustomEvent('shopify:navigate', {
          cancelable: true,
          detail: { href: link.href },
        });
        record('navigate', link.href);
        if (!document.dispatchEvent(navigate)) event.preventDefault();
      });
      nav.append(a);
    }
    root.append(nav);
    this.#markCurrent();
    // The page may move in place (History API): the current item follows it.
    for (const event of ['popstate', 'shopify:navigate'])
      window.addEventListener(event, () => this.#markCurrent());
    const { pushState } = history;
    history.pushState = (...args: Parameters<History['pushState']>) => {
      pushState.apply(history, args);
      this.#markCurrent();
    };
  }

  #markCurrent(): void {
    for (const a of this.shadowRoot?.querySelectorAll('a') ?? []) {
      const current = a.dataset.path === window.location.pathname;
      if (current) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
  }
}

/* ------------------------------------------------------------------ fetch */

const nativeFetch = window.fetch.bind(window);

async function authenticatedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  if (new URL(request.url).origin !== window.location.origin) return nativeFetch(request);
  const send = (token: string) => {
    const copy = request.clone();
    const headers = new Headers(copy.headers);
    if (!headers.has('authorization') && token) headers.set('authorization', `Bearer ${token}`);
    return nativeFetch(new Request(copy, { headers }));
  };
  const response = await send(currentToken());
  if (response.status === 401 && response.headers.get('X-Shopify-Retry-Invalid-Session-Request') === '1') {
    record('fetch.retry', request.url);
    return send(currentToken());
  }
  return response;
}

/* ------------------------------------------------------------------ the global */

const shopify = {
  config: {
    apiKey: apiKey(),
    shop: query.get('shop') ?? undefined,
    host: query.get('host') ?? undefined,
    locale: 'en-GB',
  },
  origin: window.location.origin,
  ready: Promise.resolve(),
  idToken: () => {
    record('idToken');
    return Promise.resolve(currentToken());
  },
  toast: {
    show: showToast,
    hide: (id: string) => {
      record('toast.hide', id);
      document.getElementById(id)?.remove();
    },
  },
  saveBar: {
    show: (id: string) => {
      record('saveBar.show', id);
      return saveBarElement(id)?.show() ?? Promise.resolve();
    },
    hide: (id: string) => {
      record('saveBar.hide', id);
      return saveBarElement(id)?.hide() ?? Promise.resolve();
    },
    toggle: (id: string) => {
      record('saveBar.toggle', id);
      return saveBarElement(id)?.toggle() ?? Promise.resolve();
    },
    leaveConfirmation: () => Promise.resolve(),
  },
  loading: (isLoading?: boolean) => record('loading', isLoading ?? true),
};

Object.assign(window, {
  shopify,
  fetch: authenticatedFetch,
  __appBridgeStandIn: {
    calls,
    /** From now on idToken() answers this token (a test's expired or foreign one). */
    setToken(token: string | null) {
      tokenOverride = token;
    },
  },
});

customElements.define('ui-save-bar', UiSaveBar);
customElements.define('s-app-nav', SAppNav);

const sheet = new CSSStyleSheet();
sheet.replaceSync(`
  .stand-in-toasts { position: fixed; inset-block-end: 16px; inset-inline: 0; display: grid; justify-items: center; gap: 8px; z-index: 1000; pointer-events: none; }
  .stand-in-toast { background: #1a1a1a; color: #fff; border-radius: 10px; padding: 10px 16px; font: 500 13px/1.4 system-ui, sans-serif; max-inline-size: min(90vw, 480px); }
  .stand-in-toast-error { background: #8e1f0b; }
  .stand-in-save-bar { position: sticky; inset-block-start: 0; z-index: 999; display: flex; flex-wrap: wrap; gap: 8px; align-items: center; justify-content: flex-end; background: #1a1a1a; color: #fff; padding: 8px 12px; font: 500 13px/1.4 system-ui, sans-serif; }
  .stand-in-save-bar span { margin-inline-end: auto; }
  .stand-in-save-bar button { font: inherit; border-radius: 8px; padding: 4px 12px; border: 1px solid #666; background: #303030; color: #fff; cursor: pointer; }
  .stand-in-save-bar .stand-in-save { background: #fff; color: #1a1a1a; }
`);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
