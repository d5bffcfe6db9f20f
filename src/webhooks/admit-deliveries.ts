import type { AppContext } from '../context/app-context.js';
import type { DatabaseClient } from '../db/client.js';
import type { WebhookDelivery } from '../generated/sqlite/client.js';
import { fulfillmentConfirmations } from '../observability/metrics.js';
import type { FulfillmentConfirmer } from '../shopify/confirm-fulfillments.js';
import { shopsInstallState } from '../shops/shop-repository.js';
import { heldFulfillments, markDeliveriesDone } from './queries/deliveries.js';
import { checkStoredBody, type TopicBodyCheck } from './topic-bodies.js';

/**
 * What a claimed batch may apply, decided before anything is written or any service balance is spent.
 *
 * The platform's signature covers a webhook's body, not its shop header, and a fulfilment's or an order's
 * body names no shop. So:
 * - a delivery of these topics for a shop that has not installed the app (no shop row, or uninstalled)
 *   creates nothing: it is marked ignored, with the reason;
 * - a fulfilment the app has not seen for the shop (no Fulfillment row yet) is confirmed with the store
 *   itself: one Admin API `nodes` query per shop and pass for all of them (src/shopify/confirm-fulfillments.ts).
 *   One the store does not hold is refused (failed, with the reason, body kept for an operator); when the
 *   store cannot be asked (throttled, down, no access) the delivery waits and is tried again with backoff.
 *   A fulfilment seen before was confirmed then: its updates are not asked again.
 */

export interface Admission {
  /** Deliveries to apply, in the batch's order. */
  admitted: WebhookDelivery[];
  /** Done here: ignored (shop not installed) or refused (the store does not hold the fulfilment). */
  refused: number;
  /** The bodies checked here, by delivery id, for the apply path to use rather than parse them again. */
  checks: Map<string, TopicBodyCheck>;
  /** Left for later: the store could not be asked. */
  deferred: { delivery: WebhookDelivery; message: string }[];
}

const fulfillmentTopics = new Set(['fulfillments/create', 'fulfillments/update']);
/** Topics whose use case writes the shop's fulfilments, trackers or orders. */
const shopDataTopics = new Set([...fulfillmentTopics, 'orders/cancelled']);

export async function admitDeliveries(
  ctx: Pick<AppContext, 'prisma' | 'logger'>,
  confirmFulfillments: FulfillmentConfirmer,
  token: string,
  claimed: readonly WebhookDelivery[],
): Promise<Admission> {
  const gated = claimed.filter((d) => shopDataTopics.has(d.topic));
  if (gated.length === 0) return { admitted: [...claimed], refused: 0, deferred: [], checks: new Map() };

  const domains = [...new Set(gated.map((d) => d.shopDomain))];
  const shops = await shopsInstallState(ctx.prisma, domains);
  const installed = new Map(shops.filter((s) => !s.uninstalledAt).map((s) => [s.domain, s.id]));

  // The fulfilment each gated fulfilment delivery names (a body that fails its topic's check is left to
  // the apply path, which refuses it with the reason).
  const fulfillmentOf = new Map<string, string>();
  const checks = new Map<string, TopicBodyCheck>();
  for (const delivery of gated) {
    if (!fulfillmentTopics.has(delivery.topic) || !installed.has(delivery.shopDomain)) continue;
    const check = checkStoredBody(delivery);
    checks.set(delivery.id, check);
    if (
      check.ok &&
      (check.checked.topic === 'fulfillments/create' || check.checked.topic === 'fulfillments/update')
    )
      fulfillmentOf.set(delivery.id, check.checked.body.fulfillmentId);
  }
  const seen = await seenFulfillments(ctx.prisma, installed, gated, fulfillmentOf);

  // Per shop, the fulfilments to ask about: one query each (up to 250 a call).
  const ask = new Map<string, Set<string>>();
  for (const delivery of gated) {
    const fulfillmentId = fulfillmentOf.get(delivery.id);
    if (!fulfillmentId || seen.has(`${delivery.shopDomain} ${fulfillmentId}`)) continue;
    const ids = ask.get(delivery.shopDomain) ?? new Set<string>();
    ids.add(fulfillmentId);
    ask.set(delivery.shopDomain, ids);
  }
  const answers = new Map<string, Awaited<ReturnType<FulfillmentConfirmer['confirm']>>>();
  for (const [domain, ids] of ask) {
    const answer = await confirmFulfillments.confirm(domain, [...ids]);
    answers.set(domain, answer);
    if (answer.ok) {
      fulfillmentConfirmations.inc({ outcome: 'known' }, answer.known.size);
      fulfillmentConfirmations.inc({ outcome: 'unknown' }, ids.size - answer.known.size);
    } else fulfillmentConfirmations.inc({ outcome: 'not_asked' }, ids.size);
  }

  const admitted: WebhookDelivery[] = [];
  const ignored: WebhookDelivery[] = [];
  const unknown: WebhookDelivery[] = [];
  const deferred: Admission['deferred'] = [];
  for (const delivery of claimed) {
    if (!shopDataTopics.has(delivery.topic)) {
      admitted.push(delivery);
      continue;
    }
    if (!installed.has(delivery.shopDomain)) {
      ignored.push(delivery);
      continue;
    }
    const fulfillmentId = fulfillmentOf.get(delivery.id);
    // Only a fulfilment that was asked about has an answer: one seen before is admitted even when the
    // shop's other, first-seen fulfilments of the batch were asked about.
    const asked = fulfillmentId !== undefined && ask.get(delivery.shopDomain)?.has(fulfillmentId);
    const answer = asked ? answers.get(delivery.shopDomain) : undefined;
    if (!fulfillmentId || !answer) admitted.push(delivery);
    else if (!answer.ok)
      deferred.push({
        delivery,
        message: `could not confirm the fulfilment with the store: ${answer.message}`,
      });
    else if (answer.known.has(fulfillmentId)) admitted.push(delivery);
    else unknown.push(delivery);
  }

  let refused = 0;
  if (ignored.length > 0) {
    refused += await markDeliveriesDone(
      ctx.prisma,
      token,
      ignored.map((d) => d.id),
      { kind: 'ignored', detail: 'the shop has not installed the app: nothing created' },
    );
  }
  for (const delivery of unknown) {
    const fulfillmentId = fulfillmentOf.get(delivery.id)!;
    ctx.logger.warn(
      { deliveryId: delivery.id, shop: delivery.shopDomain, fulfillmentId },
      'delivery refused: the store does not hold the fulfilment',
    );
    refused += await markDeliveriesDone(ctx.prisma, token, [delivery.id], {
      kind: 'rejected',
      detail: `the store does not hold fulfilment ${fulfillmentId} (a body of another store?): nothing created`,
    });
  }
  return { admitted, refused, deferred, checks };
}

/** `<domain> <fulfillmentId>` of the named fulfilments the app already holds for the shops. */
async function seenFulfillments(
  prisma: DatabaseClient,
  installed: Map<string, string>,
  gated: readonly WebhookDelivery[],
  fulfillmentOf: Map<string, string>,
): Promise<Set<string>> {
  const byShop = new Map<string, string[]>();
  for (const delivery of gated) {
    const fulfillmentId = fulfillmentOf.get(delivery.id);
    const shopId = installed.get(delivery.shopDomain);
    if (!fulfillmentId || !shopId) continue;
    byShop.set(shopId, [...(byShop.get(shopId) ?? []), fulfillmentId]);
  }
  if (byShop.size === 0) return new Set();
  const rows = await heldFulfillments(prisma, byShop);
  const domainOf = new Map([...installed].map(([domain, id]) => [id, domain]));
  return new Set(rows.map((r) => `${domainOf.get(r.shopId)} ${r.fulfillmentId}`));
}
