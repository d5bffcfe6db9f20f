import type { DatabaseClient, Tx } from '../db/client.js';
import type { Session as SessionRow } from '../generated/sqlite/client.js';

/** The stored OAuth sessions' rows (src/shops/session-storage.ts seals and opens their tokens). */

/** Deletes every session of a shop: how many. */
export async function deleteShopSessions(db: DatabaseClient | Tx, shop: string): Promise<number> {
  const { count } = await db.session.deleteMany({ where: { shop } });
  return count;
}

/** Writes a session's row (made or replaced). */
export async function upsertSessionRow(prisma: DatabaseClient, data: SessionRow): Promise<void> {
  await prisma.session.upsert({ where: { id: data.id }, update: data, create: data });
}

/** A session's row, if any. */
export function sessionRowOf(prisma: DatabaseClient, id: string): Promise<SessionRow | null> {
  return prisma.session.findUnique({ where: { id } });
}

/** Deletes a session's row (no error when the id is unknown). */
export async function deleteSessionRow(prisma: DatabaseClient, id: string): Promise<void> {
  await prisma.session.deleteMany({ where: { id } });
}

/** Deletes these sessions' rows. */
export async function deleteSessionRows(prisma: DatabaseClient, ids: string[]): Promise<void> {
  await prisma.session.deleteMany({ where: { id: { in: ids } } });
}

/** Up to `limit` of a shop's sessions, the latest to expire first. */
export function sessionRowsOfShop(
  prisma: DatabaseClient,
  shop: string,
  limit: number,
): Promise<SessionRow[]> {
  return prisma.session.findMany({
    where: { shop },
    take: limit,
    orderBy: [{ expires: 'desc' }, { id: 'asc' }],
  });
}

/** Every session's stored tokens. */
export function storedSessionTokens(
  prisma: DatabaseClient,
): Promise<Array<{ id: string; accessToken: string; refreshToken: string | null }>> {
  return prisma.session.findMany({
    select: { id: true, accessToken: true, refreshToken: true },
  });
}

/** Replaces a session's tokens only while they are still the ones read: how many rows (0 or 1). */
export async function replaceSessionTokens(
  prisma: DatabaseClient,
  read: { id: string; accessToken: string; refreshToken: string | null },
  tokens: { accessToken: string; refreshToken: string | null },
): Promise<number> {
  const { count } = await prisma.session.updateMany({
    where: { id: read.id, accessToken: read.accessToken, refreshToken: read.refreshToken },
    data: tokens,
  });
  return count;
}

/** PostgreSQL: writes the Session table anew, without the replaced row versions. */
export async function vacuumSessionTable(prisma: DatabaseClient): Promise<void> {
  await prisma.$executeRawUnsafe('VACUUM FULL "Session"');
}

/** How many sessions are stored (also: whether the table can be read). */
export function countSessions(prisma: DatabaseClient): Promise<number> {
  return prisma.session.count();
}
