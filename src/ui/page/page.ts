import type { PageKey, Params } from './router.js';

/** What a page module is given. */
export interface PageContext {
  /** The page's own query parameters (filters, page number). */
  params: URLSearchParams;
  /** Moves to another page (or this one with other parameters), as a link would. */
  go(key: PageKey, params?: Params): void;
  /** Records this page's parameters in the address without moving (filters), so back and reload keep them. */
  setParams(params: Params): void;
}

/** What a page module draws: its element at once, its data as it arrives. */
export interface PageView {
  element: HTMLElement;
  /** Settles when the page's first data has been drawn (or failed to load). */
  ready: Promise<unknown>;
  /** Asked before leaving: false keeps the merchant here (unsaved changes they chose to keep). */
  canLeave?(): boolean;
}

export type PageModule = (context: PageContext) => PageView;
