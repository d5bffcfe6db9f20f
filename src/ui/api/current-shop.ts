import type { Shop, ShopRepository } from '../../shops/shop-repository.js';

/**
 * The row of the shop the session token names. The token is verified before the page API runs, so a
 * domain with no row yet is a real store that has not been heard of: it is made, not connected.
 */
export async function currentShop(shops: ShopRepository, domain: string): Promise<Shop> {
  return (await shops.findByDomain(domain)) ?? (await shops.ensure(domain));
}
