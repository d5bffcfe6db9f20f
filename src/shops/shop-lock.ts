import type { Tx } from '../db/client.js';

/**
 * One shop's store events are applied one at a time: each use case first writes the shop's row, so a
 * concurrent one (another worker, on PostgreSQL) waits until this transaction ends and then reads what it
 * wrote. Without it two workers could each read the state from before the other's change, and an older
 * update (or a fulfilment racing its order's cancellation) could win.
 */
export async function lockShop(tx: Tx, shopId: string): Promise<{ linkToTrackingPage: boolean }> {
  // What it returns is read under the lock: a setting changed meanwhile (in its own locked transaction)
  // is seen here.
  return tx.shop.update({
    where: { id: shopId },
    data: { updatedAt: new Date() },
    select: { linkToTrackingPage: true },
  });
}
