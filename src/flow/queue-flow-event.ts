import type { DatabaseClient, Tx } from '../db/client.js';
import { hotPathOf } from '../db/hot-path.js';
import { queryRows, SqlParams } from '../db/sql.js';
import type { FlowTriggerPayload } from '../shopify/flow-trigger-receive.js';
import type { FlowTriggerHandle } from './triggers.js';
import { newRowId } from '../lib/row-id.js';

/**
 * The Flow outbox: a trigger to fire becomes a FlowEvent row, sent later by src/flow/send-flow-events.ts.
 * A row is written only while the shop has a workflow on that trigger (a FlowTriggerInUse row, kept by the
 * lifecycle callback: src/flow/lifecycle.ts), decided by the insert itself; a shop without one gets none.
 * The same fact twice (a duplicate push, a second read of one status) is one row: (shopId, handle,
 * dedupeKey) is unique and a repeat is skipped.
 */

export interface FlowEventInput {
  shopId: string;
  handle: FlowTriggerHandle;
  payload: FlowTriggerPayload;
  /** What makes two events one: the same key for the same shop and trigger is written once. */
  dedupeKey: string;
}

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

/** Whether the shop has an enabled workflow on the trigger (one primary-key read, on the hot path). */
export async function triggerInUse(db: Db, shopId: string, handle: FlowTriggerHandle): Promise<boolean> {
  const p = SqlParams.for(db);
  const rows = await hotPathOf(db).rows(
    `SELECT 1 AS "inUse" FROM "FlowTriggerInUse" WHERE "shopId" = ${p.text(shopId)} AND "handle" = ${p.text(handle)}`,
    p.values,
  );
  return rows.length > 0;
}

/** The handles a shop has workflows on. */
export async function handlesInUse(db: Db, shopId: string): Promise<Set<string>> {
  const rows = await db.flowTriggerInUse.findMany({ where: { shopId }, select: { handle: true } });
  return new Set(rows.map((r) => r.handle));
}

/** Rows per statement (seven parameters each). */
const chunkRows = 200;

/**
 * Many events in one statement per chunk, each written only while its shop uses its trigger and only once
 * per key. Returns how many were written.
 */
export async function queueFlowEvents(
  db: Db,
  events: readonly FlowEventInput[],
  now: Date = new Date(),
): Promise<number> {
  let written = 0;
  for (let start = 0; start < events.length; start += chunkRows) {
    // Parameters are numbered (PostgreSQL) or positional (SQLite): the text is built in order.
    const p = SqlParams.for(db);
    const values = events
      .slice(start, start + chunkRows)
      .map(
        (e) =>
          `(${p.text(newRowId())}, ${p.text(e.shopId)}, ${p.text(e.handle)}, ${p.text(JSON.stringify(e.payload))}, ${p.text(e.dedupeKey)})`,
      )
      .join(', ');
    const rows = await queryRows<{ id: string }>(
      db,
      `WITH v ("id", "shopId", "handle", "payload", "dedupeKey") AS (VALUES ${values}) ` +
        `INSERT INTO "FlowEvent" ("id", "shopId", "handle", "payload", "dedupeKey", "state", "attempts", "nextAttemptAt", "createdAt", "updatedAt") ` +
        `SELECT v."id", v."shopId", v."handle", v."payload", v."dedupeKey", 'pending', 0, ${p.time(now)}, ${p.time(now)}, ${p.time(now)} FROM v ` +
        `WHERE EXISTS (SELECT 1 FROM "FlowTriggerInUse" AS u WHERE u."shopId" = v."shopId" AND u."handle" = v."handle") ` +
        `ON CONFLICT ("shopId", "handle", "dedupeKey") DO NOTHING RETURNING "id"`,
      p,
    );
    written += rows.length;
  }
  return written;
}
