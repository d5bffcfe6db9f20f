import type { DatabaseProvider } from '../db/provider.js';
import type { Prisma } from '../generated/sqlite/client.js';
import type { Shipment, TrackingEvent } from '../tracking/types.js';
import { finalStatuses, isFinalStatus } from './status-table.js';
import { parseServiceTime, type StatusChange, statusChanges } from './status.js';

/**
 * What one read of a shipment (a poll, a push, a shopper's or merchant's look: all stored through
 * storeShipmentRead) may do to a parcel's history, whoever sent it: a push URL and service key in the wrong
 * hands, or a faulty service.
 *
 * - Events dated more than `maxEventLeadMs` ahead of now are refused: dropped from the read before anything
 *   is derived from it. The service gives times without a zone (read as UTC), so a carrier writing local
 *   time east of UTC is up to 14 h "ahead" (UTC+14, Kiribati): that, and five minutes of clock skew, is the
 *   slack. Anything further is garbage, and letting it through froze the parcel (no read ever writes older
 *   over newer).
 * - Ties at the same instant follow the lifecycle: a final status is never undone by a non-final one at the
 *   same time (`readSupersedes`). Times are instants, whatever zone offset they were written with.
 * - One read queues at most `maxStoreEventsPerRead` store events per fulfilment: the newest platform status
 *   changes of its history (`storeEventChanges`).
 */

/** An event more than this far ahead of now is refused: the furthest zone east of UTC (+14 h) and a skew. */
export const maxEventLeadMs = 14 * 3_600_000 + 5 * 60_000;

/**
 * The service's clock, when it is not ours: the local emulator's (`npm run dev`, the tests), whose virtual
 * clock runs fast or is moved on, so that its events are dated ahead of the app's clock. Set by whoever
 * runs an emulator in this process, as the fake store sets the Admin API's fetch; the real service's clock
 * is ours, so production never sets it.
 */
let serviceClock: (() => number) | null = null;

export function setServiceClock(clock: (() => number) | null): void {
  serviceClock = clock;
}

/** The latest time an event may have: `maxEventLeadMs` past now, by our clock or the service's if that runs ahead. */
function latestAllowed(now: Date): number {
  return Math.max(now.getTime(), serviceClock?.() ?? -Infinity) + maxEventLeadMs;
}

/**
 * The newest status changes of one read queued for the store, per fulfilment. A full lifecycle with a delay
 * and a failed attempt has about this many; a read usually brings one or two new ones (the rest are
 * queued already and skipped by their key).
 */
export const maxStoreEventsPerRead = 8;

export interface BoundedRead {
  /** The shipment as it may be applied: the same object when nothing was refused. */
  shipment: Shipment;
  /** Events (and a `last_event_time`) refused for being too far ahead. */
  refused: number;
  /** False when every dated event was refused: nothing of the read is applied. */
  usable: boolean;
}

/**
 * The read without its far-future events. When anything was refused, the shipment's own status and
 * `last_event_time` described the refused event, so both are taken from the newest event kept instead (the
 * rest of the history is applied); with no dated event left, the read is not usable at all.
 */
export function withoutFutureEvents(shipment: Shipment, now: Date): BoundedRead {
  const limit = latestAllowed(now);
  const tooLate = (text: string | null) => (parseServiceTime(text)?.getTime() ?? -Infinity) > limit;
  const kept: TrackingEvent[] = [];
  let newest: TrackingEvent | null = null;
  let newestAt = -Infinity;
  for (const event of shipment.events) {
    const at = parseServiceTime(event.datetime)?.getTime() ?? null;
    if (at !== null && at > limit) continue;
    kept.push(event);
    if (at !== null && at >= newestAt) {
      newest = event;
      newestAt = at;
    }
  }
  const refused = shipment.events.length - kept.length + (tooLate(shipment.lastEventTime) ? 1 : 0);
  if (refused === 0) return { shipment, refused, usable: true };
  return {
    shipment: {
      ...shipment,
      status: newest?.status ?? 'unknown',
      lastEventTime: newest?.datetime ?? null,
      events: kept,
      destinationEvents: shipment.destinationEvents.filter((e) => !tooLate(e.datetime)),
    },
    refused,
    usable: newest !== null,
  };
}

/** What the tie rule needs of a stored row or a read: the latest event's time and the status. */
export interface ReadPosition {
  lastEventAt: Date | null;
  status: string | null;
}

/**
 * Whether a read may be written over what is stored: it is newer; or it is at the same instant and does not
 * undo a final status with a non-final one. A read with no time says nothing about time: only over a row
 * with none. A stored time beyond the refusal limit (written before the rule existed) holds nothing back.
 * `readNotOlderWhere` is the same rule as a condition on the row.
 */
export function readSupersedes(stored: ReadPosition, read: ReadPosition, now: Date): boolean {
  const storedAt = stored.lastEventAt?.getTime() ?? null;
  if (storedAt === null || storedAt > latestAllowed(now)) return true;
  const readAt = read.lastEventAt?.getTime() ?? null;
  if (readAt === null || readAt < storedAt) return false;
  if (readAt > storedAt) return true;
  return isFinalStatus(read.status) || !isFinalStatus(stored.status);
}

/** readSupersedes as a condition on the tracker row (Prisma's where), so the write itself decides. */
export function readNotOlderWhere(read: ReadPosition, now: Date): Prisma.TrackerWhereInput {
  const frozen: Prisma.TrackerWhereInput = { lastEventAt: { gt: new Date(latestAllowed(now)) } };
  if (read.lastEventAt === null) return { OR: [{ lastEventAt: null }, frozen] };
  const sameInstant: Prisma.TrackerWhereInput = isFinalStatus(read.status)
    ? { lastEventAt: read.lastEventAt }
    : {
        lastEventAt: read.lastEventAt,
        OR: [{ status: null }, { status: { notIn: [...finalStatuses] } }],
      };
  return {
    OR: [{ lastEventAt: null }, frozen, { lastEventAt: { lt: read.lastEventAt } }, sameInstant],
  };
}

/**
 * The changes of a read's history that may be queued for the store: the newest `maxStoreEventsPerRead`.
 * Derived from the whole history every time, so a read of the same history queues the same rows (their key
 * skips them), and a history of thousands of flapping events costs a handful of store calls.
 */
export function storeEventChanges(events: readonly TrackingEvent[]): StatusChange[] {
  return statusChanges(events).slice(-maxStoreEventsPerRead);
}

/**
 * The condition under which a store fulfilment event is written (src/shipments/poll-statuses.ts, with
 * insertRows' `onlyIf`): its change is newer than what retention (src/jobs/retention.ts) deleted of its tracker. On PostgreSQL the
 * tracker is read under a share lock, so a delete in progress is waited for and its new mark seen.
 */
export function storeEventNotRetired(provider: DatabaseProvider): string {
  return provider === 'postgresql'
    ? `v."happenedAt" > COALESCE((SELECT t."storeEventsThrough" FROM "Tracker" AS t WHERE t."id" = v."trackerId" FOR SHARE), '-infinity'::timestamp(3))`
    : `v."happenedAt" > COALESCE((SELECT t."storeEventsThrough" FROM "Tracker" AS t WHERE t."id" = v."trackerId"), '')`;
}
