import type { DatabaseClient } from '../db/client.js';
import { deliveryFactsOf } from '../shipments/delivery-facts.js';
import { storedEventsOf } from '../shipments/status.js';
import {
  appStateOf,
  setAppState,
  trackersWithStatusAfter,
  writeDeliveryFacts,
} from './queries/delivery-facts.js';

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
  const state = await appStateOf(prisma, deliveryFactsKey);
  if (state?.value === 'done') return 0;
  const rows = await trackersWithStatusAfter(prisma, state?.value ?? '', batch);
  if (rows.length > 0) {
    await writeDeliveryFacts(
      prisma,
      rows.map((row) => ({
        id: row.id,
        statusCheckedAt: row.statusCheckedAt,
        facts: deliveryFactsOf({ ...row, events: storedEventsOf(row.events) }),
      })),
    );
  }
  const value = rows.length < batch ? 'done' : rows.at(-1)!.id;
  await setAppState(prisma, deliveryFactsKey, value);
  return rows.length;
}
