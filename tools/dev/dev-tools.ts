/** The shop `npm run dev` connects to the emulator's demo account, and `npm run dev:send` delivers for. */
export const devShopDomain = 'demo-shop.myshopify.com';
