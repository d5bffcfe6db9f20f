import type { DatabaseClient } from '../../db/client.js';
import { type KeysetCursor, type KeysetPage, keysetPage } from '../../db/keyset-cursor.js';

/**
 * Status changes the store refused to write to its order timeline (StoreFulfillmentEvent rows in state
 * `failed`; the worker tries them again with a growing wait). Counted and paged on the
 * (shopId, state, updatedAt, id) index: newest first, keyset by (updatedAt, id).
 */

export interface RefusedWriteRow {
  id: string;
  trackerId: string;
  trackingNumber: string | null;
  fulfillmentId: string;
  status: string;
  happenedAt: Date;
  error: string | null;
  attempts: number;
  updatedAt: Date;
}

export const refusedWritesPageSize = 50;

export function countRefusedWrites(prisma: DatabaseClient, shopId: string): Promise<number> {
  return prisma.storeFulfillmentEvent.count({ where: { shopId, state: 'failed' } });
}

export async function refusedWritesPage(
  prisma: DatabaseClient,
  shopId: string,
  page: { after?: KeysetCursor; limit?: number } = {},
): Promise<KeysetPage<RefusedWriteRow>> {
  const limit = page.limit ?? refusedWritesPageSize;
  const after = page.after?.at ? { at: page.after.at, id: page.after.id } : null;
  const rows = await prisma.storeFulfillmentEvent.findMany({
    where: {
      shopId,
      state: 'failed',
      ...(after
        ? { updatedAt: { lte: after.at }, OR: [{ updatedAt: { lt: after.at } }, { id: { lt: after.id } }] }
        : {}),
    },
    select: {
      id: true,
      trackerId: true,
      fulfillmentId: true,
      status: true,
      happenedAt: true,
      error: true,
      attempts: true,
      updatedAt: true,
      tracker: { select: { trackingNumber: true } },
    },
    orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  return keysetPage(
    rows.map(({ tracker, ...row }) => ({ ...row, trackingNumber: tracker?.trackingNumber ?? null })),
    limit,
    (row) => row.updatedAt,
  );
}
