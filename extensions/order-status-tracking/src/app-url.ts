/**
 * The app's public URL (shopify.app.toml `application_url`): the extension asks it for a fulfilment's
 * parcels (`GET <appUrl>/customer-account/parcels`). Replace it with your app's, as in shopify.app.toml;
 * test/extensions/order-status-extension.test.ts holds the two together and the toml's note beside them.
 */
export const appUrl = 'https://tracksync.example.com';
