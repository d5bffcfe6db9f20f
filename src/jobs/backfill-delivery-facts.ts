import type { DatabaseClient } from '../db/client.js';
import { SqlParams } from '../db/sql.js';
import { deliveryFactsOf } from '../shipments/delivery-facts.js';
import { storedEventsOf } from '../shipments/status.js';

/** AppState key: the last tracker id whose delivery facts were worked out, or "done". */
export const deliveryFactsKey = 'deliveryFacts.backfilledThrough';

/**
 * Works out the delivery facts (src/shipments/delivery-facts.ts) of trackers read before the facts were
 * kept, a batch at a time in id order, remembering where it stopped (AppState), so the analytics of the
 * parcels delivered before the upgrade become exact too. New reads write their facts themselves; a row read
 * again between this pass's read and write is left to that read (the write is conditional on
 * statusCheckedAt). Returns how many rows it looked at; 0 once everything was done.
 */
export async function backfillDeliveryFacts(prisma: DatabaseClient, batch = 1000): Promise<number> {
  const state = await prisma.appState.findUnique({ where: { key: deliveryFactsKey } });
  if (state?.value === 'done') return 0;
  const rows = await prisma.tracker.findMany({
    where: { id: { gt: state?.value ?? '' }, status: { not: null } },
    orderBy: { id: 'asc' },
    take: batch,
    select: {
      id: true,
      status: true,
      statusDetail: true,
      events: true,
      lastEventAt: true,
      estimatedDelivery: true,
      createdAt: true,
      statusCheckedAt: true,
    },
  });
  // One statement for the batch: each row's facts as a VALUES row, written where the row was not read
  // again meanwhile (statusCheckedAt unchanged).
  if (rows.length > 0) {
    const p = SqlParams.for(prisma);
    // A column of NULLs alone would have no type on PostgreSQL: each NULL says its column's.
    const none = (pgType: string) => (p.provider === 'postgresql' ? `NULL::${pgType}` : 'NULL');
    const values = rows.map((row) => {
      const f = deliveryFactsOf({ ...row, events: storedEventsOf(row.events) });
      return `(${[
        p.text(row.id),
        row.statusCheckedAt ? p.time(row.statusCheckedAt) : none('timestamp(3)'),
        f.deliveredAt ? p.time(f.deliveredAt) : none('timestamp(3)'),
        f.transitSeconds === null ? none('integer') : p.int(f.transitSeconds),
        f.deliveredOnTime === null ? none('integer') : p.int(f.deliveredOnTime ? 1 : 0),
        p.int(f.hadException ? 1 : 0),
        p.int(f.hadFailedAttempt ? 1 : 0),
      ].join(', ')})`;
    });
    const bool = (column: string) => (p.provider === 'postgresql' ? `(v.${column} = 1)` : `v.${column}`);
    await prisma.$executeRawUnsafe(
      `WITH v(id, checked, delivered, transit, on_time, exc, fa) AS (VALUES ${values.join(', ')})
      UPDATE "Tracker" SET "deliveredAt" = v.delivered, "transitSeconds" = v.transit,
        "deliveredOnTime" = ${bool('on_time')}, "hadException" = ${bool('exc')}, "hadFailedAttempt" = ${bool('fa')}
      FROM v WHERE "Tracker"."id" = v.id AND "Tracker"."statusCheckedAt" IS NOT DISTINCT FROM v.checked`,
      ...p.values,
    );
  }
  const value = rows.length < batch ? 'done' : rows.at(-1)!.id;
  await prisma.appState.upsert({
    where: { key: deliveryFactsKey },
    update: { value },
    create: { key: deliveryFactsKey, value },
  });
  return rows.length;
}
