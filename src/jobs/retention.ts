import type { DatabaseClient, Tx } from '../db/client.js';
import { providerOf } from '../db/provider-of.js';
import { inTransaction } from '../db/transaction.js';
import type { Logger } from '../logger.js';
import { yieldToEventLoop } from '../lib/yield-to-event-loop.js';
import {
  deletePicked,
  type KeyedRule,
  keyedRuleIds,
  type PassTimes,
  type PickRule,
  type RetentionRule,
  retentionRules,
  runKeyedStatements,
  type SweepCursor,
  sweepRows,
  takenKeys,
} from './queries/retention.js';

/**
 * Bounded storage: one mechanism deletes what the app no longer needs, each kind of row described once as
 * data (`retentionRules`), every delete in batches of at most `batchSize` rows:
 *
 * - a batch is one short statement, `DELETE … WHERE "id" IN (SELECT … LIMIT n)` (or, where rows of several
 *   tables go together, a few statements in one short transaction), its pick served by an index so that it
 *   reads little more than the rows it takes. On PostgreSQL a pick locks what it takes and skips rows another
 *   transaction holds (`FOR UPDATE … SKIP LOCKED`): it never waits on, nor holds up, the app's own writes,
 *   and two workers running retention at once take different rows.
 * - a pass runs each rule until a batch comes back short, or for at most `maxBatches` batches (the rest waits
 *   for the next pass), and yields to the event loop after every batch: on SQLite the process that serves
 *   intake runs these too, and a batch holds it for a few milliseconds.
 *
 * What is kept, and why (docs/operations.md, "Retention"):
 * - webhook deliveries: the duplicate window (RETENTION_DELIVERY_DAYS) after their last attempt, since their
 *   (shop, topic, event id) key is what refuses a duplicate; failed ones RETENTION_FAILED_DELIVERY_DAYS (for
 *   an operator to retry); pending ones always. Status pushes alike (their dedupe key is the push's content).
 * - store fulfilment events written or skipped: RETENTION_STORE_EVENT_DAYS after they were queued. Every read
 *   of a tracker (poll, push, the merchant's or a shopper's look) queues its history's changes again (the
 *   newest few: src/shipments/read-bounds.ts) and relies on the rows' unique key to skip those queued
 *   before, so deleting a written row would have the next read queue it, and the store get it, twice. Hence the tracker keeps the newest event time whose
 *   rows were deleted (`storeEventsThrough`), raised in the same transaction as the delete, and the insert
 *   of store events writes no change at or before it (`storeEventNotRetired` in src/shipments/read-bounds.ts, checked by the statement
 *   itself under a share lock of the tracker on PostgreSQL, so a read that loaded the tracker before the
 *   delete cannot slip through). Pending, sending and failed rows (refused writes, shown on the page) stay
 *   as long as their tracker.
 * - trackers, their lines and fulfilments: RETENTION_TRACKER_DAYS after the tracker's last write, once its
 *   work is settled (`settled` in ./queries/retention.ts): synced, with wanted and actual state agreeing
 *   (removed and absent at the service, or present with a final status), no read or problem evaluation
 *   due, no lease held, no store write or tracking link of its fulfilments pending or refused, no open
 *   problem. A tracker failed or dead (the merchant's health line), wanted removed but still at the service,
 *   or still wanted whose polling gave up, stays: only its row remembers the work. Trackers are swept oldest
 *   first by their last write, so a kept one is read once a sweep, not at every batch; a batch takes the
 *   settled ones of its keys (locked on PostgreSQL) and deletes their lines, then them, in one transaction
 *   (their done store events and closed problems go with them). Fulfilments are swept likewise: one quiet
 *   for the retention with no line left goes, with its tracking-link row once that row's write is done
 *   (sent or skipped): it alone says the store holds the app's link (for turning the setting off; the
 *   carrier's own link is the line's trackingUrl); one still to write or refused stays, and its fulfilment.
 * - the shoppers' page's counters (visitors' failed lookups, shops' counts a minute): once they expire, a day
 *   after they last counted anything. Their rule catches up: it runs until a batch comes back short (up to
 *   `catchUpBatches`), so a pass deletes what expired since the last one, however fast visitors' addresses
 *   came in.
 */

const day = 24 * 3_600_000;

export interface RetentionSettings {
  /** Processed webhook deliveries and applied (stale, dropped) status pushes: the duplicate window. */
  deliveryMs: number;
  /** Failed deliveries and pushes. */
  failedDeliveryMs: number;
  /** Store fulfilment events written or skipped. */
  storeEventMs: number;
  /** Settled trackers (their lines, fulfilments, tracking links), counted from their last write. */
  trackerMs: number;
  /** Rows per batch. */
  batchSize: number;
  /** Batches per rule per pass. */
  maxBatches: number;
  /**
   * Batches per pass of a rule that catches up (the shoppers' page's counters): it runs until a batch comes
   * back short, so its work grows with what expired since the last pass, up to this many statements.
   */
  catchUpBatches: number;
}

export const defaultRetention: RetentionSettings = {
  deliveryMs: 7 * day,
  failedDeliveryMs: 30 * day,
  storeEventMs: 30 * day,
  trackerMs: 400 * day,
  // About 10 ms a statement on SQLite on an idle machine (a status push with its body, a line with its rollup
  // triggers): well inside the 50 ms the process may be held (bench/storage.ts measures it).
  batchSize: 200,
  // 10 000 rows a rule a pass, a pass a minute: far more than a busy fleet writes; a backlog waits longer.
  maxBatches: 50,
  // 200 000 counters a pass, a pass a minute: over 3 000 new visitor addresses a second (each a row kept a
  // day), far past what the per-shop bound on those rows lets in (src/proxy/lookup-limits.ts).
  catchUpBatches: 1_000,
};

/** After a sweep has caught up, it starts again from the oldest this long after it began. */
const sweepRestartMs = day;

/** One rule's work in a pass: batches run and rows deleted. */
export interface RuleStats {
  batches: number;
  rows: number;
}

export interface RetentionPass {
  rules: Record<string, RuleStats>;
  /** Every rule finished (a short batch); false: some stopped at maxBatches and continue next pass. */
  done: boolean;
}

export interface Retention {
  readonly settings: RetentionSettings;
  /** One bounded pass over every rule. */
  runPass(options?: { now?: Date; shouldStop?: () => boolean }): Promise<RetentionPass>;
}

/** A batch's outcome: rows deleted, and whether it was full (another may follow). */
interface Batch {
  deleted: number;
  full: boolean;
}

export function createRetention(
  deps: { prisma: DatabaseClient; logger?: Logger },
  settings: Partial<RetentionSettings> = {},
  rules: readonly RetentionRule[] = retentionRules,
): Retention {
  const config: RetentionSettings = { ...defaultRetention, ...settings };
  const provider = providerOf(deps.prisma);
  /** Per sweep: where it is (the last column value visited) and when it began. */
  const sweeps = new Map<string, { after: SweepCursor | null; startedAt: number }>();

  async function pickBatch(rule: PickRule, times: PassTimes): Promise<Batch> {
    const deleted = await deletePicked(deps.prisma, provider, rule, times, config.batchSize);
    return { deleted, full: deleted >= config.batchSize };
  }

  /** A sweep's next keys: up to batchSize rows after its cursor, oldest first. */
  async function sweepKeys(tx: Tx, rule: KeyedRule & { sweep: object }, times: PassTimes) {
    let state = sweeps.get(rule.name);
    if (!state) sweeps.set(rule.name, (state = { after: null, startedAt: times.now.getTime() }));
    const rows = await sweepRows(tx, provider, rule.sweep, times, state.after, config.batchSize);
    const last = rows.at(-1);
    if (last) state.after = { at: new Date(last.at), id: last.id };
    // Caught up: what ages past the cutoff from now on lies after the cursor; the rows kept (a fulfilment
    // whose lines had not gone yet, a tracker with work left) are visited again by the next sweep.
    if (rows.length < config.batchSize && times.now.getTime() - state.startedAt >= sweepRestartMs)
      sweeps.delete(rule.name);
    return rows.map((r) => r.id);
  }

  async function keyedBatch(rule: KeyedRule, times: PassTimes): Promise<Batch> {
    return inTransaction(deps.prisma, async (tx) => {
      const keys = rule.sweep
        ? await sweepKeys(tx, { ...rule, sweep: rule.sweep }, times)
        : await keyedRuleIds(tx, provider, rule, times, config.batchSize);
      const ids = await takenKeys(tx, provider, rule, times, keys);
      const deleted = await runKeyedStatements(tx, provider, rule, times, ids);
      return { deleted, full: (rule.sweep ? keys.length : deleted) >= config.batchSize };
    });
  }

  return {
    settings: config,
    async runPass(options = {}) {
      const now = options.now ?? new Date();
      const times: PassTimes = {
        now,
        delivery: new Date(now.getTime() - config.deliveryMs),
        failed: new Date(now.getTime() - config.failedDeliveryMs),
        storeEvent: new Date(now.getTime() - config.storeEventMs),
        tracker: new Date(now.getTime() - config.trackerMs),
      };
      const pass: RetentionPass = { rules: {}, done: true };
      for (const rule of rules) {
        const stats: RuleStats = { batches: 0, rows: 0 };
        pass.rules[rule.name] = stats;
        let full = true;
        const maxBatches = 'catchUp' in rule && rule.catchUp ? config.catchUpBatches : config.maxBatches;
        while (full && stats.batches < maxBatches && !options.shouldStop?.()) {
          const batch = 'pick' in rule ? await pickBatch(rule, times) : await keyedBatch(rule, times);
          stats.batches++;
          stats.rows += batch.deleted;
          full = batch.full;
          // Between batches, whatever waits (a webhook, a service answer) runs.
          await yieldToEventLoop();
        }
        if (full) pass.done = false;
      }
      const deleted = Object.entries(pass.rules).filter(([, r]) => r.rows > 0);
      if (deleted.length > 0)
        deps.logger?.info(Object.fromEntries(deleted.map(([name, r]) => [name, r.rows])), 'retention pass');
      return pass;
    },
  };
}
