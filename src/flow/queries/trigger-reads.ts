import type { DatabaseClient, Tx } from '../../db/client.js';
import type { FlowTriggerHandle } from '../triggers.js';

/**
 * What the Flow triggers' payloads are built from (src/flow/queue-triggers.ts): a tracker's parcel (its
 * number, carrier, shop domain and wanted lines) and the problems a sweep opened. Reads only; safe inside
 * the transaction that writes the change (pass its client).
 */

type Db = DatabaseClient | Tx;

/**
 * A tracker's number and carrier, its shop's domain and its active lines (fulfilment, order, carrier name),
 * oldest first: one read of Tracker with its Shop and TrackingLine rows. Null when the tracker is gone.
 */
export function trackerParcel(db: Db, trackerId: string) {
  return db.tracker.findUnique({
    where: { id: trackerId },
    select: {
      trackingNumber: true,
      provider: true,
      shop: { select: { domain: true } },
      lines: {
        where: { active: true },
        select: { fulfillmentId: true, orderId: true, carrierName: true },
        orderBy: [{ createdAt: 'asc' }, { fulfillmentId: 'asc' }],
      },
    },
  });
}

/**
 * Of these ShipmentProblem ids, those still open whose shop has a workflow on `handle`
 * (FlowTriggerInUse), each with its shop, kind and its tracker's stored read (status, detail, both
 * estimates, last event time).
 */
export function openProblemsOnTrigger(db: Db, problemIds: readonly string[], handle: FlowTriggerHandle) {
  return db.shipmentProblem.findMany({
    where: {
      id: { in: [...problemIds] },
      closedAt: null,
      shop: { flowTriggers: { some: { handle } } },
    },
    select: {
      id: true,
      shopId: true,
      kind: true,
      tracker: {
        select: {
          id: true,
          status: true,
          statusDetail: true,
          estimatedDelivery: true,
          predictedDelivery: true,
          lastEventAt: true,
        },
      },
    },
  });
}
