import type { AppContext } from '../../context/app-context.js';
import { queueShipmentChanges } from '../../flow/queue-triggers.js';
import {
  lineOfTracker,
  shopTracker,
  storeEventsOfTracker,
  wantedFulfillmentsOf,
} from '../../shipments/queries/shipment-detail.js';
import type { ShopRepository } from '../../shops/shop-repository.js';
import type { StoredEvent } from '../../shipments/status.js';
import type { TrackingEvent, TrackingLocation } from '../../tracking/types.js';
import { currentShop } from './current-shop.js';
import { type StatusView, statusView, storedEventsOf } from './shipment-status.js';
import { type ShipmentRow, shipmentRowOf } from './shipments.js';
import { explainShopPause } from '../../shops/pause-reasons.js';
import { storeShipmentRead } from '../../shipments/poll-statuses.js';
import { type Estimate, estimateOf } from '../../shipments/estimates.js';

export interface ShipmentDetail {
  tracker: ShipmentRow & { id: string; provider: string; orderId: string; orderName: string | null };
  shipment: {
    status: string;
    /** The live status in words (as the list shows stored ones). */
    statusView: StatusView | null;
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
  /**
   * The estimate shown: the service's, else one predicted from the shop's deliveries (`predicted`); none for
   * a tracker the service cannot follow. After a live read, as that read stored it.
   */
  estimate: Estimate | null;
  /**
   * What tracksync last read from the service and stored (null when it never read it): the page shows it
   * when the live read fails, and it is what the store's timeline was written from.
   */
  stored: {
    status: StatusView | null;
    estimatedDelivery: string | null;
    lastEventAt: string | null;
    lastEventMessage: string | null;
    lastEventLocation: string | null;
    checkedAt: string | null;
    /** Oldest first, as stored. */
    events: StoredEvent[];
  } | null;
  /** The status changes written (or to be written) to the store's order timeline, newest first. */
  storeEvents: Array<{
    id: string;
    fulfillmentId: string;
    /** The platform's fulfilment event status (IN_TRANSIT, DELIVERED…). */
    status: string;
    happenedAt: string;
    message: string | null;
    /** pending | sending | sent | failed | skipped */
    state: string;
    error: string | null;
    attempts: number;
    updatedAt: string;
  }>;
}

/** At most this many store events are listed with a shipment. */
export const storeEventsShown = 50;

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
 * One of the shop's trackers with its live status from the service (timeline of events), which is then
 * stored as a poll would store it, the status and events stored before, and the events written to the
 * store. A failure of the service (or a shop with no
 * key) is reported in `error`, and the stored status still answers; null when the tracker is not this
 * shop's.
 */
export async function getShipmentDetail(
  ctx: Pick<AppContext, 'prisma' | 'shops' | 'client'>,
  domain: string,
  trackerId: string,
): Promise<ShipmentDetail | null> {
  const shop = await currentShop(ctx.shops, domain);
  const tracker = await shopTracker(ctx.prisma, shop.id, trackerId);
  if (!tracker) return null;
  const [line, storeEvents] = await Promise.all([
    lineOfTracker(ctx.prisma, shop.id, tracker.id),
    storeEventsOfTracker(ctx.prisma, shop.id, tracker.id, storeEventsShown),
  ]);
  const read = tracker.status !== null || tracker.statusCheckedAt !== null || tracker.events !== null;
  // A line that ended in the store (a cancelled fulfilment) shows its cancellation and no estimate.
  const ended = line && !line.active ? line.endedReason : null;
  const estimate = estimateOf(tracker, ended);
  // The service's own estimate, unless the tracker is one the service cannot follow (no estimate at all).
  const serviceEstimate = estimate && !estimate.predicted ? estimate.date : null;
  const detail: ShipmentDetail = {
    tracker: {
      ...shipmentRowOf(tracker, line?.carrierName ?? null, ended),
      estimatedDelivery: serviceEstimate,
      id: tracker.id,
      provider: tracker.provider,
      orderId: line?.orderId ?? tracker.orderKey,
      orderName: line?.orderName ?? null,
    },
    shipment: null,
    error: null,
    estimate,
    stored: read
      ? {
          status: statusView(tracker.status, tracker.statusDetail, ended),
          estimatedDelivery: serviceEstimate,
          lastEventAt: tracker.lastEventAt?.toISOString() ?? null,
          lastEventMessage: tracker.lastEventMessage,
          lastEventLocation: tracker.lastEventLocation,
          checkedAt: tracker.statusCheckedAt?.toISOString() ?? null,
          events: storedEventsOf(tracker.events),
        }
      : null,
    storeEvents: storeEvents.map((e) => ({
      id: e.id,
      fulfillmentId: e.fulfillmentId,
      status: e.status,
      happenedAt: e.happenedAt.toISOString(),
      message: e.message,
      state: e.state,
      error: e.error,
      attempts: e.attempts,
      updatedAt: e.updatedAt.toISOString(),
    })),
  };

  let credentials: Awaited<ReturnType<ShopRepository['credentials']>>;
  try {
    credentials = await ctx.shops.credentials(shop);
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
      message: explainShopPause('not_connected'),
    };
    return detail;
  }
  const result = await ctx.client.getShipment(credentials, {
    trackingNumber: tracker.trackingNumber,
    trackingProvider: tracker.provider,
  });
  if (!result.ok) {
    detail.error = { reason: result.error.reason, message: result.error.message };
    return detail;
  }
  const shipment = result.value;
  // What was read is stored as a poll stores it (status, history, store updates without duplicates), so
  // the list shows what the timeline shows. A poll holding the row stores its own read instead.
  const lines = await wantedFulfillmentsOf(ctx.prisma, shop.id, tracker.id);
  const reading = { prisma: ctx.prisma, onStored: queueShipmentChanges };
  const stored = await storeShipmentRead(reading, { ...tracker, lines, shop }, shipment, new Date(), {
    guard: { pollLeaseOwner: null },
  });
  const live = estimateOf({ ...stored.status, predictedDelivery: stored.predictedDelivery }, ended);
  if (stored.stored) detail.estimate = live;
  detail.shipment = {
    status: shipment.status,
    statusView: statusView(shipment.status, shipment.events.at(-1)?.statusDetail ?? null, ended),
    estimatedDeliveryDate: live && !live.predicted ? shipment.estimatedDeliveryDate : null,
    lastEventTime: shipment.lastEventTime,
    shippingService: shipment.shippingService,
    events: shipment.events.map(eventOf),
  };
  return detail;
}
