import { randomUUID } from 'node:crypto';
import type { DatabaseClient } from '../db/client.js';
import { insertRows } from '../db/insert-rows.js';
import type { VerifiedDelivery } from './verify.js';

export type RecordResult = { kind: 'recorded'; id: string } | { kind: 'duplicate' };

/**
 * Intake's one write: the delivery, durably, before the platform gets its 2xx. (shop, topic, event id) is
 * the duplicate key, so a delivery seen before — the same merchant action, retried or duplicated — is
 * acknowledged and ignored. Nothing else happens here: the worker does the rest.
 *
 * Group commit: deliveries arriving while a write is in flight wait for the next one, and each write is
 * one multi-row `INSERT … ON CONFLICT DO NOTHING RETURNING id` for all of them. Every caller still gets
 * its answer only after its own row is committed (or known to be a duplicate); under load many requests
 * share one statement and one commit instead of queueing for one each.
 */
export function recordDelivery(prisma: DatabaseClient, delivery: VerifiedDelivery): Promise<RecordResult> {
  let writer = writers.get(prisma);
  if (!writer) {
    writer = createDeliveryWriter(prisma);
    writers.set(prisma, writer);
  }
  return writer.record(delivery);
}

const writers = new WeakMap<DatabaseClient, DeliveryWriter>();

interface DeliveryWriter {
  record(delivery: VerifiedDelivery): Promise<RecordResult>;
}

interface Waiting {
  id: string;
  delivery: VerifiedDelivery;
  resolve(result: RecordResult): void;
  reject(error: unknown): void;
}

/** At most this many rows per statement; the rest wait for the next write. */
const maxBatch = 200;

function createDeliveryWriter(prisma: DatabaseClient): DeliveryWriter {
  let queue: Waiting[] = [];
  let writing = false;
  let scheduled = false;

  async function drain(): Promise<void> {
    writing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.slice(0, maxBatch);
        queue = queue.slice(batch.length);
        await write(batch);
      }
    } finally {
      writing = false;
    }
  }

  async function write(batch: Waiting[]): Promise<void> {
    let written: Set<string>;
    try {
      written = new Set(await insert(batch));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      // One bad row must not fail its neighbours: write them one by one, each with its own answer.
      for (const w of batch) await write([w]);
      return;
    }
    // A row not written collided on the duplicate key: with an earlier delivery, or with one of this
    // batch (the first of them is written).
    for (const w of batch)
      w.resolve(written.has(w.id) ? { kind: 'recorded', id: w.id } : { kind: 'duplicate' });
  }

  function insert(batch: Waiting[]): Promise<string[]> {
    const now = new Date();
    return insertRows(
      prisma,
      'WebhookDelivery',
      batch.map(({ id, delivery }) => ({
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
      })),
      { skipConflictsOn: ['shopDomain', 'topic', 'eventId'] },
    );
  }

  return {
    record(delivery) {
      return new Promise<RecordResult>((resolve, reject) => {
        queue.push({ id: randomUUID(), delivery, resolve, reject });
        // The first write waits for the end of this turn of the event loop, so every request already
        // read from the sockets joins it; later ones join whichever write comes next.
        if (!writing && !scheduled) {
          scheduled = true;
          setImmediate(() => {
            scheduled = false;
            void drain();
          });
        }
      });
    },
  };
}
