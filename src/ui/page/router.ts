/**
 * The app's pages and their addresses. Each page has its own path (the admin's app menu links to it, and
 * the server answers the same document for each); moving between them from inside the page is done in
 * place (History API), keeping the admin's query (shop, host…) and the page's own (filters, page number).
 */

import { type AdminPageKey, adminPages } from '../vocabulary.js';

export type PageKey = AdminPageKey;

/** The pages' paths and titles: one list for the page, the server and the dev banner (src/ui/vocabulary.ts). */
export const pages: Record<PageKey, { path: string; title: string }> = adminPages;

/** The admin's own query parameters, kept on every move. */
const adminParams = ['shop', 'host', 'embedded', 'id_token', 'locale'];

export function pageOfPath(pathname: string): PageKey {
  const found = (Object.keys(pages) as PageKey[]).find((key) => pages[key].path === pathname);
  return found ?? 'overview';
}

export function currentPage(): PageKey {
  return pageOfPath(window.location.pathname);
}

/** The page's own query (filters…), without the admin's. */
export function pageParams(): URLSearchParams {
  const params = new URLSearchParams(window.location.search);
  for (const name of adminParams) params.delete(name);
  return params;
}

export type Params = Record<string, string | number | null | undefined>;

/** The address of a page with its own parameters (empty ones left out), keeping the admin's. */
export function pageHref(key: PageKey, params: Params = {}): string {
  const current = new URLSearchParams(window.location.search);
  const query = new URLSearchParams();
  for (const name of adminParams) {
    const value = current.get(name);
    if (value !== null) query.set(name, value);
  }
  for (const [name, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== '') query.set(name, String(value));
  }
  const search = query.toString();
  return `${pages[key].path}${search ? `?${search}` : ''}`;
}
