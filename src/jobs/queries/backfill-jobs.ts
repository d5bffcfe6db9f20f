import type { DatabaseClient, Tx } from '../../db/client.js';
import { leaseGivenBack } from '../../db/lease-queue.js';
import type { BackfillJob } from '../../generated/sqlite/client.js';

/**
 * The backfill's reads and writes of its BackfillJob rows (src/jobs/backfill.ts): a shop's running and
 * newest job, a job started or resumed, the leased jobs a pass works on, and each step's outcome (a page
 * saved, the store's failure, our own failure kept as a backoff). Each write of a leased job names the
 * lease it was read with, so a job another worker took meanwhile is left alone.
 */

type Db = DatabaseClient | Tx;

/** The shop's running backfill job, if any. */
export function runningBackfillJob(db: Db, shopId: string): Promise<BackfillJob | null> {
  return db.backfillJob.findFirst({ where: { shopId, state: 'running' } });
}

/** The shop's newest backfill job (by its start), if any. */
export function latestBackfillJob(db: Db, shopId: string): Promise<BackfillJob | null> {
  return db.backfillJob.findFirst({ where: { shopId }, orderBy: { startedAt: 'desc' } });
}

/** A failed job running again from its cursor: its error and end cleared, its lease given back. */
export function resumeBackfillJob(db: Db, jobId: string): Promise<BackfillJob> {
  return db.backfillJob.update({
    where: { id: jobId },
    data: { state: 'running', error: null, finishedAt: null, ...leaseGivenBack },
  });
}

/** A new running job for the shop, `days` back. */
export function createBackfillJob(db: Db, shopId: string, days: number): Promise<BackfillJob> {
  return db.backfillJob.create({ data: { shopId, days } });
}

/** Of these job ids, those still leased to `token` (what a pass claimed). */
export function leasedBackfillJobs(db: Db, ids: string[], token: string): Promise<BackfillJob[]> {
  return db.backfillJob.findMany({ where: { id: { in: ids }, leaseOwner: token } });
}

/**
 * The store's answer failed the step: the job, while still running and leased as it was read, ends
 * `failed` with the reason, its lease given back.
 */
export async function markBackfillFailed(
  db: Db,
  job: Pick<BackfillJob, 'id' | 'leaseOwner'>,
  error: string,
): Promise<void> {
  await db.backfillJob.updateMany({
    where: { id: job.id, leaseOwner: job.leaseOwner, state: 'running' },
    data: {
      state: 'failed',
      error,
      finishedAt: new Date(),
      ...leaseGivenBack,
    },
  });
}

/** What a page added to its job. */
export interface BackfillPage {
  /** The page's endCursor (the job's own when the page gave none). */
  cursor: string | null;
  /** Fulfilments read, and tracking numbers wanted, on the page. */
  seen: number;
  wanted: number;
  /** The last page: the job ends `done`, its lease given back. */
  done: boolean;
}

/**
 * Saves a page on its job (inside the page's transaction): its cursor and counters, only while the job
 * is still running, leased as it was read and at the cursor it was read at. How many rows (0: someone
 * else saved this page, or the job stopped).
 */
export async function saveBackfillPage(
  tx: Tx,
  job: Pick<BackfillJob, 'id' | 'leaseOwner' | 'cursor'>,
  page: BackfillPage,
): Promise<number> {
  const { count } = await tx.backfillJob.updateMany({
    where: { id: job.id, leaseOwner: job.leaseOwner, state: 'running', cursor: job.cursor },
    data: {
      cursor: page.cursor,
      pagesDone: { increment: 1 },
      fulfillmentsSeen: { increment: page.seen },
      trackersWanted: { increment: page.wanted },
      ...(page.done ? { state: 'done', finishedAt: new Date(), ...leaseGivenBack } : {}),
    },
  });
  return count;
}

/**
 * A step failed on our side: the job, while still leased to `token`, keeps its lease until `retryAt` (the
 * backoff) and records the reason.
 */
export async function backOffBackfillJob(
  db: Db,
  jobId: string,
  token: string,
  error: string,
  retryAt: Date,
): Promise<void> {
  await db.backfillJob.updateMany({
    where: { id: jobId, leaseOwner: token },
    data: { error, leaseExpiresAt: retryAt },
  });
}
