import { queueShipmentChanges } from '../flow/queue-triggers.js';
import type { DatabaseClient } from '../db/client.js';
import type { Shop } from '../generated/sqlite/client.js';
import type { Logger } from '../logger.js';
import { trackingPageRefreshes } from '../observability/metrics.js';
import { storeShipmentRead } from '../shipments/poll-statuses.js';
import { trackersOfOrder } from '../shipments/queries/shopper-lookups.js';
import { readOrderShipments } from '../shipments/read-order.js';
import { isFinalStatus } from '../shipments/status.js';
import type { ShopRepository } from '../shops/shop-repository.js';
import type { TrackingClient } from '../tracking/client.js';
import { safeReason } from '../errors/safe-reason.js';

/**
 * Fresh data for the shoppers' page, cheaply. When the newest stored status of an order's parcels is
 * older than `staleAfterMs`, the order is read again with ONE `shipment/by-order-id` call (not one `get`
 * per parcel) and what it says is stored the way the poller stores a read (storeShipmentRead: status,
 * history, store updates without duplicates). Lookups of one order at the same moment share one call;
 * after a call that failed the order is not asked again for `retryAfterMs`. The page waits at most
 * `waitMs` for it and otherwise shows what is stored (the read still completes and is stored).
 *
 * An order whose parcels are all in a final status (delivered, returned, expired, …) is never read
 * again: nothing is left to learn, and the poller stopped reading it too. Staleness is judged on the
 * parcels still under way. Each call takes one from the shop's budget of service calls a minute
 * (`allowCall`); when it is spent the page shows what is stored.
 */

export interface OrderRefresher {
  /**
   * Refreshes the shop's order (by its order key, the order id sent to the service) when stale. True when
   * a read was stored within the wait (the page reads the order again), false when nothing changed.
   */
  refresh(shop: Shop, orderKey: string): Promise<boolean>;
}

export interface OrderRefresherDeps {
  prisma: DatabaseClient;
  shops: ShopRepository;
  client: TrackingClient;
  logger: Logger;
  staleAfterMs: number;
  /** Asked before each service call (the shop's per-minute budget, src/proxy/lookup-limits.ts); none: no limit. */
  allowCall?: (shopId: string) => Promise<boolean>;
  waitMs?: number;
  retryAfterMs?: number;
  now?: () => number;
}

export function createOrderRefresher(deps: OrderRefresherDeps): OrderRefresher {
  const now = deps.now ?? Date.now;
  const inFlight = new Map<string, Promise<boolean>>();
  const failedUntil = new Map<string, number>();

  async function read(shop: Shop, orderKey: string): Promise<boolean> {
    const trackers = await trackersOfOrder(deps.prisma, shop.id, orderKey);
    const underWay = trackers.filter((t) => !isFinalStatus(t.status));
    if (underWay.length === 0) return false;
    const newest = Math.max(...underWay.map((t) => t.statusCheckedAt?.getTime() ?? 0));
    if (now() - newest < deps.staleAfterMs) return false;
    let credentials: Awaited<ReturnType<ShopRepository['credentials']>>;
    try {
      credentials = await deps.shops.credentials(shop);
    } catch {
      return false;
    }
    if (!credentials) return false;
    if (deps.allowCall && !(await deps.allowCall(shop.id))) {
      trackingPageRefreshes.inc({ outcome: 'over_limit' });
      return false;
    }
    trackingPageRefreshes.inc({ outcome: 'read' });
    const result = await readOrderShipments(deps.client, credentials, orderKey, trackers, {
      fullReadOnNews: false,
    });
    if (!result.ok) {
      failedUntil.set(`${shop.id}:${orderKey}`, now() + (deps.retryAfterMs ?? 60_000));
      deps.logger.info(
        { shop: shop.domain, reason: result.error.reason },
        'tracking page: order read failed',
      );
      return false;
    }
    const at = new Date(now());
    // A parcel the listing does not hold is left to the poller (it tells "gone from the service" apart).
    for (const tracker of trackers) {
      const read = result.read.get(tracker.id);
      if (!read) continue;
      await storeShipmentRead(
        { prisma: deps.prisma, onStored: queueShipmentChanges },
        { ...tracker, shop },
        read.shipment,
        at,
        {
          guard: { pollLeaseOwner: null },
          listing: read.listing,
        },
      );
    }
    return true;
  }

  return {
    async refresh(shop, orderKey) {
      const key = `${shop.id}:${orderKey}`;
      if ((failedUntil.get(key) ?? 0) > now()) return false;
      let running = inFlight.get(key);
      if (!running) {
        running = read(shop, orderKey)
          .catch((error: unknown) => {
            deps.logger.warn(
              { shop: shop.domain, err: safeReason(error) },
              'tracking page: order refresh failed',
            );
            return false;
          })
          .finally(() => inFlight.delete(key));
        inFlight.set(key, running);
      }
      const waitMs = deps.waitMs ?? 2_000;
      let timer: NodeJS.Timeout | undefined;
      const stored = await Promise.race([
        running,
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), waitMs);
        }),
      ]);
      clearTimeout(timer);
      return stored;
    },
  };
}
