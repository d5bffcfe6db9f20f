import type { DatabaseClient, Tx } from '../db/client.js';

/** The stored OAuth sessions' rows, besides the session storage's own (src/shops/session-storage.ts). */

/** Deletes every session of a shop: how many. */
export async function deleteShopSessions(db: DatabaseClient | Tx, shop: string): Promise<number> {
  const { count } = await db.session.deleteMany({ where: { shop } });
  return count;
}
