import type { CarrierMatcher } from '../../carriers/match.js';
import type { Tx } from '../../db/client.js';
import type { SupportedTopic, TopicBody } from '../topic-bodies.js';

/** What a topic's use case gets: the delivery's transaction and the few services it may use. */
export interface TopicContext {
  tx: Tx;
  shopDomain: string;
  /** Built before the transaction opens (SQLite has one connection: no reads beside the transaction). */
  matcher: CarrierMatcher;
  /** Work the worker already did for this delivery in steps of their own (src/webhooks/topics/index.ts). */
  prepared?: PreparedWork;
}

/**
 * A topic's bulk applied before the delivery's transaction, in short transactions of its own, because it may
 * be too large for one (a customers/redact of thousands of orders); the use case then records it.
 */
export type PreparedWork = { topic: 'customers/redact'; counts: RedactCounts };

/** What a customers/redact's steps changed: tracking lines, fulfilment e-mail hashes and stored bodies. */
export interface RedactCounts {
  lines: number;
  emails: number;
  bodies: number;
}

/**
 * A use case's result. `applied` and `ignored` are done; `rejected` means the payload cannot be used (in
 * full: what could be used is applied, e.g. the tracking numbers within the bounds) and trying again will
 * not help (it is kept, marked failed with the reason, for an operator to look at).
 */
export type TopicResult =
  | { kind: 'applied'; detail: string }
  | { kind: 'ignored'; detail: string }
  | { kind: 'rejected'; detail: string };

/** A topic's use case, given its body already checked against the topic and shop (topic-bodies.ts). */
export type TopicHandler<T extends SupportedTopic> = (
  ctx: TopicContext,
  body: TopicBody<T>,
) => Promise<TopicResult>;
