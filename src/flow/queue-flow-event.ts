import type { DatabaseClient, Tx } from '../db/client.js';
import { type FlowEventInput, queueFlowEvents, triggerInUse } from './queries/flow-events.js';

/**
 * The Flow outbox: a trigger to fire becomes a FlowEvent row, sent later by src/flow/send-flow-events.ts.
 * A row is written only while the shop has a workflow on that trigger (a FlowTriggerInUse row, kept by the
 * lifecycle callback: src/flow/lifecycle.ts), decided by the insert itself; a shop without one gets none.
 * The same fact twice (a duplicate push, a second read of one status) is one row: (shopId, handle,
 * dedupeKey) is unique and a repeat is skipped.
 */

export type QueueOutcome = 'queued' | 'duplicate' | 'not_in_use';

type Db = DatabaseClient | Tx;

/** Queues one trigger for a shop: written, already there, or not written (no enabled workflow uses it). */
export async function queueFlowEvent(
  db: Db,
  event: FlowEventInput,
  now: Date = new Date(),
): Promise<QueueOutcome> {
  if (!(await triggerInUse(db, event.shopId, event.handle))) return 'not_in_use';
  return (await queueFlowEvents(db, [event], now)) > 0 ? 'queued' : 'duplicate';
}
