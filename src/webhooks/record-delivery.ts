import type { DatabaseClient } from '../db/client.js';
import { type GroupInsert, groupInsert } from '../db/group-insert.js';
import { type BulkRows, insertRows } from '../db/insert-rows.js';
import type { VerifiedDelivery } from './verify.js';
import { newRowId } from '../lib/row-id.js';

export type RecordResult = { kind: 'recorded'; id: string } | { kind: 'duplicate' };

/**
 * Intake's one write: the delivery, durably, before the platform gets its 2xx. (shop, topic, event id) is
 * the duplicate key, so a delivery seen before — the same merchant action, retried or duplicated — is
 * acknowledged and ignored. Nothing else happens here: the worker does the rest. Written by group commit
 * (src/db/group-insert.ts): under load many deliveries share one statement and one commit.
 */
export async function recordDelivery(
  prisma: DatabaseClient,
  delivery: VerifiedDelivery,
): Promise<RecordResult> {
  let writer = writers.get(prisma);
  if (!writer) {
    writer = groupInsert((rows) =>
      insertRows(prisma, 'WebhookDelivery', rows, { skipConflictsOn: ['shopDomain', 'topic', 'eventId'] }),
    );
    writers.set(prisma, writer);
  }
  const now = new Date();
  const id = newRowId();
  const written = await writer.insert({
    id,
    shopDomain: delivery.shopDomain,
    topic: delivery.topic,
    eventId: delivery.eventId,
    webhookId: delivery.webhookId,
    apiVersion: delivery.apiVersion,
    triggeredAt: delivery.triggeredAt,
    payload: delivery.rawBody,
    receivedAt: now,
    nextAttemptAt: now,
  });
  return written ? { kind: 'recorded', id } : { kind: 'duplicate' };
}

type DeliveryRow = BulkRows['WebhookDelivery'] & { id: string };

const writers = new WeakMap<DatabaseClient, GroupInsert<DeliveryRow>>();
