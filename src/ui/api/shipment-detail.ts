import type { DatabaseClient } from '../../db/client.js';
import type { ShopRepository } from '../../shops/shop-repository.js';
import type { TrackingClient } from '../../tracking/client.js';
import type { TrackingEvent, TrackingLocation } from '../../tracking/types.js';
import { currentShop } from './current-shop.js';
import type { ShipmentRow } from './shipments.js';
import { trackerStateOf } from './tracker-state.js';

export interface ShipmentDetail {
  tracker: ShipmentRow & { id: string; provider: string; orderId: string; orderName: string | null };
  shipment: {
    status: string;
    estimatedDeliveryDate: string | null;
    lastEventTime: string | null;
    shippingService: string | null;
    events: Array<{
      message: string;
      status: string;
      statusDetail: string | null;
      datetime: string;
      location: string | null;
    }>;
  } | null;
  error: { reason: string; message: string } | null;
}

/** `Louisville, KY, 40003, US`; null when the service gave no part of it. */
export function locationText(location: TrackingLocation | null): string | null {
  if (!location) return null;
  const parts = [location.city, location.state, location.zip, location.country]
    .map((p) => p?.trim() ?? '')
    .filter((p) => p !== '');
  return parts.length > 0 ? parts.join(', ') : null;
}

function eventOf(event: TrackingEvent) {
  return {
    message: event.message,
    status: event.status,
    statusDetail: event.statusDetail,
    datetime: event.datetime,
    location: locationText(event.location),
  };
}

/**
 * One of the shop's trackers with its live status from the service (timeline of events). A failure of
 * the service (or a shop with no key) is reported in `error`; null when the tracker is not this shop's.
 */
export async function getShipmentDetail(
  deps: { prisma: DatabaseClient; shops: ShopRepository; client: TrackingClient },
  domain: string,
  trackerId: string,
): Promise<ShipmentDetail | null> {
  const shop = await currentShop(deps.shops, domain);
  const tracker = await deps.prisma.tracker.findFirst({ where: { id: trackerId, shopId: shop.id } });
  if (!tracker) return null;
  const line = await deps.prisma.trackingLine.findFirst({
    where: { trackerId: tracker.id, shopId: shop.id },
    orderBy: [{ active: 'desc' }, { updatedAt: 'desc' }],
  });
  const detail: ShipmentDetail = {
    tracker: {
      id: tracker.id,
      trackingNumber: tracker.trackingNumber,
      provider: tracker.provider,
      carrierName: line?.carrierName ?? null,
      state: trackerStateOf(tracker),
      lastError: tracker.lastError,
      lastErrorReason: tracker.lastErrorReason,
      orderId: line?.orderId ?? tracker.orderKey,
      orderName: line?.orderName ?? null,
    },
    shipment: null,
    error: null,
  };

  let credentials: Awaited<ReturnType<ShopRepository['credentials']>>;
  try {
    credentials = await deps.shops.credentials(shop);
  } catch {
    detail.error = {
      reason: 'credentials_unreadable',
      message: 'The stored API key cannot be read; save the connection again.',
    };
    return detail;
  }
  if (!credentials) {
    detail.error = {
      reason: 'not_connected',
      message: 'No tracking service API key is stored for this store yet.',
    };
    return detail;
  }
  const result = await deps.client.getShipment(credentials, {
    trackingNumber: tracker.trackingNumber,
    trackingProvider: tracker.provider,
  });
  if (!result.ok) {
    detail.error = { reason: result.error.reason, message: result.error.message };
    return detail;
  }
  const shipment = result.value;
  detail.shipment = {
    status: shipment.status,
    estimatedDeliveryDate: shipment.estimatedDeliveryDate,
    lastEventTime: shipment.lastEventTime,
    shippingService: shipment.shippingService,
    events: shipment.events.map(eventOf),
  };
  return detail;
}
