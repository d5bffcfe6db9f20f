import type { ConnectionInput } from '../../settings/connection.js';
import { connectShop } from '../../shops/connect-shop.js';
import type { ShopRepository } from '../../shops/shop-repository.js';
import type { TrackingClient } from '../../tracking/client.js';
import { overviewOf, type ShopOverview } from './shop-overview.js';

export type SaveConnectionResult =
  | { ok: true; shop: ShopOverview }
  | {
      ok: false;
      reason: 'ssl_error' | 'unauthorized' | 'unreachable' | 'invalid_input';
      message: string;
    };

/** Checks the key and app name live with the service, then stores them sealed and lifts the pause. */
export async function saveConnection(
  deps: { client: TrackingClient; shops: ShopRepository },
  domain: string,
  /** Parsed with connectionSchema (src/settings/connection.ts): the shop is the session's, never the body's. */
  body: ConnectionInput,
): Promise<SaveConnectionResult> {
  const result = await connectShop(deps, { domain, apiKey: body.apiKey, appName: body.appName });
  if (!result.ok) return { ok: false, reason: result.reason, message: result.message };
  return { ok: true, shop: overviewOf(result.shop) };
}
