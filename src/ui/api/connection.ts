import type { AppContext } from '../../context/app-context.js';
import type { ConnectionInput } from '../../settings/connection.js';
import { connectShop } from '../../shops/connect-shop.js';
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
  ctx: Pick<AppContext, 'client' | 'shops'>,
  domain: string,
  /** Parsed with connectionSchema (src/settings/connection.ts): the shop is the session's, never the body's. */
  body: ConnectionInput,
): Promise<SaveConnectionResult> {
  const result = await connectShop(ctx, { domain, apiKey: body.apiKey, appName: body.appName });
  if (!result.ok) return { ok: false, reason: result.reason, message: result.message };
  return { ok: true, shop: overviewOf(result.shop) };
}
