import '@shopify/ui-extensions';
import type { Api } from '@shopify/ui-extensions/customer-account.order-status.fulfillment-details.render-after';

// The `shopify` global of the module the target loads, typed by the package for that target (the form
// Shopify CLI writes for an extension's modules).
declare module './src/index.tsx' {
  const shopify: Api;
  const globalThis: { shopify: typeof shopify };
}
