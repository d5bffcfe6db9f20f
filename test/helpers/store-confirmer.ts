import type { FulfillmentConfirmer } from '../../src/shopify/confirm-fulfillments.js';

/**
 * The stores' side of fulfilment confirmation as a port, for tests that drive the delivery processor
 * directly: each store holds the fulfilments listed for it, or every one it is asked about ('every').
 * The real path (the Admin API through the library, to the fake store) is exercised end to end in
 * test/webhooks/cross-shop.test.ts. Every question is kept in `asked`.
 */
export function storeHolding(
  held: 'every' | Record<string, readonly string[]> = 'every',
): FulfillmentConfirmer & { asked: Array<{ shop: string; ids: string[] }> } {
  const asked: Array<{ shop: string; ids: string[] }> = [];
  return {
    asked,
    async confirm(shop, ids) {
      asked.push({ shop, ids: [...ids] });
      const list = held === 'every' ? ids : (held[shop] ?? []);
      return { ok: true, known: new Set(ids.filter((id) => list.includes(id))) };
    },
  };
}
