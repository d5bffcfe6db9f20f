import { api } from './api-client.js';
import { h, replace } from './dom.js';
import type { PageModule, PageView } from './page.js';
import { activityPage } from './pages/activity.js';
import { attentionPage } from './pages/attention.js';
import { overviewPage } from './pages/overview.js';
import { settingsPage } from './pages/settings.js';
import { shipmentsPage } from './pages/shipments.js';
import { trackingPagePage } from './pages/tracking-page.js';
import { currentPage, type PageKey, pageHref, pageOfPath, pageParams, pages, type Params } from './router.js';
import { mountSessionBanner } from './session.js';

/**
 * The merchant's page: one document for the six pages the admin's app menu links to (Overview,
 * Needs attention, Shipments, Tracking page, Settings, Activity). Each page draws its frame at once and its sections
 * as their data arrives, so the first paint never waits for the API.
 */

const modules: Record<PageKey, PageModule> = {
  overview: overviewPage,
  attention: attentionPage,
  shipments: shipmentsPage,
  trackingPage: trackingPagePage,
  settings: settingsPage,
  activity: activityPage,
};

const root = document.getElementById('app')!;
const sessionBanner = h('div', { class: 'session-banner' });
let view: PageView | null = null;

function render(): void {
  const key = currentPage();
  document.title = `${pages[key].title} · Tracksync`;
  document.body.dataset.page = key;
  delete document.body.dataset.ready;
  view = modules[key]({
    params: pageParams(),
    go,
    setParams: (params) => history.replaceState(null, '', pageHref(key, params)),
  });
  replace(root, sessionBanner, view.element);
  const shown = view;
  void shown.ready.finally(() => {
    if (view === shown) document.body.dataset.ready = 'true';
  });
}

function go(key: PageKey, params: Params = {}): void {
  if (view?.canLeave && !view.canLeave()) return;
  history.pushState(null, '', pageHref(key, params));
  render();
  window.scrollTo({ top: 0 });
}

/** An in-app address (`/shipments?…`) → its page and parameters; anything else null. */
function inAppTarget(href: string): { key: PageKey; params: Params } | null {
  const url = new URL(href, window.location.href);
  if (url.origin !== window.location.origin) return null;
  const known = Object.values(pages).some((p) => p.path === url.pathname);
  if (!known) return null;
  const params: Params = {};
  for (const [name, value] of url.searchParams) params[name] = value;
  for (const name of ['shop', 'host', 'embedded', 'id_token', 'locale']) delete params[name];
  return { key: pageOfPath(url.pathname), params };
}

// Links inside the page (<a>, <s-link>, <s-button href>) to another page move in place.
document.addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
    return;
  for (const target of event.composedPath()) {
    if (!(target instanceof HTMLElement)) continue;
    const href = target.getAttribute('href');
    if (href === null || target.getAttribute('target')) continue;
    const inApp = inAppTarget(href);
    if (!inApp) return;
    event.preventDefault();
    go(inApp.key, inApp.params);
    return;
  }
});

// The admin's app menu (App Bridge) asks before setting the frame's URL: route in place instead.
document.addEventListener('shopify:navigate', (event) => {
  const href = (event as CustomEvent<{ href?: string }>).detail?.href ?? '';
  const inApp = inAppTarget(href);
  if (!inApp) return;
  event.preventDefault();
  go(inApp.key, inApp.params);
});

window.addEventListener('popstate', render);

mountSessionBanner(
  sessionBanner,
  async () => {
    try {
      await api('GET', '/shop');
      return true;
    } catch {
      return false;
    }
  },
  render,
);
render();
