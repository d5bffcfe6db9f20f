import { type DatabaseClient, isUniqueViolation } from '../db/client.js';
import type { VerifiedDelivery } from './verify.js';

export type RecordResult = { kind: 'recorded'; id: string } | { kind: 'duplicate' };

/**
 * Intake's one write: the delivery, durably, before the platform gets its 2xx. (shop, topic, event id) is
 * the duplicate key, so a delivery seen before — the same merchant action, retried or duplicated — is
 * acknowledged and ignored. Nothing else happens here: the worker does the rest.
 */
export async function recordDelivery(
  prisma: DatabaseClient,
  delivery: VerifiedDelivery,
): Promise<RecordResult> {
  try {
    const row = await prisma.webhookDelivery.create({
      data: {
        shopDomain: delivery.shopDomain,
        topic: delivery.topic,
        eventId: delivery.eventId,
        webhookId: delivery.webhookId,
        apiVersion: delivery.apiVersion,
        triggeredAt: delivery.triggeredAt,
        payload: delivery.rawBody,
      },
      select: { id: true },
    });
    return { kind: 'recorded', id: row.id };
  } catch (error) {
    if (isUniqueViolation(error)) return { kind: 'duplicate' };
    throw error;
  }
}
