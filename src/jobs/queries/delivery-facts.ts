import type { DatabaseClient } from '../../db/client.js';
import { SqlParams } from '../../db/sql.js';
import type { DeliveryFacts } from '../../shipments/delivery-facts.js';

/** The delivery facts backfill's reads and writes (src/jobs/backfill-delivery-facts.ts). */

/** The AppState row of `key`, if any. */
export function appStateOf(prisma: DatabaseClient, key: string): Promise<{ value: string } | null> {
  return prisma.appState.findUnique({ where: { key } });
}

/** Sets the AppState row of `key`. */
export async function setAppState(prisma: DatabaseClient, key: string, value: string): Promise<void> {
  await prisma.appState.upsert({ where: { key }, update: { value }, create: { key, value } });
}

/** Up to `batch` trackers after `afterId` (in id order) that have a status: what their facts come from. */
export function trackersWithStatusAfter(prisma: DatabaseClient, afterId: string, batch: number) {
  return prisma.tracker.findMany({
    where: { id: { gt: afterId }, status: { not: null } },
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
}

/**
 * One statement for the batch: each row's facts as a VALUES row, written where the row was not read again
 * meanwhile (statusCheckedAt unchanged).
 */
export async function writeDeliveryFacts(
  prisma: DatabaseClient,
  rows: ReadonlyArray<{ id: string; statusCheckedAt: Date | null; facts: DeliveryFacts }>,
): Promise<void> {
  const p = SqlParams.for(prisma);
  // A column of NULLs alone would have no type on PostgreSQL: each NULL says its column's.
  const none = (pgType: string) => (p.provider === 'postgresql' ? `NULL::${pgType}` : 'NULL');
  const values = rows.map(({ id, statusCheckedAt, facts: f }) => {
    return `(${[
      p.text(id),
      statusCheckedAt ? p.time(statusCheckedAt) : none('timestamp(3)'),
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
