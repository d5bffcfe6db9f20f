import { type LeaseHolder, type QueueDescription, withPassLeases } from './lease-queue.js';

/**
 * The prologue every queue consumer shares: claim due rows, load those the claim really leased, act on
 * them, and stop renewing their leases once acted on. A consumer describes its pass (the queue, how many
 * rows, how it loads and works on them) and writes only the work itself.
 */
export interface ClaimedRows<Row> {
  /** How many rows a pass leases at most. */
  limit: number;
  /** The claim's time (default: the holder's clock). */
  now?: Date;
  /** At most this many rows of one shop (queues claimed shop by shop). */
  perGroupMax?: number;
  /**
   * The claimed rows still leased to `token`, in the order they are worked on: a query over their ids
   * and the queue's lease owner column.
   */
  load(ids: string[], token: string): Promise<Row[]>;
}

export interface QueuePass<Row, Result> extends ClaimedRows<Row> {
  queue: QueueDescription;
  /** The pass's answer when nothing was due. */
  none: Result;
  /**
   * Works on the loaded rows (never called with none). Every path writes its row with the lease given
   * back, so the pass forgets every claimed row afterwards (thrown or not), unless `forgetsItself`.
   */
  act(rows: Row[], leases: LeaseHolder): Promise<Result>;
  /** The act forgets or releases each row itself (a row may stay leased on purpose, as a backoff). */
  forgetsItself?: boolean;
}

/** Leases up to `limit` due rows to `leases`; returns their ids. */
function claimIds(leases: LeaseHolder, claim: ClaimedRows<unknown>): Promise<string[]> {
  return leases.claim(claim.limit, {
    ...(claim.now ? { now: claim.now } : {}),
    ...(claim.perGroupMax === undefined ? {} : { perGroupMax: claim.perGroupMax }),
  });
}

/** Claims up to `limit` due rows to `leases` and loads them (no query when none was due). */
export async function claimRows<Row>(leases: LeaseHolder, claim: ClaimedRows<Row>): Promise<Row[]> {
  const ids = await claimIds(leases, claim);
  return ids.length === 0 ? [] : claim.load(ids, leases.token);
}

/**
 * One pass over a queue, with the worker's hold on it or one made for the pass (`withPassLeases`):
 * claim → load → act → forget.
 */
export function runQueuePass<Row, Result>(
  deps: Parameters<typeof withPassLeases>[0],
  pass: QueuePass<Row, Result>,
): Promise<Result> {
  return withPassLeases(deps, pass.queue, async (leases) => {
    const ids = await claimIds(leases, pass);
    if (ids.length === 0) return pass.none;
    if (pass.forgetsItself) return pass.act(await pass.load(ids, leases.token), leases);
    try {
      return await pass.act(await pass.load(ids, leases.token), leases);
    } finally {
      leases.forget(ids);
    }
  });
}
