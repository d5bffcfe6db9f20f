import { estimateOf } from '../../shipments/estimates.js';
import type { Tracker } from '../../generated/sqlite/client.js';
import { type LastEventView, lastEventOf, type StatusView, statusView } from './shipment-status.js';
import { type TrackerState, trackerStateOf } from './tracker-state.js';

export interface ShipmentRow {
  /** Null for a line still waiting for its carrier to be mapped. */
  id: string | null;
  trackingNumber: string;
  provider: string | null;
  carrierName: string | null;
  state: TrackerState;
  lastError: string | null;
  lastErrorReason: string | null;
  /** The parcel's status as last read from the service; null until it is first read. */
  status: StatusView | null;
  /** The service's estimated delivery date, as given. */
  estimatedDelivery: string | null;
  lastEvent: LastEventView | null;
  /** When the status was last read from the service (ISO). */
  statusCheckedAt: string | null;
}

/** A tracker as the list shows it: where its sync stands and what the service last said of the parcel. */
export function shipmentRowOf(
  tracker: Tracker,
  carrierName: string | null,
  ended: string | null = null,
): ShipmentRow {
  const estimate = estimateOf(tracker, ended);
  return {
    id: tracker.id,
    trackingNumber: tracker.trackingNumber,
    provider: tracker.provider,
    carrierName,
    state: trackerStateOf(tracker),
    lastError: tracker.lastError,
    lastErrorReason: tracker.lastErrorReason,
    status: statusView(tracker.status, tracker.statusDetail, ended),
    estimatedDelivery: estimate && !estimate.predicted ? estimate.date : null,
    lastEvent: lastEventOf(tracker),
    statusCheckedAt: tracker.statusCheckedAt?.toISOString() ?? null,
  };
}

export { listShipments, shipmentsQuery, type ShipmentsQuery } from './shipment-list.js';
export type { ShipmentListRow, ShipmentsList } from './shipment-list.js';
