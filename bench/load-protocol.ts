/** Messages between the bench (parent) and the load-generator child process. */

/** Signed `POST /webhooks` deliveries: what every load run sends, whatever server is under test. */
export interface WebhookTarget {
  /** Base URL of the server under test (http://127.0.0.1:PORT); requests go to `/webhooks`. */
  url: string;
  /** The app's client secret: every request's X-Shopify-Hmac-Sha256 is computed with it. */
  secret: string;
  topic: string;
  /** Deliveries rotate over these shop domains. */
  shops: string[];
  /** The body every delivery is made from (ids and tracking number made unique per request). */
  fixture: Record<string, unknown>;
}

export interface LoadRequest {
  id: number;
  target: WebhookTarget;
  /**
   * `closed`: autocannon, `connections` each sending the next request as soon as the previous answer arrives
   * (optionally capped with autocannon's `overallRate`). `paced`: open loop, requests sent at evenly spaced
   * instants at `rate` per second over at most `connections` keep-alive sockets, latency measured from the
   * instant a request was due (so queueing in the client counts too).
   */
  mode: 'closed' | 'paced';
  connections: number;
  durationSec: number;
  /** closed: autocannon's overallRate (absent: as fast as the server answers). paced: the rate. */
  rate?: number;
}

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  /** How many 2xx answers the figures are over. */
  samples: number;
}

export interface LoadResult {
  /** Answers received (any status). */
  responses: number;
  ok2xx: number;
  non2xx: number;
  /** Connection errors, including timeouts. */
  errors: number;
  timeouts: number;
  durationSec: number;
  /** 2xx answers per second. */
  rps: number;
  /** Exact percentiles over every 2xx answer's response time, in ms. */
  latencyMs: LatencySummary;
  /** As autocannon reports them (HDR histogram, whole ms; closed mode only). */
  autocannonLatencyMs: { p50: number; p99: number } | null;
  statusCodes: Record<string, number>;
}

export type ToChild = { type: 'run'; request: LoadRequest };

export type FromChild =
  | { type: 'ready' }
  | { type: 'result'; id: number; result: LoadResult }
  | { type: 'error'; id: number; message: string };
