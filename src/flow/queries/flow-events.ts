import type { DatabaseClient, Tx } from '../../db/client.js';
import { hotPathOf } from '../../db/hot-path.js';
import { leaseGivenBack } from '../../db/lease-queue.js';
import { queryRows, SqlParams } from '../../db/sql.js';
import type { FlowEvent } from '../../generated/sqlite/client.js';
import { newRowId } from '../../lib/row-id.js';
import type { FlowTriggerPayload } from '../../shopify/flow-trigger-receive.js';
import type { FlowTriggerHandle } from '../triggers.js';

/**
 * The Flow outbox's reads and writes: the triggers each shop uses (FlowTriggerInUse, kept by the lifecycle
 * callback) and the FlowEvent rows (queued by src/flow/queue-flow-event.ts, sent by send-flow-events.ts).
 */

type Db = DatabaseClient | Tx;

export interface FlowEventInput {
  shopId: string;
  handle: FlowTriggerHandle;
  payload: FlowTriggerPayload;
  /** What makes two events one: the same key for the same shop and trigger is written once. */
  dedupeKey: string;
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

/**
 * The lifecycle callback's "disabled": deletes the shop's row of the trigger unless a newer callback wrote
 * it, and says whether a newer one is there. A row dated after `latestAllowed` (a future time stored before
 * callbacks' times were bounded) is newer than nothing.
 */
export async function dropTriggerInUse(
  prisma: DatabaseClient,
  shopId: string,
  handle: string,
  at: Date,
  latestAllowed: Date,
): Promise<{ newer: number }> {
  await prisma.flowTriggerInUse.deleteMany({
    where: { shopId, handle, OR: [{ updatedAt: { lte: at } }, { updatedAt: { gt: latestAllowed } }] },
  });
  const newer = await prisma.flowTriggerInUse.count({ where: { shopId, handle } });
  return { newer };
}

/**
 * The lifecycle callback's "enabled", one statement: written unless a newer callback's row is there (a row
 * dated after `latestAllowed` is newer than nothing, as above).
 */
export async function writeTriggerInUse(
  prisma: DatabaseClient,
  shopId: string,
  handle: string,
  at: Date,
  latestAllowed: Date,
): Promise<boolean> {
  const p = SqlParams.for(prisma);
  const written = await queryRows<{ handle: string }>(
    prisma,
    `INSERT INTO "FlowTriggerInUse" ("shopId", "handle", "updatedAt") VALUES (${p.text(shopId)}, ${p.text(handle)}, ${p.time(at)}) ` +
      `ON CONFLICT ("shopId", "handle") DO UPDATE SET "updatedAt" = excluded."updatedAt" ` +
      `WHERE "FlowTriggerInUse"."updatedAt" <= excluded."updatedAt" OR "FlowTriggerInUse"."updatedAt" > ${p.time(latestAllowed)} RETURNING "handle"`,
    p,
  );
  return written.length > 0;
}

/** The claimed events still leased to `token`, with their shop's domain and install state, oldest first. */
export function leasedFlowEvents(prisma: DatabaseClient, ids: string[], token: string) {
  return prisma.flowEvent.findMany({
    where: { id: { in: ids }, leaseOwner: token },
    include: { shop: { select: { domain: true, uninstalledAt: true } } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/** The triggers these shops use, as `<shopId> <handle>`. */
export async function triggersInUseOf(prisma: DatabaseClient, shopIds: string[]): Promise<Set<string>> {
  return new Set(
    (
      await prisma.flowTriggerInUse.findMany({
        where: { shopId: { in: shopIds } },
        select: { shopId: true, handle: true },
      })
    ).map((u) => `${u.shopId} ${u.handle}`),
  );
}

/** Writes an event's outcome while its lease is still `token`'s, the lease given back. */
export async function finishFlowEvent(
  prisma: DatabaseClient,
  token: string,
  id: string,
  data: Partial<Pick<FlowEvent, 'state' | 'error' | 'attempts' | 'nextAttemptAt'>>,
): Promise<void> {
  await prisma.flowEvent.updateMany({
    where: { id, leaseOwner: token },
    data: { ...data, ...leaseGivenBack },
  });
}
