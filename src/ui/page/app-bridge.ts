/**
 * App Bridge as the page uses it (types: @shopify/app-bridge-types). The platform loads it before the
 * page (its script tag is first in <head>); when it is missing (a local page opened without the admin or
 * the stand-in) the page still works: outcomes are written to a live region instead of a toast.
 */

export function appBridge(): ShopifyGlobal | null {
  return typeof window.shopify === 'object' && window.shopify !== null ? window.shopify : null;
}

type ShopifyGlobal = typeof window.shopify;

/** A short outcome ("Settings saved") as a toast; errors in the error style. */
export function toast(message: string, options: { isError?: boolean } = {}): void {
  const bridge = appBridge();
  if (bridge) {
    bridge.toast.show(message, {
      isError: options.isError ?? false,
      duration: options.isError ? 8000 : 4000,
    });
    return;
  }
  let region = document.getElementById('toast-fallback');
  if (!region) {
    region = document.createElement('div');
    region.id = 'toast-fallback';
    region.setAttribute('role', 'status');
    region.className = 'visually-hidden';
    document.body.append(region);
  }
  region.textContent = message;
}

export function showSaveBar(id: string): void {
  void appBridge()?.saveBar.show(id);
}

export function hideSaveBar(id: string): void {
  void appBridge()?.saveBar.hide(id);
}

/** The store's admin page for an order: App Bridge opens `shopify://admin/…` links in the admin. */
export function adminOrderUrl(orderId: string): string {
  return `shopify://admin/orders/${encodeURIComponent(orderId)}`;
}
