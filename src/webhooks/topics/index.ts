import { type CheckedBody, checkTopicBody, type SupportedTopic, type TopicBody } from '../topic-bodies.js';
import { handleAppUninstalled } from './app-uninstalled.js';
import type { DatabaseClient } from '../../db/client.js';
import { inTransaction } from '../../db/transaction.js';
import {
  handleCustomersDataRequest,
  handleCustomersRedact,
  handleShopRedact,
  redactInSteps,
} from './compliance.js';
import { handleFulfillment } from './fulfillment.js';
import { handleOrderCancelled } from './order-cancelled.js';
import type { PreparedWork, TopicContext, TopicHandler, TopicResult } from './types.js';

/** Every topic the app subscribes to, and the use case that handles it. */
export const topicHandlers: { readonly [T in SupportedTopic]: TopicHandler<T> } = {
  'fulfillments/create': handleFulfillment,
  'fulfillments/update': handleFulfillment,
  'orders/cancelled': handleOrderCancelled,
  'app/uninstalled': handleAppUninstalled,
  'customers/data_request': handleCustomersDataRequest,
  'customers/redact': handleCustomersRedact,
  'shop/redact': handleShopRedact,
};

function handleChecked<T extends SupportedTopic>(
  ctx: TopicContext,
  checked: { topic: T; body: TopicBody<T> },
): Promise<TopicResult> {
  return topicHandlers[checked.topic](ctx, checked.body);
}

/**
 * A stored delivery's body applied with its topic's use case — only after it is checked against its topic
 * and shop again (intake checks before storing; bodies stored before that check existed are checked here).
 * A body that fails the check is rejected with the reason and changes nothing.
 */
export async function applyDelivery(
  ctx: TopicContext,
  topic: string,
  payload: unknown,
): Promise<TopicResult> {
  const check = checkTopicBody(topic, ctx.shopDomain, payload);
  if (!check.ok) {
    return check.reason === 'unsupported_topic'
      ? { kind: 'ignored', detail: check.detail }
      : { kind: 'rejected', detail: `${check.reason}: ${check.detail}` };
  }
  return handleChecked(ctx, check.checked as CheckedBody);
}

/**
 * The part of a stored delivery's use case that may be too large for one transaction, done first in short
 * transactions of its own (each idempotent: a delivery tried again after a crash part-way finishes it); the
 * delivery's own transaction then applies the rest with `prepared`. Today: a customers/redact's orders and
 * bodies. Nothing for other topics, or for a body that fails its check (the use case rejects it).
 */
export async function prepareDelivery(
  db: DatabaseClient,
  delivery: { id: string; topic: string; shopDomain: string },
  payload: unknown,
): Promise<PreparedWork | undefined> {
  if (delivery.topic !== 'customers/redact') return undefined;
  const check = checkTopicBody(delivery.topic, delivery.shopDomain, payload);
  if (!check.ok || check.checked.topic !== 'customers/redact') return undefined;
  const counts = await redactInSteps(
    (work) => inTransaction(db, work),
    delivery.shopDomain,
    check.checked.body,
    delivery.id,
  );
  return { topic: 'customers/redact', counts };
}
