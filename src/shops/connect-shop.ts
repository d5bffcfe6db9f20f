import { z } from 'zod';
import { storableString } from '../db/storable-text.js';
import { connectionSchema } from '../settings/connection.js';
import type { TrackingClient } from '../tracking/client.js';
import type { Shop, ShopRepository } from './shop-repository.js';

export const connectInput = z.object({
  domain: storableString()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9][a-z0-9-]*\.myshopify\.com$/, 'must be a *.myshopify.com domain'),
  apiKey: connectionSchema.shape.apiKey,
  appName: connectionSchema.shape.appName,
});
export type ConnectInput = z.input<typeof connectInput>;

export type ConnectResult =
  | { ok: true; shop: Shop }
  | { ok: false; reason: 'invalid_input' | 'ssl_error' | 'unauthorized' | 'unreachable'; message: string };

/**
 * Checks credentials against the service, then stores them (sealed) and lifts the shop's pause so its
 * queued work resumes. The check is a `get` of a tracking number that cannot exist: it costs no balance,
 * and the service answers "does not exist" only to a key and app name it accepts.
 */
export async function connectShop(
  deps: { client: TrackingClient; shops: ShopRepository },
  input: ConnectInput,
): Promise<ConnectResult> {
  const parsed = connectInput.safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      reason: 'invalid_input',
      message: parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`).join('; '),
    };
  }
  const { domain, apiKey, appName } = parsed.data;
  const probe = await deps.client.getShipment(
    { apiKey, appName },
    { trackingNumber: 'TRACKSYNC-CONNECTION-CHECK' },
  );
  if (!probe.ok && probe.error.reason !== 'tracking_not_found') {
    const { reason } = probe.error;
    if (reason === 'ssl_error') {
      return {
        ok: false,
        reason,
        message: 'The tracking service refuses this store: the store URL must be HTTPS (ssl_error).',
      };
    }
    if (reason === 'unauthorized' || reason === 'app_name_not_found') {
      return {
        ok: false,
        reason: 'unauthorized',
        message: 'The tracking service does not know this API key and app name (unauthorized).',
      };
    }
    return {
      ok: false,
      reason: 'unreachable',
      message: `Could not check the credentials: ${probe.error.message}`,
    };
  }
  const shop = await deps.shops.saveCredentials(domain, { apiKey, appName });
  return { ok: true, shop };
}
