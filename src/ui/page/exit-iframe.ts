/**
 * GET /exitiframe's redirect (src/ui/auth/embedded-page.ts, `exitIframe`). That page's CSP runs no inline
 * script, so the redirect is this file, served from the app's own origin as a classic script after App
 * Bridge. It opens the URL the server validated (its own `data-target`) at the top: inside the admin's
 * iframe App Bridge carries `window.open(url, '_top')` out to the admin; at the top level the browser
 * navigates. Wrapped in a function: as a classic script its names would otherwise be globals beside App
 * Bridge's (or its stand-in's).
 */

(() => {
  const script = document.currentScript;
  const target = script instanceof HTMLScriptElement ? script.dataset.target : undefined;
  if (!target) return;
  const url = new URL(target, window.location.href);
  // Only a web address (the server sends its own /api/auth URL), never a javascript: or data: one.
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return;
  window.open(url.href, '_top');
})();
